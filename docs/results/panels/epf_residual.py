"""An experiment on EPF's validation rows (issue 51): the network fitted to the residual of a
LEAR-style ridge, not to the price itself.

Today the network forecasts the price on its own and the LEAR anchor is fitted after it, the two
blended by ``blend_``. Here a ridge of the same form (:func:`tsattn.estimators._covariate_anchor.
fit_covariate_anchor`, its penalty chosen by blocked cross-validation over the training windows
alone) is fitted *before* training, and the network's output is that ridge's forecast plus the
network's correction (``base(x) + head * std``: the ridge gives the level, so the context's mean
is not added back). Everything after training is ``TSForecaster``'s: the LEAR anchor fitted on
the training and validation windows, blended with this network by ``blend_``. Built here, outside
the library, by replacing :class:`tsattn.nn.covariates.CovariateForecaster` and the estimator's
``_pretrain`` hook for one run of ``epf_val.py`` (same arguments):

    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python3 docs/results/panels/epf_residual.py NP future '{"calendar": true}'
"""

import runpy
import sys
from pathlib import Path

import numpy as np
import torch

import tsattn.nn.covariates as cov
from tsattn import TSForecaster
from tsattn.estimators._covariate_anchor import fit_covariate_anchor
from tsattn.nn.covariates import EPS, CovariateAnchor, CovariateForecaster


class Residual(CovariateForecaster):
    """:class:`CovariateForecaster` whose network corrects a fixed ridge (``base``)."""

    def __init__(self, context_length, horizon, *, n_covariates, future, patch_len, anchor, **trunk):
        super().__init__(context_length, horizon, n_covariates=n_covariates, future=future,
                         patch_len=patch_len, anchor=anchor, **trunk)  # fmt: skip
        self.base = CovariateAnchor(self.context_length, self.horizon, self.n_covariates, self.future)

    def forward(self, x, mask=None, parts=False):
        n = self.context_length
        target, past = x[:, :n, :1], x[:, :n, 1:]
        mean = target.mean(dim=1, keepdim=True)
        std = torch.sqrt(target.var(dim=1, keepdim=True) + EPS)
        h, _, _ = self.encode(torch.cat([(target - mean) / std, past], dim=2))
        out = self.head(h)
        if self.future_map is not None:
            fut = x[:, n:, 1:][:, :, list(self.future)].reshape(x.shape[0], -1)
            out = out + self.future_map(fut)[..., None]
        out = self.base(x) + out * std
        simple = None if self.anchor is None else self.anchor(x)
        blended = out if simple is None else self.blend * out + (1 - self.blend) * simple
        return (blended, out, simple) if parts else blended


def _pretrain(self, train_data, rng):
    """The base ridge on the training windows, before any training (its own generator, so the
    training draws the same batches as without it)."""
    weight, bias, _ = fit_covariate_anchor(train_data, None, np.random.default_rng(0))
    self.module_.base.set(weight, bias)


cov.CovariateForecaster = Residual  # the estimator imports it from here when it builds one
TSForecaster._pretrain = _pretrain
script = Path(__file__).with_name("epf_val.py")
sys.argv = [str(script), *sys.argv[1:]]
runpy.run_path(str(script), run_name="__main__")
