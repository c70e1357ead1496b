"""The forecasting network: instance normalisation, a token view, the encoder trunk, a head, the
covariate adapter, and the anchor it is blended with.

Follows Algorithms 3-4 of S3Attention (paper 002): each input window is normalised by its own mean
and ``sqrt(var + 1e-5)`` over time (``1`` in Algorithm 3; :func:`instance_norm`, RevIN's), cut into
tokens by the registered token view (:mod:`.patch`, :mod:`.variate`), encoded by the shared trunk
(:class:`~tsattn.nn.trunk.EncoderTrunk`) with any registered attention, mapped to the horizon by
the registered head (:mod:`.linear`, :mod:`.fourier`) and de-normalised. With covariates the
target's context is normalised alone, the covariates ride beside it into the tokens, and the
covariate adapter (:mod:`.covariates`) adds what their horizon rows say. The input path is this
module's :meth:`ForecastingTransformer.forward`, in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from tsattn.nn.forecasting.anchor import Blended, LinearAnchor
from tsattn.nn.forecasting.covariates import CovariateInput
from tsattn.nn.forecasting.registry import check_combination, get_head, get_view
from tsattn.nn.trunk import EncoderTrunk

__all__ = ["INSTANCE_NORM_EPS", "ForecastingTransformer", "instance_norm"]

#: Added to each window's variance by the instance norm: RevIN's. Algorithm 3 of 002 adds 1, a
#: floor that leaves flat windows unscaled; on validation 1.028 of this one's MSE over 9 pairs
#: (``docs/results/forecast/zoo/``, ``eps1``).
INSTANCE_NORM_EPS = 1e-5


def instance_norm(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """RevIN: ``x (B, L, C)`` -> ``((x - mean) / std, mean, std)``, ``mean`` and ``std =
    sqrt(var + INSTANCE_NORM_EPS)`` ``(B, 1, C)`` over time (the unbiased variance, as
    Algorithm 3)."""
    std = torch.sqrt(x.var(dim=1, keepdim=True) + INSTANCE_NORM_EPS)
    mean = x.mean(dim=1, keepdim=True)
    return (x - mean) / std, mean, std


class ForecastingTransformer(Blended, EncoderTrunk):
    """Window ``(B, context_length, n_channels)`` -> forecast ``(B, horizon, n_channels)``.

    Each window is normalised by its mean and ``sqrt(var + INSTANCE_NORM_EPS)`` over time (RevIN)
    and the forecast de-normalised.

    Parameters
    ----------
    n_channels, context_length, horizon : data sizes.
    head : a registered head (:func:`~tsattn.nn.forecasting.list_heads`: ``"linear"``, the
        encoded tokens mapped linearly to the horizon; ``"fourier"``, decoded to the window's steps
        and extrapolated by their lowest harmonics, Algorithm 4 of 002).
    head_params : the head's hyperparameters (its declarations: ``{"n_harm": 8}`` for the
        Fourier head); those left out take their declared defaults.
    tokens : a registered token view (:func:`~tsattn.nn.forecasting.list_views`: ``"patch"``,
        patches of ``patch_len`` steps, PatchTST; ``"variate"``, a token per channel, iTransformer).
    channel_independent : patch tokens: encode every channel as its own univariate series with
        shared weights (the batch becomes ``B * n_channels`` series of one channel); otherwise one
        token holds every channel of its steps.
    patch_len : steps per patch token; ``1`` is one token per time step as in 002.
    patch_stride : steps between the starts of two patches; None or ``patch_len``: side by side;
        below ``patch_len``, overlapping (PatchTST's patch 16 stride 8), the linear head only.
    anchor : add a :class:`~tsattn.nn.forecasting.LinearAnchor` on the raw window; the output is
        then ``blend * network + (1 - blend) * anchor`` with ``blend`` a buffer (1 until
        :meth:`set_blend`, so training sees the network alone).
    anchor_period : steps per season of the anchor's seasonal profile (1: none).
    covariates : None, or ``{"n_covariates": k, "future": [...], "decoder": bool}``
        (:class:`~tsattn.nn.forecasting.covariates.CovariateInput`'s parameters): a sample is then
        one target channel packed with ``k`` covariates, ``x (B, context_length + horizon, 1 +
        k)`` (``n_channels`` 1), the covariates ride in the tokens beside the target (a view that
        gives ``"covariates"``), the adapter adds the horizon's covariates, and the anchor is the
        LEAR-style :class:`~tsattn.nn.forecasting.covariates.CovariateAnchor`.
    **trunk : the trunk's parameters (:class:`~tsattn.nn.trunk.EncoderTrunk`), every one given
        (the estimator declares the defaults). A length-dependent attention hyperparameter left
        None (``s3``'s ``max_len``) covers exactly the tokens of a window.

    Which heads and views combine is :func:`~tsattn.nn.forecasting.check_combination`'s, the
    check the estimator makes too. The estimator hands the fitted parts down through
    :meth:`set_anchor` and :meth:`set_blend`; nothing is read back from here to decide anything.
    """

    def __init__(
        self,
        n_channels: int,
        context_length: int,
        horizon: int,
        *,
        head: str,
        channel_independent: bool,
        patch_len: int,
        anchor: bool,
        head_params: dict[str, Any] | None = None,
        tokens: str = "patch",
        anchor_period: int = 1,
        patch_stride: int | None = None,
        covariates: Mapping[str, Any] | None = None,
        **trunk: Any,
    ) -> None:
        k = 0 if covariates is None else int(covariates["n_covariates"])
        options = dict(context_length=context_length, patch_len=patch_len,
                       patch_stride=patch_stride, channel_independent=channel_independent)  # fmt: skip
        check_combination(head, tokens, covariates=bool(k), **options)
        view = get_view(tokens)(n_channels, covariates=k, **options)
        super().__init__(view.tokenizer(), max_len=context_length, **trunk)
        self.view = view
        self.layout = view.layout(self.tokenizer, self.d_model)
        self.n_tokens = self.layout.n_tokens
        self.n_channels, self.context_length, self.horizon = n_channels, context_length, horizon
        self.head = get_head(head)(self.layout, horizon, self.dropout_rate, **(head_params or {}))
        self.covariates = None
        if k:
            self.covariates = CovariateInput(
                context_length, horizon, n_covariates=k, future=tuple(covariates["future"]),
                decoder=bool(covariates.get("decoder", False)),
                encoded=self.n_tokens * self.d_model, dropout=self.dropout_rate)  # fmt: skip
        self.anchor = None
        if anchor:
            self.anchor = (LinearAnchor(context_length, horizon, n_channels, anchor_period)
                           if self.covariates is None else self.covariates.anchor())  # fmt: skip
        self.register_buffer("blend", torch.ones(()))

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs) -> None:
        # models saved by tsattn 0.1.0 hold the Fourier head's projection on the network itself,
        # and covariate networks before issue 76 their adapter's parts
        for old, new in (("output_projection.", "head.output_projection."),
                         ("future_map.", "covariates.future_map."),
                         ("decoder.", "covariates.decoder.")):  # fmt: skip
            for key in [k for k in state_dict if k.startswith(prefix + old)]:
                state_dict[prefix + new + key[len(prefix + old):]] = state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None,
                parts: bool = False) -> torch.Tensor | tuple[torch.Tensor, ...]:  # fmt: skip
        """``x (B, n, C)`` -> ``(B, horizon, C)``, or with covariates packed windows ``(B, n +
        horizon, 1 + k)`` -> ``(B, horizon, 1)``; windows are complete, so ``mask`` must be None.
        ``parts``: also the network's forecast alone and the anchor's (None without an anchor),
        ``(forecast, network, anchor)``."""
        if mask is not None:
            raise ValueError("forecasting windows have no padding; mask must be None.")
        if self.covariates is None:
            samples, mean, std = instance_norm(x)
        else:  # the target's context normalised alone, the covariates' context rows beside it
            context = x[:, : self.context_length]
            samples, mean, std = instance_norm(context[..., :1])
            samples = torch.cat([samples, context[..., 1:]], dim=2)
        h, _, _ = self.encode(self.view.samples(samples))
        out = self.view.series(self.head(h), x.shape[0])
        if self.covariates is not None:
            out = self.covariates(out[..., :1], x, h, mean, std)
        return self.blended(x, out * std + mean, parts)
