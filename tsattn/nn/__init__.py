"""Network building blocks shared by every estimator."""

from tsattn.nn.encoder import EncoderLayer, MaskedBatchNorm1d, TransformerEncoder
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
