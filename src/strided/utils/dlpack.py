"""DLPack interop (placeholder until the DLPack module lands)."""


def from_dlpack(ext_tensor):
    raise NotImplementedError("from_dlpack")
