"""Efficiency profiling and head-diversity analysis of attention variants.

Importing this package registers FLOP formulas for CPU scaled-dot-product attention
(:mod:`tsattn.analysis.flops`).
"""

from tsattn.analysis.diversity import (
    attention_maps,
    estimator_head_diversity,
    head_diversity,
    maps_diversity,
)
from tsattn.analysis.flops import count_flops, register_cpu_sdpa_flops
from tsattn.analysis.memory import peak_memory, saved_tensor_bytes
from tsattn.analysis.profile import (
    ExplicitSoftmaxAttention,
    growth_exponents,
    plot_ratios,
    profile_attention,
)

__all__ = [
    "profile_attention",
    "growth_exponents",
    "plot_ratios",
    "ExplicitSoftmaxAttention",
    "head_diversity",
    "maps_diversity",
    "estimator_head_diversity",
    "attention_maps",
    "count_flops",
    "register_cpu_sdpa_flops",
    "peak_memory",
    "saved_tensor_bytes",
]
