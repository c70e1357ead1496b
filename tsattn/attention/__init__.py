"""Attention variants, by name.

>>> from tsattn.attention import build_attention, list_attention
>>> attn = build_attention("bn_sh", d_model=64, n_heads=8, beta=0.6)

Importing this package registers every variant module listed below (an explicit list, one line per
variant file).
"""

from tsattn.attention import functional
from tsattn.attention.registry import (
    all_hyperparameters,
    attention_hyperparameters,
    build_attention,
    get_attention_class,
    list_attention,
    register_attention,
)

# Variant modules: importing registers them (one line per variant file, in this order).
# isort: off
from tsattn.attention import softmax, batch_norm, scaled_heads  # noqa: E402,F401,I001
from tsattn.attention import linear  # noqa: E402,F401
from tsattn.attention import sparse  # noqa: E402,F401
from tsattn.attention import conv1d  # noqa: E402,F401
from tsattn.attention import mrs  # noqa: E402,F401
from tsattn.attention import long_short  # noqa: E402,F401
from tsattn.attention import s3  # noqa: E402,F401
# isort: on

__all__ = [
    "functional",
    "build_attention",
    "list_attention",
    "get_attention_class",
    "attention_hyperparameters",
    "all_hyperparameters",
    "register_attention",
]
