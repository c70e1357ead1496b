"""The forecasting network and its registered parts.

- :mod:`.network`: :class:`ForecastingTransformer`, the input path (instance norm, token view,
  trunk, head, anchor blend) in one place.
- :mod:`.registry`: the heads and token views by name, what each needs and gives, and the check
  of which combine (with the recipe for a new head).
- heads, one file each: :mod:`.linear` (``"linear"``), :mod:`.fourier` (``"fourier"``, Algorithm 4
  of 002); token views: :mod:`.patch` (``"patch"``, PatchTST), :mod:`.variate` (``"variate"``,
  iTransformer).
- :mod:`.anchor`: the linear anchor and the seasonal profile it reads.
- :mod:`.covariates`: the covariate adapter (past and future-known covariates) and the LEAR-style
  anchor of a network with covariates.
"""

from tsattn.nn.forecasting.anchor import (
    LinearAnchor,
    anchor_forecast,
    seasonal_profile,
    window_phases,
)
from tsattn.nn.forecasting.covariates import (
    CovariateAnchor,
    CovariateInput,
    TemporalDecoder,
    anchor_features,
)
from tsattn.nn.forecasting.fourier import (
    FourierExtrapolation,
    FourierHead,
    fourier_extrapolate,
    lowest_frequency_indices,
)
from tsattn.nn.forecasting.linear import LinearHead
from tsattn.nn.forecasting.network import INSTANCE_NORM_EPS, ForecastingTransformer, instance_norm
from tsattn.nn.forecasting.patch import OverlappingPatchTokenizer, PatchView
from tsattn.nn.forecasting.registry import (
    CAPABILITIES,
    ForecastHead,
    TokenLayout,
    TokenView,
    check_combination,
    combinations,
    get_head,
    get_view,
    head_hyperparameters,
    list_heads,
    list_views,
    register_head,
    register_view,
)
from tsattn.nn.forecasting.variate import VariateTokenizer, VariateView

__all__ = [
    "CAPABILITIES",
    "CovariateAnchor",
    "CovariateInput",
    "INSTANCE_NORM_EPS",
    "ForecastHead",
    "ForecastingTransformer",
    "FourierExtrapolation",
    "FourierHead",
    "LinearAnchor",
    "LinearHead",
    "OverlappingPatchTokenizer",
    "PatchView",
    "TokenLayout",
    "TokenView",
    "VariateTokenizer",
    "VariateView",
    "TemporalDecoder",
    "anchor_features",
    "anchor_forecast",
    "check_combination",
    "combinations",
    "fourier_extrapolate",
    "get_head",
    "get_view",
    "head_hyperparameters",
    "instance_norm",
    "list_heads",
    "list_views",
    "lowest_frequency_indices",
    "register_head",
    "register_view",
    "seasonal_profile",
    "window_phases",
]
