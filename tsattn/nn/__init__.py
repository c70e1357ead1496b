"""Network building blocks shared by every estimator."""

from tsattn.layers import MaskedBatchNorm1d
from tsattn.nn.encoder import EncoderLayer, TransformerEncoder
from tsattn.nn.heads import FlattenHead, PoolingHead
from tsattn.nn.network import TSTransformer

__all__ = [
    "EncoderLayer",
    "MaskedBatchNorm1d",
    "TransformerEncoder",
    "FlattenHead",
    "PoolingHead",
    "TSTransformer",
]
