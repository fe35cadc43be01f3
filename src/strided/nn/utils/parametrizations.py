"""torch.nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal, as
parametrizations (nn.utils.parametrize) of a module's tensor.

- ``weight_norm``: ``weight = g * v / ||v||`` (norms over every dim but ``dim``), with
  ``original0 = g`` and ``original1 = v``; computed by ``_weight_norm`` (one
  ``WeightNormInterfaceBackward0`` node for the first or last dim).
- ``spectral_norm``: ``weight / sigma`` with sigma estimated by power iteration on the
  weight viewed as a matrix (dim ``dim`` first); the vectors ``_u`` / ``_v`` are buffers,
  drawn from ``normal_`` at registration and refined in place on every training-mode
  access (15 iterations at registration), exactly as torch does, so the same seed gives
  the same ``u``, ``v`` and weights.
- ``orthogonal``: an orthogonal (unitary) matrix from an unconstrained one, through the
  matrix exponential or the Cayley map of a skew-symmetric matrix, or a product of
  Householder reflectors; with ``use_trivialization`` the result is multiplied by a
  ``base`` buffer set on assignment.
"""

from __future__ import annotations

from enum import Enum, auto

import strided as _st

from ...frontend.tensor import Tensor
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# -- orthogonal ---------------------------------------------------------------------------------

def _is_orthogonal(Q, eps=None):
    n, k = Q.size(-2), Q.size(-1)
    Id = _st.eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * _st.finfo(Q.dtype).eps
    return _st.allclose(Q.mH @ Q, Id, atol=eps)


def _make_orthogonal(A):
    """Q of A's QR factorisation with R's diagonal made positive."""
    X, tau = _st.geqrf(A)
    Q = _st.linalg.householder_product(X, tau)
    # X's diagonal is R's (real): fold its signs into Q's columns
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map: _OrthMaps, *, use_trivialization=True) -> None:
        super().__init__()
        # Householder reflectors cannot parametrize the unitary matrices (too few real
        # parameters, and tau cannot be recovered from them)
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        # X is tall (n >= k) from here
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            # only the lower triangle counts: n*k - k(k-1)/2 parameters
            X = X.tril()
            if n != k:
                X = _st.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH     # skew-symmetric (skew-Hermitian)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = _st.matrix_exp(A)
            else:
                # Cayley retraction (I + A/2)(I - A/2)^{-1}
                Id = _st.eye(n, dtype=A.dtype, device=A.device)
                Q = _st.linalg.solve(_st.add(Id, A, alpha=-0.5), _st.add(Id, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _st.linalg.householder_product(A, tau)
            # X's diagonal holds +-1: the sign of each column (not differentiated)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with _st.no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. "
                f"Got a tensor of shape {Q.shape}."
            )
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential "
                    "or the Cayley parametrizations when use_trivialization=False."
                )
            # Householder: the reflectors of Q's QR with R's diagonal positive
            A, tau = _st.geqrf(Q)
            A.diagonal(dim1=-2, dim2=-1).sign_()
            # LAPACK gives tau == 0 exactly where it skips a reflection
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            # complete Q to a square orthogonal matrix with random columns
            N = _st.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(_st.cat([Q, N], dim=-1))
        self.base = Q
        # -Id: householder(zeros) is then eye
        neg_Id = _st.zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Constrain ``module.<name>`` (a matrix or a batch of them) to be orthogonal/unitary.
    ``orthogonal_map``: "matrix_exp" (default for square or complex), "cayley" or
    "householder" (default otherwise)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            "Expected a matrix or batch of matrices. "
            f"Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# -- weight_norm --------------------------------------------------------------------------------

class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _st._weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _st.norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int = 0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (``original0`` = g, the norms
    over every dim but ``dim``; ``original1`` = v); ``dim=None`` takes one norm of the
    whole tensor. State dicts of the old hook-based form (``<name>_g`` / ``<name>_v``)
    still load."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs) -> None:
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# -- spectral_norm ------------------------------------------------------------------------------

class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but "
                f"got n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            # (a vector is normalised exactly in forward: nothing to estimate)
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from good singular vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(
                f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations: int) -> None:
        # u and v are updated in place (out=): replicas sharing the buffers see the
        # update; forward clones them before use so that two forwards can backprop
        if weight_mat.ndim <= 1:
            raise AssertionError(
                f"Expected weight_mat to have more than 1 dimension, got {weight_mat.ndim}")
        with _st.no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(_st.mv(weight_mat, self._v), dim=0, eps=self.eps,
                                      out=self._u)
                self._v = F.normalize(_st.mv(weight_mat.H, self._u), dim=0, eps=self.eps,
                                      out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone(memory_format=_st.contiguous_format)
        v = self._v.clone(memory_format=_st.contiguous_format)
        sigma = _st.vdot(u, _st.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by its spectral norm (largest singular value of the
    weight as a matrix with ``dim`` first; ``dim`` defaults to 1 for ConvTranspose
    layers, else 0), estimated by ``n_power_iterations`` steps per training access."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from .. import modules as _m
        transposed = tuple(getattr(_m, n) for n in
                           ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
                           if hasattr(_m, n))
        dim = 1 if transposed and isinstance(module, transposed) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
