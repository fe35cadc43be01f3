"""A dataset for the 'spawn' DataLoader test, in a module that imports only strided, so
that each spawned worker starts quickly."""

import strided


class SpawnRows(strided.utils.data.Dataset):
    def __len__(self):
        return 23

    def __getitem__(self, i):
        return strided.arange(3, dtype=strided.float32) + 10 * i, i
