"""The recipes of ``docs/guide/contributing.md``, each followed once: a new attention variant (its
file's content and its reference, here in this module) and a new estimator option."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.utils._param_validation import Interval

import tsattn.attention.registry as registry
from tests.helpers.reference_attention import _per_head, _softmax_rows
from tsattn import TSClassifier
from tsattn.attention import HyperParameter, build_attention, register_attention
from tsattn.attention.functional import softmax_attention
from tsattn.attention.softmax import SoftmaxAttention
from tsattn.attention.weights import softmax_weights
from tsattn.estimators.params import declare, declared_params, param

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_steps=5, random_state=0,
            device="cpu", n_threads=1)  # fmt: skip

# ---------------------------------------------------------------- recipe 1: the variant's file
TEMPERATURE = HyperParameter(
    "temperature",
    default=1.0,
    type="float",
    doc="Divides the scores before the softmax (larger: flatter attention).",
    constraint=(Interval(Real, 0, None, closed="neither"),),
)


class TemperedAttention(SoftmaxAttention):
    """Softmax attention with the scores divided by ``temperature``."""

    hyperparameters = (TEMPERATURE,)
    summary = "softmax attention with tempered scores (a recipe's toy)"

    def __init__(self, d_model: int, n_heads: int, *, dropout: float = 0.0,
                 temperature: float = TEMPERATURE.default) -> None:  # fmt: skip
        super().__init__(d_model, n_heads, dropout=dropout)
        self.temperature = float(TEMPERATURE.check(temperature))

    def kernel(self, q, k, v, mask):  # noqa: D102 - (B,H,N,d) in, (B,H,N,d) out
        return softmax_attention(q / self.temperature, k, v, mask, self.dropout_p)

    def kernel_weights(self, q, k, mask):  # noqa: D102
        return softmax_weights(q / self.temperature, k, mask)


# ---------------------------------------------------------------- and its reference in the tests
def ref_tempered(module, x, mask):
    """The formula, looped over samples and heads: ``softmax(q k^T / (sqrt(d) t)) v``."""

    def head(h, q, k, v, real):
        return _softmax_rows(q @ k.T / math.sqrt(q.shape[-1]) / module.temperature, real) @ v

    return _per_head(module, x, mask, head)


@pytest.fixture
def tempered(monkeypatch):
    """The toy registered as ``'tempered'`` for one test (the registry is restored after it)."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    return register_attention("tempered")(TemperedAttention)


def _data(n=24, c=2, length=40):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(n, c, length)), np.arange(n) % 2
    X[y == 1, 0] += np.sin(np.linspace(0, 6, length))
    return X, y


def test_a_new_variant_matches_its_reference_and_trains_through_the_classifier(tempered):
    torch.manual_seed(0)
    module = build_attention("tempered", 16, 4, temperature=2.5).double().eval()
    x = torch.randn(3, 11, 16, dtype=torch.float64)
    mask = torch.arange(11)[None] < torch.tensor([11, 7, 3])[:, None]
    with torch.no_grad():
        fast, ref = module(x, mask), ref_tempered(module, x, mask)
    torch.testing.assert_close(fast[mask], ref[mask], rtol=1e-9, atol=1e-10)

    X, y = _data()
    clf = TSClassifier(attention="tempered", **TINY).fit(X, y)
    layer = clf.module_.encoder.layers[0].attention
    assert isinstance(layer, TemperedAttention) and layer.temperature == TEMPERATURE.default
    assert clf.n_steps_ == 5 and clf.predict_proba(X).shape == (24, 2)


def test_a_new_variants_hyperparameters_become_estimator_parameters(tempered):
    """The estimators' attention fields are generated from the registry when a class is declared:
    a package variant is registered before ``TSClassifier`` is; this late one reaches a class
    declared after it, with its declaration's constraint and documentation."""
    Tempered = declare(type("Tempered", (TSClassifier,), {"__module__": __name__}))
    assert "temperature" not in TSClassifier().get_params()  # declared before the toy
    info = declared_params(Tempered)["temperature"]
    assert info.attention and TEMPERATURE.doc in info.doc and "\n    temperature : " in Tempered.__doc__
    est = clone(Tempered(attention="tempered", temperature=3.0, **TINY))
    assert est.get_params()["temperature"] == 3.0
    X, y = _data()
    assert est.fit(X, y).module_.encoder.layers[0].attention.temperature == 3.0
    with pytest.raises(ValueError, match="temperature"):
        Tempered(attention="tempered", temperature=-1.0, **TINY).validate()


# ---------------------------------------------------------------- recipe 3: an estimator option
@declare
class GainClassifier(TSClassifier):
    """A classifier whose standardised inputs are multiplied by ``input_gain`` (a recipe's toy)."""

    input_gain: float = param(
        1.0, [Interval(Real, 0, None, closed="neither")], "Factor on the standardised inputs. "
        "Default 1 (the inputs as they are)."
    )

    def _to_tensors(self, batch, y=None):
        data = super()._to_tensors(batch, y)
        data.x.mul_(self.input_gain)
        return data


def test_a_new_option_is_a_checked_documented_parameter_and_its_default_changes_nothing():
    assert GainClassifier().get_params()["input_gain"] == 1.0
    assert GainClassifier._parameter_constraints["input_gain"]
    assert "\n    input_gain : float, default=1.0" in GainClassifier.__doc__
    with pytest.raises(ValueError, match=r"input_gain must be a finite number > 0, got 0.0"):
        GainClassifier(input_gain=0.0).validate()
    X, y = _data()
    base = TSClassifier(**TINY).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(GainClassifier(**TINY).fit(X, y).predict_proba(X), base)
    gained = clone(GainClassifier(input_gain=3.0, **TINY)).fit(X, y)
    assert not np.allclose(gained.predict_proba(X), base)
