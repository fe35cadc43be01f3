"""Get, set and swap a module's tensors by dotted name ("layer.0.weight"), as
torch.nn.utils._named_member_accessor does for functional_call."""

from __future__ import annotations

from ...frontend.tensor import Tensor

# stands for "no such attribute" in swaps (a tensor that was not there is deleted again)
_MISSING = object()


def _check_name(name: str, what: str = "tensor") -> None:
    if "." in name:
        raise KeyError(f'{what} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{what} name can\'t be empty string ""')


def _module_cls():
    from ..modules.module import Module
    return Module


def set_tensor(module, name: str, tensor) -> None:
    if not isinstance(module, _module_cls()):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    _check_name(name)
    if name in module._parameters:
        module._parameters[name] = tensor
    elif name in module._buffers:
        module._buffers[name] = tensor
    else:
        setattr(module, name, tensor)


def swap_tensor(module, name: str, tensor, allow_missing: bool = False):
    """Put ``tensor`` in place of ``module.<name>`` (into ``_parameters`` / ``_buffers``
    directly, so no Parameter is required) and return what was there."""
    if not isinstance(module, _module_cls()):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if tensor is not _MISSING and not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    _check_name(name)
    for table in (module._parameters, module._buffers):
        if name in table:
            orig = table[name]
            if tensor is not _MISSING:
                table[name] = tensor
            else:
                del table[name]
            return orig
    if hasattr(module, name):
        orig = getattr(module, name)
    else:
        if not allow_missing:
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        orig = _MISSING
    if orig is not _MISSING and not isinstance(orig, Tensor) and orig is not None:
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig


class NamedMemberAccessor:
    """Dotted-name access to a module's submodules and tensors (submodules memoised)."""

    def __init__(self, module) -> None:
        self.module = module
        self.memo: dict = {}

    def get_submodule(self, name: str):
        if not name:
            return self.module
        if name in self.memo:
            return self.memo[name]
        prefix, dot, attr = name.rpartition(".")
        parent = self.get_submodule(prefix) if dot else self.module
        try:
            sub = getattr(parent, attr)
        except AttributeError as ex:
            raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from ex
        if not isinstance(sub, _module_cls()):
            raise TypeError(f"submodule `{name}`: {sub} is not an instance of torch.nn.Module")
        self.memo[name] = sub
        return sub

    def get_tensor(self, name: str):
        prefix, _, attr = name.rpartition(".")
        sub = self.get_submodule(prefix)
        try:
            tensor = getattr(sub, attr)
        except AttributeError as ex:
            raise AttributeError(f"{sub._get_name()} has no attribute `{name}`") from ex
        if not isinstance(tensor, Tensor) and tensor is not None:
            raise TypeError(f"{tensor} is not an instance of torch.Tensor")
        return tensor

    def set_tensor(self, name: str, value) -> None:
        prefix, _, attr = name.rpartition(".")
        set_tensor(self.get_submodule(prefix), attr, value)

    def swap_tensor(self, name: str, value, allow_missing: bool = False):
        prefix, _, attr = name.rpartition(".")
        return swap_tensor(self.get_submodule(prefix), attr, value, allow_missing=allow_missing)

    def swap_tensors_dict(self, named_tensors: dict, allow_missing: bool = False):
        """Swap every entry in; on any error swap the ones done back. Returns the old
        tensors by name and the names that were missing."""
        orig: dict = {}
        missing = []
        try:
            for name, tensor in named_tensors.items():
                old = self.swap_tensor(name, tensor, allow_missing=True)
                if old is _MISSING:
                    missing.append(name)
                orig[name] = old
        except Exception:
            for name, old in orig.items():
                self.swap_tensor(name, old, allow_missing=True)
            raise
        if missing and not allow_missing:
            for name, old in orig.items():
                self.swap_tensor(name, old, allow_missing=True)
            raise RuntimeError(f"Missing key(s): {', '.join(map(repr, missing))}.")
        return orig, missing

    def named_tensors(self, remove_duplicate: bool = True):
        yield from self.module.named_parameters(remove_duplicate=remove_duplicate)
        yield from self.module.named_buffers(remove_duplicate=remove_duplicate)

    def check_keys(self, keys):
        """(missing, unexpected) names, each sorted."""
        keys = set(keys)
        valid = {name for name, _ in self.named_tensors(remove_duplicate=False)}
        return sorted(valid - keys), sorted(keys - valid)
