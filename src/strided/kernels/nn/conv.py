"""Kernels: convolution (windows + one matmul), im2col/col2im."""

from __future__ import annotations
