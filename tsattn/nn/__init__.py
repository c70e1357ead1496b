"""Networks: the encoder trunk (tokeniser, positions, encoder layers) and the heads built on it."""

from tsattn.nn.encoder import EncoderLayer, TransformerEncoder
from tsattn.nn.forecasting import ForecastingTransformer
from tsattn.nn.heads import FlattenHead, PoolingHead
from tsattn.nn.network import TSTransformer
from tsattn.nn.tokenizers import ConvTokenizer, PatchTokenizer, RocketTokenizer, StepTokenizer
from tsattn.nn.trunk import EncoderTrunk

__all__ = [
    "EncoderLayer",
    "TransformerEncoder",
    "EncoderTrunk",
    "StepTokenizer",
    "PatchTokenizer",
    "ConvTokenizer",
    "RocketTokenizer",
    "FlattenHead",
    "PoolingHead",
    "TSTransformer",
    "ForecastingTransformer",
]
