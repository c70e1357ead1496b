"""An experiment on M4's validation rows (issue 51): the temporal decoder that EPF's covariate
network adopted (:class:`tsattn.nn.covariates.TemporalDecoder`, TiDE's per-step MLP), tried on the
network without covariates. With nothing known for the horizon it reads, for each horizon step,
the linear head's forecast, four numbers of a linear map of the trunk's tokens for that step and
the window's instance mean and log std: a non-linear last layer shared by the steps, starting at
zero. Patch tokens, the linear head, one channel (a long frame's series) only. Built here,
outside the library, by replacing the estimator's network for one run of ``m4_val.py`` (same
arguments):

    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python3 docs/results/panels/m4_temporal_decoder.py Hourly '{"n_threads": 1}'
"""

import runpy
import sys
from pathlib import Path

import torch

from tsattn import TSForecaster
from tsattn.nn.covariates import TemporalDecoder
from tsattn.nn.forecasting import INSTANCE_NORM_EPS, ForecastingTransformer


class Decoded(ForecastingTransformer):
    """:class:`ForecastingTransformer` with a temporal decoder after its linear head."""

    def __init__(self, n_channels, context_length, horizon, **kw):
        super().__init__(n_channels, context_length, horizon, **kw)
        if n_channels != 1 or kw.get("head") != "linear" or kw.get("tokens", "patch") != "patch":
            raise ValueError("this experiment takes one channel, patch tokens and the linear head")
        self.decoder = TemporalDecoder(self.n_tokens * self.d_model, horizon, 0, self.dropout_rate)

    def forward(self, x, mask=None, parts=False):
        std = torch.sqrt(x.var(dim=1, keepdim=True) + INSTANCE_NORM_EPS)
        mean = x.mean(dim=1, keepdim=True)
        h, _, _ = self.encode(self.view.samples((x - mean) / std))
        out = self.view.series(self.head(h), x.shape[0])  # (B, H, 1), normalised
        out = out + self.decoder(out, out[..., :0], h, mean, std)
        return self.blended(x, out * std + mean, parts)  # the anchor blend, as the library's


TSForecaster._network = Decoded  # the estimator builds its network from this class
script = Path(__file__).with_name("m4_val.py")
sys.argv = [str(script), *sys.argv[1:]]
runpy.run_path(str(script), run_name="__main__")
