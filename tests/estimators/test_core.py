"""The estimator core: parameters declared once, the attention spec resolved once, attention maps."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import validate_parameter_constraints

import tsattn.attention.registry as registry
from tsattn import TSClassifier, TSForecaster, TSRegressor
from tsattn.attention import all_hyperparameters, hyperparameter_declarations
from tsattn.estimators.params import declared_params

ESTIMATORS = [TSClassifier, TSRegressor, TSForecaster]
TINY = dict(d_model=8, n_heads=2, n_layers=2, dim_feedforward=16, max_epochs=2, random_state=0,
            device="cpu")  # fmt: skip


def _toy(n=12, c=2, length=9, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, c, length)), np.array(["a", "b", "c"] * (n // 3))


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_every_parameter_is_declared_with_a_constraint_and_documented(Estimator):
    params = Estimator().get_params()
    assert set(Estimator._parameter_constraints) == set(params)
    validate_parameter_constraints(  # the declarations are scikit-learn constraints
        Estimator._parameter_constraints, params, caller_name=Estimator.__name__
    )
    for name in params:
        assert f"\n    {name} : " in Estimator.__doc__, f"{name} is not documented"


def test_attention_hyperparameters_are_generated_from_the_variants_declarations():
    """``declare`` makes one field per hyperparameter name of the registry (none is written in
    the estimators), documented by the declarations (tests/test_contributing.py: a late one)."""
    infos = declared_params(TSClassifier)
    flat = {name for name, info in infos.items() if info.attention}
    assert flat == set(all_hyperparameters())
    for name in flat:
        for hp in hyperparameter_declarations()[name]:
            assert hp.doc in infos[name].doc  # the estimator's doc is the variant's, not a copy
    beta = next(iter(hyperparameter_declarations()["beta"]))
    assert f"``{beta.default!r}``" in infos["beta"].doc


def test_the_forecaster_changes_defaults_not_declarations():
    clf, fc = declared_params(TSClassifier), declared_params(TSForecaster)
    assert (clf["d_model"].default, fc["d_model"].default) == (64, "auto")
    assert clf["d_model"].doc == fc["d_model"].doc
    assert clf["d_model"].constraint == fc["d_model"].constraint
    assert list(fc)[:3] == ["horizon", "context_length", "attention"]  # positional, in order


def test_the_attention_spec_is_resolved_once_per_fit(monkeypatch):
    calls = []
    real = registry.resolve_attention

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    import tsattn.estimators.base
    import tsattn.nn.trunk

    monkeypatch.setattr(tsattn.estimators.base, "resolve_attention", counting)
    monkeypatch.setattr(tsattn.nn.trunk, "resolve_attention", counting)
    X, y = _toy()
    TSClassifier(attention="bn_sh", **{**TINY, "n_layers": 3}).fit(X, y)
    assert calls == ["bn_sh"]


# ----------------------------------------------------------------------------- attention maps
@pytest.mark.parametrize("attention", ["softmax", "bn_sh", "linear", "mrs"])
def test_attention_maps_of_a_fitted_classifier(attention):
    X, y = _toy()
    ragged = [s[:, : 5 + i % 4] for i, s in enumerate(X)]
    clf = TSClassifier(attention=attention, **TINY).fit(ragged, y)
    maps = clf.attention_maps(ragged[:5])
    assert maps.shape == (5, 2, 2, 8, 8) and maps.dtype == np.float32
    for i, series in enumerate(ragged[:5]):
        n = series.shape[1]
        np.testing.assert_allclose(maps[i, :, :, :n, :n].sum(-1), 1.0, rtol=1e-5)
        assert not maps[i, :, :, n:].any() and not maps[i, :, :, :, n:].any()
    # the network's own weights for one series alone
    data = clf._to_tensors(clf._check_X_predict(ragged[:1]))
    with torch.no_grad():
        _, weights = clf.module_.eval()(data.x, None, need_weights=True)
    np.testing.assert_allclose(maps[0, 1, :, :5, :5], weights[1][0].numpy(), rtol=1e-4, atol=1e-6)


def test_attention_maps_name_the_variants_that_have_them():
    X, y = _toy()
    reg = TSRegressor(attention="long_short", **TINY).fit(X, np.arange(12.0))
    with pytest.raises(ValueError, match="'long_short' cannot return attention weights.*bn_sh"):
        reg.attention_maps(X)
    with pytest.raises(NotFittedError):
        TSClassifier().attention_maps(X)
