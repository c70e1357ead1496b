"""An experiment on EPF's validation rows (issue 51, item 3 (c)): the future-known covariates read
on the horizon's side as *horizon tokens*, not only through the linear head.

The network's tokens cover the context and the horizon (``context_length + horizon`` steps): the
target's horizon rows are zero, the future-known covariates' horizon rows are their values (the
past-only ones zero), and a 0/1 column marks the horizon's rows; the head reads every token.
Everything else (the patch length, the zero-initialised ``future_map``, the LEAR anchor and the
blend) is ``TSForecaster``'s. Built here, outside the library, by replacing
:class:`tsattn.nn.covariates.CovariateForecaster` for one run of ``epf_val.py`` (same arguments):

    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python3 docs/results/panels/epf_horizon_tokens.py NP future '{"calendar": true}'
"""

import runpy
import sys
from pathlib import Path

import torch

import tsattn.nn.covariates as cov
from tsattn.nn.covariates import EPS, CovariateAnchor, CovariateForecaster


class HorizonTokens(CovariateForecaster):
    """:class:`CovariateForecaster` whose tokens span the context and the horizon."""

    def __init__(self, context_length, horizon, *, n_covariates, future, patch_len, anchor, **trunk):
        # one more input column (the horizon flag); tokens over context + horizon steps
        super().__init__(context_length + horizon, horizon, n_covariates=n_covariates + 1,
                         future=future, patch_len=patch_len, anchor=False, **trunk)  # fmt: skip
        self.context_length, self.n_covariates = int(context_length), int(n_covariates)
        self.anchor = (CovariateAnchor(self.context_length, self.horizon, self.n_covariates, self.future)
                       if anchor else None)  # fmt: skip

    def forward(self, x, mask=None, parts=False):
        """``x (B, L + H, 1 + k)`` packed as for the library's network (the target's and the
        past-only covariates' horizon rows zero) -> ``(B, H, 1)``."""
        n, b = self.context_length, x.shape[0]
        target = x[:, :n, :1]
        mean = target.mean(dim=1, keepdim=True)
        std = torch.sqrt(target.var(dim=1, keepdim=True) + EPS)
        scaled = torch.cat([(target - mean) / std, x[:, n:, :1]], dim=1)  # horizon rows: zero
        flag = torch.cat([x.new_zeros(b, n, 1), x.new_ones(b, self.horizon, 1)], dim=1)
        h, _, _ = self.encode(torch.cat([scaled, x[:, :, 1:], flag], dim=2))
        out = self.head(h)
        if self.future_map is not None:
            fut = x[:, n:, 1:][:, :, list(self.future)].reshape(b, -1)
            out = out + self.future_map(fut)[..., None]
        out = out * std + mean
        simple = None if self.anchor is None else self.anchor(x)
        blended = out if simple is None else self.blend * out + (1 - self.blend) * simple
        return (blended, out, simple) if parts else blended


cov.CovariateForecaster = HorizonTokens  # the estimator imports it from here when it builds one
script = Path(__file__).with_name("epf_val.py")
sys.argv = [str(script), *sys.argv[1:]]
runpy.run_path(str(script), run_name="__main__")
