"""torch.nn.utils.stateless: call a module with other tensors in place of its own.

``functional_call(module, {"weight": w}, x)`` swaps ``w`` in for the module's
``weight`` (any parameter, buffer or tensor attribute, by dotted name), runs
``module(x)`` and swaps the originals back, even when the call raises. With
``tie_weights`` a tensor registered under several names (tied weights) is replaced
under all of them when one is given.
"""

from __future__ import annotations

import contextlib
import warnings

from ._named_member_accessor import NamedMemberAccessor

__all__ = ["functional_call"]


def _untie_named_tensors_map(module, parameters_and_buffers: dict) -> dict:
    """Extend the given map to every name of a tied tensor one of whose names is given."""
    everything: dict = {}
    everything.update(module.named_parameters(remove_duplicate=False))
    everything.update(module.named_buffers(remove_duplicate=False))
    names_of: dict = {}
    for name, tensor in everything.items():
        names_of.setdefault(tensor, set()).add(name)
    tied: dict = {}
    for names in names_of.values():
        if len(names) > 1:
            for name in names:
                tied[name] = names
    given = set(parameters_and_buffers)
    given_tied = {name for name in given if name in tied}
    for name in given_tied:
        names = tied[name]
        if len(names & given_tied) > 1 and len(
                {parameters_and_buffers[n] for n in names & given_tied}) != 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, "
                f"which are tied. Consider using tie_weights=False"
            )
    untied = parameters_and_buffers.copy()
    for name in given_tied:
        for other in tied[name]:
            untied[other] = parameters_and_buffers[name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers: dict, tie_weights: bool = False,
                          strict: bool = False, stack_weights: bool = False):
    if tie_weights:
        untied = _untie_named_tensors_map(module, parameters_and_buffers)
    else:
        untied = parameters_and_buffers
    accessor = NamedMemberAccessor(module)
    if strict:
        missing, unexpected = accessor.check_keys(untied)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msgs)))
    originals: dict = {}
    try:
        originals, _ = accessor.swap_tensors_dict(untied, allow_missing=True)
        yield
    finally:
        if stack_weights:
            originals = dict(reversed(originals.items()))
        current, _ = accessor.swap_tensors_dict(originals, allow_missing=True)
        # a module that assigned to its own tensors during the call: give the caller's
        # dict the tensors it ended with
        parameters_and_buffers.update(
            {k: current[k] for k in parameters_and_buffers if k in current})


def functional_call(module, parameters_and_buffers: dict, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """Deprecated alias of ``strided.func.functional_call`` (one dict only)."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
        "and will be removed in a future version of PyTorch. "
        "Please use `torch.func.functional_call` instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)


def _functional_call(module, parameters_and_buffers: dict, args=None, kwargs=None, *,
                     tie_weights: bool = True, strict: bool = False):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights,
                               strict=strict):
        return module(*args, **kwargs)
