"""The ``weights_only`` unpickler: a pickle reader that builds only what an allow-list names.

``strided.load(f)`` (``weights_only=True``, the default, as in torch 2.6+) reads ``data.pkl``
with this reader instead of ``pickle``. It interprets the opcodes of pickle protocol 2 itself,
so nothing in the file is ever imported or called unless it is on the list:

- ``GLOBAL mod name`` resolves only names in ``allowed_globals()`` (torch's names: tensors,
  storages, dtypes, ``Parameter``, ``OrderedDict``, the ``_rebuild_*`` functions...) or added
  by the user (``strided.serialization.add_safe_globals``). Names from ``sys``/``os``/
  ``posix``/``nt`` are refused even then.
- ``REDUCE`` calls only allow-listed functions; ``NEWOBJ``/``BUILD`` build only allow-listed
  classes; ``APPEND``/``SETITEM`` write only into lists and dicts.

Error texts are torch's (``strided.serialization.load`` wraps them the way ``torch.load``
does), so a refused checkpoint reads the same under both libraries.
"""

from __future__ import annotations

import warnings
from collections import Counter, OrderedDict
from pickle import UnpicklingError, decode_long
from struct import unpack
from sys import maxsize
from typing import Any

__all__ = ["Unpickler", "load", "UnpicklingError"]

# modules whose globals are never allowed, whatever the user adds
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")

_user_safe_globals: set = set()


def _add_safe_globals(safe_globals) -> None:
    global _user_safe_globals
    _user_safe_globals = _user_safe_globals | set(safe_globals)


def _remove_safe_globals(safe_globals) -> None:
    global _user_safe_globals
    _user_safe_globals = _user_safe_globals - set(safe_globals)


def _get_safe_globals() -> list:
    return list(_user_safe_globals)


def _clear_safe_globals() -> None:
    global _user_safe_globals
    _user_safe_globals = set()


class _safe_globals:
    """Context manager: the globals are allowed inside the ``with`` block only."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        _add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _remove_safe_globals(self.safe_globals)


def user_allowed_globals() -> dict[str, Any]:
    """``"module.qualname" -> object`` for the user's additions. A strided object is listed
    under its torch name as well (files name ``torch.nn.modules.linear.Linear``)."""
    from .serialization import _torch_name_of
    out: dict[str, Any] = {}
    for entry in _user_safe_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(entry)}")
            if type(entry[1]) is not str:
                raise TypeError("Expected second item in tuple to be str of callable full "
                                f"path, but got: {type(entry[1])}")
            out[entry[1]] = entry[0]
            continue
        out[f"{entry.__module__}.{entry.__qualname__}"] = entry
        torch_name = _torch_name_of(entry)
        if torch_name is not None:
            out[".".join(torch_name)] = entry
    return out


def allowed_globals() -> dict[str, Any]:
    from .serialization import _weights_only_globals
    return _weights_only_globals()


_NJT_NAMES = ("torch.nested._internal.nested_tensor.NestedTensor",
              "torch.nested._internal.nested_tensor._rebuild_njt",
              "torch._dynamo.decorators._DimRange")
_DTENSOR_NAMES = ("torch.distributed.device_mesh.DeviceMesh",
                  "torch.distributed.tensor._dtensor_spec.DTensorSpec",
                  "torch.distributed.tensor._dtensor_spec.TensorMeta",
                  "torch.distributed.tensor.DTensor",
                  "torch.distributed.tensor.placement_types.Partial",
                  "torch.distributed.tensor.placement_types.Replicate",
                  "torch.distributed.tensor.placement_types.Shard")


def _unsupported_global_message(full_path: str) -> str:
    # torch names builtins without their module (``exec``, not ``builtins.exec``)
    if full_path.startswith("builtins"):
        rest = full_path[len("builtins"):]
        full_path = rest[1:] if rest.startswith(".") else "builtins" + rest
    return (f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
            f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist "
            "this global if you trust this class/function.")


# Python 2 names that protocol-2 pickles may carry, and their Python 3 homes (torch's short
# list, narrower than ``_compat_pickle``'s: names outside it are reported as written)
IMPORT_MAPPING = {
    "__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
    "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections",
    "UserString": "collections", "whichdb": "dbm", "StringIO": "io", "cStringIO": "io",
}
NAME_MAPPING = {
    ("__builtin__", "xrange"): ("builtins", "range"),
    ("__builtin__", "reduce"): ("functools", "reduce"),
    ("__builtin__", "intern"): ("sys", "intern"),
    ("__builtin__", "unichr"): ("builtins", "chr"),
    ("__builtin__", "unicode"): ("builtins", "str"),
    ("__builtin__", "long"): ("builtins", "int"),
    ("itertools", "izip"): ("builtins", "zip"),
    ("itertools", "imap"): ("builtins", "map"),
    ("itertools", "ifilter"): ("builtins", "filter"),
    ("itertools", "ifilterfalse"): ("itertools", "filterfalse"),
    ("itertools", "izip_longest"): ("itertools", "zip_longest"),
    ("UserDict", "IterableUserDict"): ("collections", "UserDict"),
    ("UserList", "UserList"): ("collections", "UserList"),
    ("UserString", "UserString"): ("collections", "UserString"),
    ("__builtin__", "basestring"): ("builtins", "str"),
    ("exceptions", "StandardError"): ("builtins", "Exception"),
    ("UserDict", "UserDict"): ("collections", "UserDict"),
}


def map_global(module: str, name: str) -> tuple[str, str]:
    if (module, name) in NAME_MAPPING:
        return NAME_MAPPING[(module, name)]
    return IMPORT_MAPPING.get(module, module), name


def _read_global(readline) -> tuple[str, str]:
    module = readline()[:-1].decode("utf-8")
    name = readline()[:-1].decode("utf-8")
    return map_global(module, name)


class Unpickler:
    """Reads one pickle from ``file`` building only allow-listed objects."""

    def __init__(self, file, *, encoding: str = "bytes"):
        self.encoding = encoding
        self.read = file.read
        self.readline = file.readline
        self.memo: dict[int, Any] = {}
        self.proto = -1

    def persistent_load(self, pid):
        raise UnpicklingError("unsupported persistent id encountered")

    def load(self):
        from .frontend.tensor import Tensor
        from .nn.parameter import Parameter
        allowed = allowed_globals()
        user = user_allowed_globals()
        # by identity (``allowed`` and ``user`` keep the objects alive, so ids are stable)
        allowed_ids = {id(v) for v in allowed.values()} | {id(v) for v in user.values()}

        def is_allowed(obj) -> bool:
            return id(obj) in allowed_ids

        read, readline = self.read, self.readline
        self.metastack: list = []
        stack: list = []
        self.stack = stack
        memo = self.memo
        while True:
            key = read(1)
            if not key:
                raise EOFError
            op = key[0]
            if op == 0x63:                                   # GLOBAL
                module, name = _read_global(readline)
                full_path = f"{module}.{name}"
                if module in _BLOCKED_MODULES:
                    raise UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} "
                                          f"whose module {module} is blocked.")
                if full_path in allowed:
                    self.stack.append(allowed[full_path])
                elif full_path in user:
                    self.stack.append(user[full_path])
                elif full_path in _NJT_NAMES:
                    raise UnpicklingError("``torch.nested`` and ``torch._dynamo`` must be "
                                          "imported to load nested jagged tensors (NJTs)")
                elif full_path in _DTENSOR_NAMES:
                    raise UnpicklingError(
                        "``torch.distributed.tensor`` must be imported to load DTensors")
                else:
                    raise UnpicklingError(_unsupported_global_message(full_path))
            elif op == 0x81:                                 # NEWOBJ
                args = self.stack.pop()
                cls = self.stack.pop()
                if cls is Parameter:
                    self.stack.append(Parameter(*args))
                elif is_allowed(cls):
                    self.stack.append(cls.__new__(cls, *args))
                else:
                    raise UnpicklingError(
                        "Can only create new object for nn.Parameter or classes allowlisted "
                        f"via `add_safe_globals` but got {cls}")
            elif op == 0x52:                                 # REDUCE
                args = self.stack.pop()
                func = self.stack[-1]
                if not is_allowed(func):
                    msg = f"Trying to call reduce for unrecognized function {func}"
                    if hasattr(func, "__self__"):
                        msg += f" which belongs to {func.__self__}"
                    raise UnpicklingError(msg)
                self.stack[-1] = func(*args)
            elif op == 0x62:                                 # BUILD
                state = self.stack.pop()
                inst = self.stack[-1]
                kind = type(inst)
                if kind is Tensor:
                    inst.set_(*state)
                elif kind is Parameter:
                    inst.__setstate__(state)
                elif kind is OrderedDict:
                    inst.__dict__.update(state)
                elif is_allowed(kind):
                    if hasattr(inst, "__setstate__"):
                        inst.__setstate__(state)
                    else:
                        slotstate = None
                        if isinstance(state, tuple) and len(state) == 2:
                            state, slotstate = state
                        if state:
                            inst.__dict__.update(state)
                        if slotstate:
                            for k, v in slotstate.items():
                                setattr(inst, k, v)
                else:
                    raise UnpicklingError(
                        "Can only build Tensor, Parameter, OrderedDict or types allowlisted "
                        f"via `add_safe_globals`, but got {kind}")
            elif op == 0x61:                                 # APPEND
                item = self.stack.pop()
                target = self.stack[-1]
                if type(target) is not list:
                    raise UnpicklingError(f"Can only append to lists, but got {type(target)}")
                target.append(item)
            elif op == 0x65:                                 # APPENDS
                items = self._pop_mark()
                target = self.stack[-1]
                if type(target) is not list:
                    raise UnpicklingError(f"Can only extend lists, but got {type(target)}")
                target.extend(items)
            elif op == 0x73:                                 # SETITEM
                value, k = self.stack.pop(), self.stack.pop()
                self._check_mapping("SETITEM")
                self.stack[-1][k] = value
            elif op == 0x75:                                 # SETITEMS
                items = self._pop_mark()
                self._check_mapping("SETITEMS")
                target = self.stack[-1]
                for i in range(0, len(items), 2):
                    target[items[i]] = items[i + 1]
            elif op == 0x28:                                 # MARK
                self.metastack.append(self.stack)
                self.stack = []
            elif op == 0x74:                                 # TUPLE
                items = tuple(self._pop_mark())
                self.stack.append(items)
            elif op == 0x85:                                 # TUPLE1
                self.stack[-1] = (self.stack[-1],)
            elif op == 0x86:                                 # TUPLE2
                self.stack[-2:] = [(self.stack[-2], self.stack[-1])]
            elif op == 0x87:                                 # TUPLE3
                self.stack[-3:] = [(self.stack[-3], self.stack[-2], self.stack[-1])]
            elif op == 0x4E:                                 # NONE
                self.stack.append(None)
            elif op == 0x89:                                 # NEWFALSE
                self.stack.append(False)
            elif op == 0x88:                                 # NEWTRUE
                self.stack.append(True)
            elif op == 0x29:                                 # EMPTY_TUPLE
                self.stack.append(())
            elif op == 0x5D:                                 # EMPTY_LIST
                self.stack.append([])
            elif op == 0x7D:                                 # EMPTY_DICT
                self.stack.append({})
            elif op == 0x8F:                                 # EMPTY_SET
                self.stack.append(set())
            elif op == 0x4A:                                 # BININT
                self.stack.append(unpack("<i", read(4))[0])
            elif op == 0x4B:                                 # BININT1
                self.stack.append(read(1)[0])
            elif op == 0x4D:                                 # BININT2
                self.stack.append(unpack("<H", read(2))[0])
            elif op == 0x47:                                 # BINFLOAT
                self.stack.append(unpack(">d", read(8))[0])
            elif op == 0x58:                                 # BINUNICODE
                n = unpack("<I", read(4))[0]
                if n > maxsize:
                    raise UnpicklingError("String is too long")
                self.stack.append(str(read(n), "utf-8", "surrogatepass"))
            elif op == 0x55:                                 # SHORT_BINSTRING
                n = read(1)[0]
                data = read(n)
                if self.encoding != "bytes":
                    data = data.decode(self.encoding, "strict")
                self.stack.append(data)
            elif op == 0x51:                                 # BINPERSID
                pid = self.stack.pop()
                if type(pid) is not tuple and type(pid) is not int:
                    raise UnpicklingError(
                        f"persistent_load id must be tuple or int, but got {type(pid)}")
                if type(pid) is tuple and len(pid) > 0:
                    tag = pid[0].decode("ascii") if isinstance(pid[0], bytes) else pid[0]
                    if tag != "storage":
                        raise UnpicklingError("Only persistent_load of storage is allowed, "
                                              f"but got {type(pid[0])}")
                self.stack.append(self.persistent_load(pid))
            elif op == 0x68:                                 # BINGET
                self.stack.append(memo[read(1)[0]])
            elif op == 0x6A:                                 # LONG_BINGET
                self.stack.append(memo[unpack("<I", read(4))[0]])
            elif op == 0x71:                                 # BINPUT
                memo[read(1)[0]] = self.stack[-1]
            elif op == 0x72:                                 # LONG_BINPUT
                i = unpack("<I", read(4))[0]
                if i < 0:
                    raise ValueError("negative argument")
                memo[i] = self.stack[-1]
            elif op == 0x8A:                                 # LONG1
                n = read(1)[0]
                self.stack.append(decode_long(read(n)))
            elif op == 0x80:                                 # PROTO
                self.proto = read(1)[0]
                if self.proto != 2:
                    warnings.warn(
                        f"Detected pickle protocol {self.proto} in the checkpoint, which was "
                        "not the default pickle protocol used by `torch.load` (2). The "
                        "weights_only Unpickler might not support all instructions "
                        "implemented by this protocol, please file an issue for adding "
                        "support if you encounter this.", stacklevel=2)
            elif op == 0x2E:                                 # STOP
                return self.stack.pop()
            else:
                raise UnpicklingError(f"Unsupported operand {op}")

    def _pop_mark(self) -> list:
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _check_mapping(self, opcode: str) -> None:
        if type(self.stack[-1]) not in (dict, OrderedDict, Counter):
            raise UnpicklingError(
                f"Can only {opcode} for dict, collections.OrderedDict, "
                f"collections.Counter, but got {type(self.stack[-1])}")


def load(file, *, encoding: str = "ASCII"):
    return Unpickler(file, encoding=encoding).load()
