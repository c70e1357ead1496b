"""TSForecaster's anchor (the simple forecaster it blends with) and its interval forecasts; the
real-data checks read Exchange from ``../shared``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tsattn import TSForecaster
from tsattn.estimators.forecaster import anchors as _anchor
from tsattn.estimators.forecaster import intervals as _intervals

TINY = dict(attention="softmax", d_model=8, n_heads=2, n_layers=1, dim_feedforward=16,
            max_steps=20, random_state=0, device="cpu", patch_len=4)  # fmt: skip


# ----------------------------------------------------------------------------- anchor
def test_linear_anchor_learns_persistence_and_mean_reversion():
    rng = np.random.default_rng(0)
    walk = np.cumsum(rng.normal(size=(3000, 2)), axis=0)
    ar1 = np.zeros((3000, 2))
    for t in range(1, 3000):
        ar1[t] = 0.5 * ar1[t - 1] + rng.normal(size=2)
    for series, decay in ((walk, 1.0), (ar1, 0.5)):
        starts = np.arange(len(series) - 12 - 3 + 1)
        weight, bias = _anchor.fit_linear_anchor(series, starts, 12, 3, rng)
        np.testing.assert_allclose(weight[:, -1], decay ** np.arange(1, 4), atol=0.06)
        assert np.abs(weight[:, :-1]).max() < 0.08 and np.abs(bias).max() < 0.2


def test_nlinear_anchor_is_the_level_free_ridge_and_follows_a_shifted_level():
    """``relative=True`` solves the ridge of ``y - x_last`` on ``(x - x_last, 1)`` (checked against
    the normal equations written out), and the map it returns is level-free: a context shifted by
    ``c`` gives the forecast shifted by ``c``, where the level-dependent ridge pulls it back."""
    rng = np.random.default_rng(1)
    ar1 = np.zeros((2000, 2))
    for t in range(1, 2000):
        ar1[t] = 0.8 * ar1[t - 1] + rng.normal(size=2)
    length, horizon = 10, 4
    starts = np.arange(len(ar1) - length - horizon + 1)
    weight, bias = _anchor.fit_linear_anchor(ar1, starts, length, horizon, rng, relative=True)
    windows = np.concatenate([np.stack([ar1[s : s + length + horizon, c] for s in starts])
                              for c in range(2)])  # fmt: skip
    diff = windows - windows[:, length - 1 : length]
    x = np.concatenate([diff[:, :length], np.ones((len(diff), 1))], axis=1)
    penalty = np.full(length + 1, _anchor.RIDGE_LEVEL_FREE * len(x))
    penalty[-1] = 0.0
    coef = np.linalg.solve(x.T @ x + np.diag(penalty), x.T @ diff[:, length:])
    expected = windows[:, length - 1 : length] + x @ coef
    np.testing.assert_allclose(windows[:, :length] @ weight.T + bias, expected, atol=1e-9)
    shifted = windows[:5, :length] + 25.0
    np.testing.assert_allclose(shifted @ weight.T + bias, windows[:5, :length] @ weight.T + bias + 25.0,
                               atol=1e-9)  # fmt: skip
    level, lbias = _anchor.fit_linear_anchor(ar1, starts, length, horizon, rng)
    pulled = shifted @ level.T + lbias - (windows[:5, :length] @ level.T + lbias)
    assert pulled[:, -1].max() < 0.8 * 25.0  # the AR(1) ridge reverts towards the training level


def test_blend_is_the_clipped_least_squares_weight():
    net, anchor = np.array([1.0, 2.0]), np.array([0.0, 0.0])
    assert _anchor.fit_blend(net, anchor, 0.5 * net) == pytest.approx(0.5)
    assert _anchor.fit_blend(net, anchor, -net) == 0.0 and _anchor.fit_blend(net, anchor, 3 * net) == 1.0
    assert _anchor.fit_blend(anchor, anchor, net) == 1.0  # identical forecasts: the network


def test_weighted_ridge_and_blend_equal_repeated_rows():
    """A window of weight 2 counts as that window twice (the penalty grows with the weights'
    sum, as it grows with the rows), in the ridge and in the blend; weights of 1 change nothing."""
    rng = np.random.default_rng(3)
    series = np.cumsum(rng.normal(size=(400, 1)), axis=0)
    length, horizon = 8, 3
    starts = np.arange(len(series) - length - horizon + 1)
    weights = np.where(starts % 3 == 0, 2.0, 1.0)
    fitted = _anchor.fit_linear_anchor(series, starts, length, horizon, rng, weights=weights)
    repeated = np.sort(np.concatenate([starts, starts[weights == 2.0]]))
    expected = _anchor.fit_linear_anchor(series, repeated, length, horizon, rng)
    for a, b in zip(fitted, expected, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-10)
    plain = _anchor.fit_linear_anchor(series, starts, length, horizon, rng)
    ones = _anchor.fit_linear_anchor(series, starts, length, horizon, rng, weights=np.ones(len(starts)))
    for a, b in zip(plain, ones, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)
    net, anc, target = (rng.normal(size=(6, horizon, 1)) for _ in range(3))
    w = np.array([2.0, 1, 1, 2, 1, 1])
    twice = np.array([0, 0, 1, 2, 3, 3, 4, 5])
    assert _anchor.fit_blend(net, anc, target, w) == pytest.approx(
        _anchor.fit_blend(net[twice], anc[twice], target[twice]))


def test_the_network_forecast_is_the_blend_of_its_parts():
    y = np.cumsum(np.random.default_rng(0).normal(size=(200, 2)), axis=0)
    f = TSForecaster(6, 16, **TINY, anchor="last").fit(y)
    assert 0.0 <= f.blend_ <= 1.0 and f.interval_source_ == "validation"
    windows = np.stack([y[i : i + 16] for i in range(0, 150, 10)])
    blended = f.predict(windows)
    parts = f.predict_components(windows)
    np.testing.assert_allclose(parts["anchor"], np.repeat(windows[:, -1:], 6, axis=1), atol=1e-5)
    expected = f.blend_ * parts["network"] + (1 - f.blend_) * windows[:, -1:]
    np.testing.assert_allclose(blended, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(parts["forecast"], blended)  # predict's numbers, bit for bit
    alone = TSForecaster(6, 16, **TINY, anchor=None).fit(y)
    assert alone.anchor_ is None and alone.predict_components(windows)["anchor"] is None
    last = alone.predict_components(y[-20:])  # one series in: each part as predict gives it
    assert last["network"].shape == last["forecast"].shape == (6, 2)


# ------------------------------------------------------------------- seasonal (cycle) anchor
def test_cycle_profile_is_the_mean_of_each_phase():
    series = np.arange(20, dtype=float)[:, None] * np.array([[1.0, -1.0]])
    profile = _anchor.cycle_profile(series, 6)
    for p in range(6):
        np.testing.assert_allclose(profile[p], series[p::6].mean(axis=0))


def test_cycle_anchor_matches_its_formula():
    """Each window's phase: the argmin over shifts of the centred squared distance to the profile;
    then ``W (x - Q[p:p+L]) + b + Q[p+L:p+L+h]``, against a loop over windows and shifts."""
    import torch

    from tsattn.nn.forecasting import LinearAnchor

    torch.manual_seed(0)
    anchor = LinearAnchor(10, 4, 2, 7)
    for name, shape in (("weight", (4, 10)), ("bias", (4,)), ("cycle", (7, 2))):
        getattr(anchor, name).copy_(torch.randn(shape))
    x = torch.randn(6, 10, 2, dtype=torch.float64)
    np.testing.assert_allclose(  # until the estimator switches it on: the plain linear map
        anchor(x).numpy(), np.einsum("blc,kl->bkc", x.numpy(), anchor.weight.double().numpy())
        + anchor.bias.double().numpy()[:, None], rtol=1e-12)  # fmt: skip
    anchor.use_cycle.fill_(True)
    out = anchor(x).numpy()
    q, w, b = (t.double().numpy() for t in (anchor.cycle, anchor.weight, anchor.bias))
    for i, xi in enumerate(x.numpy()):
        dist = []
        for p in range(7):
            cand = q[(p + np.arange(10)) % 7]
            dist.append(np.sum((xi - xi.mean(0) - cand + cand.mean(0)) ** 2))
        profile = q[(int(np.argmin(dist)) + np.arange(14)) % 7]
        np.testing.assert_allclose(out[i], w @ (xi - profile[:10]) + b[:, None] + profile[10:],
                                   rtol=1e-10, atol=1e-12)  # fmt: skip


def _seasonal(n=2000, period=52, seed=0, start="2000-01-02"):
    """A season longer than the context, shapes that are not sinusoids (their own per channel), and
    noise."""
    rng = np.random.default_rng(seed)
    phase = 2 * np.pi * np.arange(n) / period
    base = np.exp(2 * np.cos(phase)) / 3 + 0.3 * np.sin(3 * phase)
    other = 0.5 * np.exp(np.sin(phase - 1.0)) - 0.4 * np.cos(2 * phase)  # another shape and phase
    values = np.stack([base, other], axis=1) + 0.1 * rng.normal(size=(n, 2))
    return pd.DataFrame(values, index=pd.date_range(start, periods=n, freq="W"), columns=["a", "b"])


@pytest.mark.parametrize("anchor", ["linear", "ncycle"])
def test_the_chosen_anchor_is_fitted_again_on_every_row(anchor):
    """Once chosen, the anchor is refitted on the training and validation rows as one series (the
    series' own tail, or a ``y_val`` that continues ``y``), against ``_anchor.fit_anchor`` on
    those rows; a ``y_val`` that does not continue ``y`` leaves the anchor as fitted on ``y``
    (0.988 of the MSE of no refit on validation: docs/results/forecast_defaults/anchor_refit/)."""
    y = _seasonal(n=600, period=7)
    params = dict(TINY, horizon=5, context_length=21, anchor=anchor, period=7)
    refit = TSForecaster(**params).fit(y)
    assert refit.anchor_refit_ and refit.anchor_ == anchor
    rows = (y.to_numpy() - refit.channel_mean_) / refit.channel_scale_
    starts = np.arange(len(rows) - 21 - 5 + 1)
    fit = _anchor.fit_anchor(anchor, rows, starts, 21, 5, 7, np.random.default_rng(0))
    held = refit.module_.anchor
    np.testing.assert_allclose(held.weight.double().numpy(), fit.weight, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(held.bias.double().numpy(), fit.bias, rtol=1e-5, atol=1e-6)
    if anchor == "ncycle":
        np.testing.assert_allclose(held.cycle.double().numpy(), fit.cycle, rtol=1e-5, atol=1e-6)

    train, val = y.iloc[:500], y.iloc[500 - 21 :]  # continues: refitted on all 600 rows
    joined = TSForecaster(**params).fit(train, y_val=val)
    assert joined.anchor_refit_
    rows = (y.to_numpy() - joined.channel_mean_) / joined.channel_scale_  # train's statistics
    fit = _anchor.fit_anchor(anchor, rows, starts, 21, 5, 7, np.random.default_rng(0))
    np.testing.assert_allclose(joined.module_.anchor.weight.double().numpy(), fit.weight,
                               rtol=1e-5, atol=1e-6)  # fmt: skip
    apart = y.iloc[500 - 20 :]  # one row later: not a continuation, the anchor stays y's own
    alone = TSForecaster(**params).fit(train, y_val=apart)
    assert not alone.anchor_refit_
    rows = (train.to_numpy() - alone.channel_mean_) / alone.channel_scale_
    own = _anchor.fit_anchor(anchor, rows, np.arange(500 - 21 - 5 + 1), 21, 5, 7,
                             np.random.default_rng(0))  # fmt: skip
    np.testing.assert_allclose(alone.module_.anchor.weight.double().numpy(), own.weight,
                               rtol=1e-5, atol=1e-6)  # fmt: skip


def test_period_is_read_from_the_time_index_or_given():
    y = _seasonal(400)
    def fit(data, **kw):
        return TSForecaster(4, 20, **{**TINY, "max_steps": 2, **kw}).fit(data)

    assert fit(y).period_ == 52
    assert fit(y.to_numpy()).period_ == 1  # arrays carry no time index
    assert fit(y.to_numpy(), period=52).period_ == 52
    assert fit(y, period=None).period_ == 1 and fit(y, anchor="linear").period_ == 1
    assert fit(y.iloc[:90]).period_ == 1  # fewer than two seasons of training rows
    with pytest.raises(ValueError, match="period=<steps per season>"):
        fit(y.to_numpy(), anchor="cycle")
    with pytest.raises(ValueError, match="anchor='ncycle' needs a season"):
        fit(y.iloc[:90], anchor="ncycle")  # fewer than two seasons


def test_cycle_anchor_forecasts_a_season_longer_than_the_context():
    """Context 20 of a 52-step season: the ridge sees less than half a season, the cycle anchor
    places the window in it; its forecasts err less on later windows, and 'auto' chooses it."""
    y = _seasonal()
    train, test = y.iloc[:1500], y.to_numpy()[1500:]
    windows = np.stack([test[i : i + 20] for i in range(0, len(test) - 32, 3)])
    targets = np.stack([test[i + 20 : i + 32] for i in range(0, len(test) - 32, 3)])
    errors = {}
    for anchor in ("linear", "cycle"):
        f = TSForecaster(12, 20, **{**TINY, "max_steps": 2}, anchor=anchor).fit(train)
        alone = f.predict_components(windows)["anchor"]  # the anchor alone
        errors[anchor] = float(np.mean((alone - targets) ** 2))
    assert errors["cycle"] < 0.7 * errors["linear"], errors
    f = TSForecaster(12, 20, **{**TINY, "max_steps": 2}).fit(train)
    assert f.anchor_ in ("cycle", "ncycle") and f.period_ == 52


def test_level_free_cycle_anchor_forecasts_a_shifted_window_shifted():
    """anchor='ncycle': the seasonal profile and a ridge on level-free windows; a context moved
    up by 3 (a level the training rows never reached) moves its forecast up by 3, where the
    level-dependent 'cycle' ridge, fitted on rows of a steady level, pulls it back."""
    y = _seasonal()
    windows = y.to_numpy()[1500:1520][None]
    moved = {}
    for anchor in ("cycle", "ncycle"):
        f = TSForecaster(12, 20, **{**TINY, "max_steps": 2}, anchor=anchor).fit(y.iloc[:1500])
        assert f.anchor_ == anchor and bool(f.module_.anchor.use_cycle)
        alone = f.predict_components  # the anchor alone
        moved[anchor] = alone(windows + 3.0)["anchor"] - alone(windows)["anchor"]
    np.testing.assert_allclose(moved["ncycle"], 3.0, atol=1e-4)
    assert moved["cycle"].mean() < 2.0, moved["cycle"].mean()


def test_a_pickled_forecaster_keeps_its_seasonal_anchor():
    import pickle

    f = TSForecaster(12, 20, **{**TINY, "max_steps": 2}, anchor="cycle").fit(_seasonal(600))
    windows = _seasonal(200, seed=1).to_numpy()[None, :20]
    g = pickle.loads(pickle.dumps(f))
    assert bool(g.module_.anchor.use_cycle) and g.period_ == 52
    np.testing.assert_allclose(g.predict(windows), f.predict(windows), rtol=1e-6)


@pytest.fixture(scope="module")
def exchange(shared_datasets):
    from tsattn.datasets import forecasting_splits, load_forecasting

    mp = pytest.MonkeyPatch()
    mp.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    try:
        splits = forecasting_splits(load_forecasting("exchange_rate"), "exchange_rate", 96)
    finally:
        mp.undo()
    return splits


def test_anchor_keeps_the_forecaster_at_or_below_naive_on_exchange_validation(exchange):
    """Exchange is close to a random walk: a short-trained network alone loses to the last value;
    blended with it on the validation windows, the forecaster does not."""
    ctx, tgt = exchange.windows("val", 24)
    naive = float(np.mean((ctx[:, -1:] - tgt) ** 2))
    fit = dict(TINY, patch_len="auto", max_steps=40)
    alone = TSForecaster(24, 96, **fit, anchor=None).fit(exchange.scaled("train"), y_val=exchange.scaled("val"))
    ours = TSForecaster(24, 96, **fit, anchor="last").fit(exchange.scaled("train"), y_val=exchange.scaled("val"))
    assert alone.mse(ctx, tgt) > 1.05 * naive
    assert ours.mse(ctx, tgt) <= naive * (1 + 1e-6) and ours.blend_ < 1
    # the default anchor tries each simple forecaster and keeps the one whose blend errs least
    auto = TSForecaster(24, 96, **fit).fit(exchange.scaled("train"), y_val=exchange.scaled("val"))
    each = {a: TSForecaster(24, 96, **fit, anchor=a).fit(exchange.scaled("train"), y_val=exchange.scaled("val"))
            for a in ("linear", "nlinear", "last")}  # fmt: skip
    assert auto.anchor_ in each and auto.mse(ctx, tgt) == pytest.approx(
        min(e.mse(ctx, tgt) for e in each.values()), rel=1e-6)
    assert auto.mse(ctx, tgt) <= naive * (1 + 1e-6)


# ----------------------------------------------------------------------------- intervals
def test_intervals_cover_about_their_level_on_exchange_test(exchange):
    """Calibrated on the validation split, scored on TEST windows it never saw: the empirical
    coverage is near the nominal one (a unit slip, e.g. forgetting the channel scale, breaks it)."""
    f = TSForecaster(24, 96, **dict(TINY, patch_len="auto", max_steps=40))
    f.fit(exchange.scaled("train"), y_val=exchange.scaled("val"))
    ctx, tgt = exchange.windows("test", 24)
    for coverage in (0.5, 0.8, 0.95):
        lo, hi = f.predict_interval(ctx, coverage)
        inside = float(((tgt >= lo) & (tgt <= hi)).mean())
        assert coverage - 0.15 < inside < min(1.0, coverage + 0.1), (coverage, inside)
    q = f.predict_quantiles(ctx[:50], alpha=[0.05, 0.5, 0.95])
    assert q.shape == (50, 24, 8, 3) and (np.diff(q, axis=-1) >= 0).all()


def test_quantiles_keep_the_input_kind_and_refuse_bad_levels():
    df = pd.DataFrame(np.cumsum(np.random.default_rng(1).normal(size=(120, 2)), axis=0),
                      index=pd.date_range("2021", periods=120, freq="D"), columns=["a", "b"])  # fmt: skip
    f = TSForecaster(6, 16, **TINY).fit(df)
    q = f.predict_quantiles(alpha=[0.1, 0.9])
    assert list(q.columns) == [("a", 0.1), ("a", 0.9), ("b", 0.1), ("b", 0.9)]
    assert q.index[0] == df.index[-1] + pd.Timedelta(days=1) and len(q) == 6
    lower, upper = f.predict_interval(coverage=0.8)
    np.testing.assert_allclose(lower.to_numpy(), q.xs(0.1, axis=1, level=1).to_numpy())
    np.testing.assert_allclose(upper.to_numpy(), q.xs(0.9, axis=1, level=1).to_numpy())
    assert f.predict_quantiles(df["a"].to_numpy()[:, None][:, [0, 0]]).shape == (6, 2, 3)
    for bad in ([0.0, 0.5], [1.2], []):
        with pytest.raises(ValueError, match="strictly between 0 and 1"):
            f.predict_quantiles(alpha=bad)
    with pytest.raises(ValueError, match="coverage must be"):
        f.predict_interval(coverage=1.0)


def test_quantile_table_interpolates_and_scales_with_the_context_spread():
    rng = np.random.default_rng(0)
    contexts = rng.normal(size=(4000, 10, 1))
    forecasts = np.zeros((4000, 2, 1))
    targets = rng.normal(size=(4000, 2, 1)) * contexts.std(axis=1, ddof=1, keepdims=True)
    table, floor = _intervals.calibrate(contexts, forecasts, targets)
    offsets = _intervals.quantile_offsets(table, np.array([0.1, 0.5, 0.9]))
    np.testing.assert_allclose(offsets[:, 0], [-1.2816, 0.0, 1.2816], atol=0.1)
    wide = _intervals.quantiles(forecasts[:1], 3 * contexts[:1], table, floor, np.array([0.9]))
    narrow = _intervals.quantiles(forecasts[:1], contexts[:1], table, floor, np.array([0.9]))
    np.testing.assert_allclose(wide, 3 * narrow, rtol=0.01)


def test_crossfit_forecasts_each_block_of_time_from_windows_outside_it():
    """The intervals' second source of errors: each fifth of the training windows forecast by the
    level-free ridge fitted on the windows that read none of its rows."""
    rng = np.random.default_rng(0)
    series = np.cumsum(rng.normal(size=(400, 2)), axis=0)
    starts = np.arange(400 - 16 - 6 + 1)
    contexts, forecasts, targets = _anchor.crossfit_errors(series, starts, 16, 6,
                                                           np.random.default_rng(1), 10_000)
    assert contexts.shape == (len(starts), 16, 2) and forecasts.shape == targets.shape == (len(starts), 6, 2)
    block = starts[: -(-len(starts) // 5)]  # the first fifth, all of its windows kept
    outside = starts[starts >= block.max() + 22]
    fit = _anchor.fit_anchor("nlinear", series, outside, 16, 6, 1, np.random.default_rng(1))
    windows = series[block[:, None] + np.arange(22)]
    np.testing.assert_allclose(forecasts[: len(block)], fit.forecast(windows[:, :16]), rtol=1e-12)
    np.testing.assert_array_equal(targets[: len(block)], windows[:, 16:])


def test_pooled_calibration_is_the_table_of_every_error():
    rng = np.random.default_rng(0)
    a = [rng.normal(size=(30, 8, 2)), rng.normal(size=(30, 4, 2)), rng.normal(size=(30, 4, 2))]
    b = [rng.normal(size=(50, 8, 2)), rng.normal(size=(50, 4, 2)), 3 * rng.normal(size=(50, 4, 2))]
    table, floor = _intervals.calibrate(*a, extra=tuple(b))
    alone, same_floor = _intervals.calibrate(*a)
    assert floor == same_floor  # the floor comes from the validation contexts
    errors = [(t - f) / _intervals.spread(c, floor) for c, f, t in (a, b)]
    pooled = np.concatenate([e.transpose(1, 0, 2).reshape(4, -1) for e in errors], axis=1)
    np.testing.assert_allclose(table, np.quantile(pooled, _intervals.LEVELS, axis=1))
    assert (table[-1] > alone[-1]).all()  # the wider second source widens the upper quantiles
