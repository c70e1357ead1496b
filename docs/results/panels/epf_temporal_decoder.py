"""An experiment on EPF's validation rows (issue 51, item 3 (c)): the future-known covariates read
on the horizon's side *non-linearly*, by a per-step MLP after the linear head (TiDE's temporal
decoder, Das et al. 2023, section 4.1).

Today a forecast step reads the future-known covariates through the linear ``future_map`` only,
so the network's answer to tomorrow's load is a straight line, whatever the state of the market;
prices follow the merit order, a convex curve of the load. Here, after the head and
``future_map``, every horizon step ``h`` gets ``out[h] += mlp([out[h], fut[h], g[h], mean,
log std])``: ``fut[h]`` the future-known covariates' row of that step, ``g[h]`` four numbers of a
linear map of the trunk's flattened tokens for that step, ``mean`` and ``log std`` the target
context's instance statistics (its level and swing), one MLP shared by the steps (hidden 64,
GELU, dropout as the trunk's), its last layer zero-initialised so training starts from today's
network. Everything else (patches, the LEAR anchor, the blend) is ``TSForecaster``'s. Built here,
outside the library, by replacing :class:`tsattn.nn.covariates.CovariateForecaster` for one run of
``epf_val.py`` (same arguments):

    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python3 docs/results/panels/epf_temporal_decoder.py NP future '{"calendar": true}'
"""

import runpy
import sys
from pathlib import Path

import torch
from torch import nn

import tsattn.nn.covariates as cov
from tsattn.nn.covariates import EPS, CovariateForecaster

#: Per-step numbers from the trunk, and the MLP's width.
STEP_FEATURES, HIDDEN = 4, 64


class TemporalDecoder(CovariateForecaster):
    """:class:`CovariateForecaster` with a per-step MLP on the horizon's side."""

    def __init__(self, context_length, horizon, *, n_covariates, future, patch_len, anchor, **trunk):
        super().__init__(context_length, horizon, n_covariates=n_covariates, future=future,
                         patch_len=patch_len, anchor=anchor, **trunk)  # fmt: skip
        n_tokens = self.tokenizer.n_tokens(self.context_length)
        self.step_map = nn.Linear(n_tokens * self.d_model, self.horizon * STEP_FEATURES)
        width = 1 + len(self.future) + STEP_FEATURES + 2
        self.decoder = nn.Sequential(nn.Linear(width, HIDDEN), nn.GELU(),
                                     nn.Dropout(self.dropout_rate), nn.Linear(HIDDEN, 1))  # fmt: skip
        nn.init.zeros_(self.decoder[-1].weight)
        nn.init.zeros_(self.decoder[-1].bias)

    def forward(self, x, mask=None, parts=False):
        """``x (B, L + H, 1 + k)`` -> ``(B, H, 1)``."""
        n, b = self.context_length, x.shape[0]
        target, past = x[:, :n, :1], x[:, :n, 1:]
        mean = target.mean(dim=1, keepdim=True)
        std = torch.sqrt(target.var(dim=1, keepdim=True) + EPS)
        h, _, _ = self.encode(torch.cat([(target - mean) / std, past], dim=2))
        out = self.head(h)  # (B, H, 1)
        fut = x[:, n:, 1:][:, :, list(self.future)]  # (B, H, f)
        if self.future_map is not None:
            out = out + self.future_map(fut.reshape(b, -1))[..., None]
        steps = self.step_map(h.reshape(b, -1)).reshape(b, self.horizon, STEP_FEATURES)
        stats = torch.cat([mean, torch.log(std)], dim=2).expand(b, self.horizon, 2)
        out = out + self.decoder(torch.cat([out, fut, steps, stats], dim=2))
        out = out * std + mean
        simple = None if self.anchor is None else self.anchor(x)
        blended = out if simple is None else self.blend * out + (1 - self.blend) * simple
        return (blended, out, simple) if parts else blended


cov.CovariateForecaster = TemporalDecoder  # the estimator imports it from here when it builds one
script = Path(__file__).with_name("epf_val.py")
sys.argv = [str(script), *sys.argv[1:]]
runpy.run_path(str(script), run_name="__main__")
