"""Attention variants, by name.

>>> from tsattn.attention import build_attention, list_attention
>>> attn = build_attention("bn_sh", d_model=64, n_heads=8, beta=0.6)

Importing this package registers every variant module listed below (an explicit list, one name per
variant file).
"""

from tsattn.attention import (  # noqa: F401 - importing a variant file registers its variants
    batch_norm,
    conv1d,
    functional,
    linear,
    long_short,
    mrs,
    s3,
    scaled_heads,
    softmax,
    sparse,
    weights,
)
from tsattn.attention.hyperparameters import Choice, FloatRange, HyperParameter
from tsattn.attention.registry import (
    AttentionSpec,
    all_hyperparameters,
    attention_hyperparameters,
    build_attention,
    check_model_size,
    choosing_table,
    get_attention_class,
    hyperparameter_declarations,
    list_attention,
    register_attention,
    resolve_attention,
    variants_table,
)

__all__ = [
    "AttentionSpec",
    "Choice",
    "FloatRange",
    "HyperParameter",
    "hyperparameter_declarations",
    "resolve_attention",
    "variants_table",
    "choosing_table",
    "functional",
    "weights",
    "build_attention",
    "check_model_size",
    "list_attention",
    "get_attention_class",
    "attention_hyperparameters",
    "all_hyperparameters",
    "register_attention",
]
