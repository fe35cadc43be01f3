"""torch.nn.functional: cosine_similarity, pairwise_distance, pdist.

torch exposes these as its top-level builtins (``F.pdist is torch.pdist``); so does
strided: the generated bindings of the aten operators.
"""

from __future__ import annotations

from ...ops._generated import torch_functions as _tf

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]

pdist = _tf.pdist
cosine_similarity = _tf.cosine_similarity
pairwise_distance = _tf.pairwise_distance
