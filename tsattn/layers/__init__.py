"""Leaf layers: the building blocks that import nothing else from tsattn.

They sit below :mod:`tsattn.attention` (``s3`` uses the dropout and the masked BatchNorm) and
:mod:`tsattn.nn`, so every import in the package points down.
"""

from tsattn.layers.dropout import Dropout, random_bytes
from tsattn.layers.norm import MaskedBatchNorm1d
from tsattn.layers.positions import SinusoidalPositionalEncoding

__all__ = ["Dropout", "random_bytes", "MaskedBatchNorm1d", "SinusoidalPositionalEncoding"]
