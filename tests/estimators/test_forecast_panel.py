"""TSForecaster on many series (a long frame) and with covariates: the API of issue 51."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from tsattn import TSForecaster
from tsattn.estimators.forecaster import anchors as _anchor
from tsattn.estimators.forecaster import choice as _series_choice
from tsattn.estimators.forecaster.data import (
    ForecastData,
    Form,
    lay_out,
    pad_left,
    seasonal_weights,
    split,
)
from tsattn.estimators.forecaster.roles import Covariates
from tsattn.estimators.forecaster.scales import LogScale, ScaleChain
from tsattn.io.panel import read_long_frame
from tsattn.nn.forecasting import ForecastingTransformer
from tsattn.training import WindowData

FAST = dict(max_steps=30, random_state=0, d_model=16, n_heads=2, n_layers=1, dim_feedforward=16)


def panel(lengths=(120, 150, 30, 90), freq="h", integer=False, seed=0) -> pd.DataFrame:
    """A long frame of daily-cycle series of different lengths and levels, with a covariate
    ``load_fc`` that drives ``y`` at the same step and a past-only ``temp``."""
    rng = np.random.default_rng(seed)
    frames = []
    for i, n in enumerate(lengths):
        t = np.arange(n)
        load = np.sin(2 * np.pi * t / 24 + i) + 0.3 * rng.standard_normal(n)
        y = 100.0 * i + 5.0 * load + 0.1 * rng.standard_normal(n)
        ds = t + 1 if integer else pd.date_range("2021-03-01", periods=n, freq=freq)
        frames.append(pd.DataFrame({"unique_id": f"s{i}", "ds": ds, "y": y, "load_fc": load,
                                    "temp": rng.standard_normal(n)}))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def future_rows(model: TSForecaster, value: float = 0.0) -> pd.DataFrame:
    """The ``horizon`` rows of ``load_fc`` after each fitted series."""
    return pd.concat([
        pd.DataFrame({"unique_id": sid, "ds": pd.date_range(last, periods=model.horizon + 1,
                                                            freq="h")[1:], "load_fc": value})
        for sid, last in zip(model.series_ids_, model.last_stamps_, strict=True)
    ])  # fmt: skip


def test_long_frame_fit_predicts_every_series_at_its_own_level():
    df = panel()[["unique_id", "ds", "y"]].sample(frac=1.0, random_state=0)  # unsorted rows
    model = TSForecaster(horizon=12, context_length=48, **FAST).fit(df)
    out = model.predict()
    assert list(out.columns) == ["unique_id", "ds", "y"]
    assert out.groupby("unique_id").size().to_dict() == {f"s{i}": 12 for i in range(4)}
    for sid, group in out.groupby("unique_id"):
        i = int(sid[1:])
        last = df[df.unique_id == sid].ds.max()
        assert group.ds.iloc[0] == last + pd.Timedelta(hours=1)  # the series' own time continued
        assert abs(group.y.mean() - 100.0 * i) < 15.0  # each series at its own level
    assert model.series_mean_.shape == (4, 1)


def test_integer_ds_continues_and_short_series_are_padded():
    df = panel(lengths=(80, 20, 100), integer=True)[["unique_id", "ds", "y"]]
    model = TSForecaster(horizon=6, context_length=48, **FAST).fit(df)
    out = model.predict()
    assert out[out.unique_id == "s1"].ds.tolist() == list(range(21, 27))
    assert np.isfinite(out.y).all()
    lo, hi = model.predict_interval(coverage=0.8)
    assert (lo.y.to_numpy() <= hi.y.to_numpy()).all()
    quant = model.predict_quantiles(alpha=(0.1, 0.9))
    assert list(quant.columns) == ["unique_id", "ds", 0.1, 0.9]


def test_unseen_series_are_forecast_from_their_own_rows():
    df = panel()[["unique_id", "ds", "y"]]
    model = TSForecaster(horizon=12, context_length=48, **FAST).fit(df)
    new = df[df.unique_id == "s1"].assign(unique_id="new", y=lambda d: d.y + 1000.0)
    out = model.predict(new)
    assert out.unique_id.unique().tolist() == ["new"]
    assert abs(out.y.mean() - 1100.0) < 20.0


def test_windows_stay_inside_one_series_and_validation_is_each_series_tail():
    rows = [np.arange(10.0)[:, None], 100 + np.arange(4.0)[:, None]]
    series, starts, owner = lay_out(rows, context_length=3, horizon=2)
    assert len(series) == 10 + 5  # the short series padded to one window
    windows = series[starts[:, None] + np.arange(5)]
    assert all(len(np.unique(w // 100)) == 1 for w in windows)  # never across two series
    assert owner.tolist() == [0] * 6 + [1]
    train, valid = split([np.arange(40.0)[:, None]], 0.1, 8, 5)
    assert len(train[0]) == 35 and valid[0][:, 0].tolist() == list(range(27, 40))
    assert pad_left(np.array([[1.0], [2.0]]), 4)[:, 0].tolist() == [1, 1, 1, 2]


def test_future_covariates_are_read_and_past_ones_never_after_the_origin():
    df = panel()
    model = TSForecaster(horizon=12, context_length=48, future_covariates=["load_fc"], **FAST)
    model.fit(df)
    assert model.covariates_ == ["load_fc", "temp"] and model.future_ == (0,)
    base = model.predict(X=future_rows(model)).y.to_numpy()
    moved = model.predict(X=future_rows(model, 2.0)).y.to_numpy()
    assert not np.allclose(base, moved)  # the horizon's load forecasts move the forecast
    # a batch: the horizon rows of the past-only covariate are never read
    s = df[df.unique_id == "s1"]
    y_ctx = np.stack([s.y.to_numpy()[i : i + 48] for i in range(3)])
    x_win = np.stack([s[["load_fc", "temp"]].to_numpy()[i : i + 60] for i in range(3)])
    changed = x_win.copy()
    changed[:, 48:, 1] += 50.0
    np.testing.assert_allclose(model.predict(y_ctx, X=x_win), model.predict(y_ctx, X=changed), rtol=1e-10)
    assert model.predict(y_ctx, X=x_win).shape == (3, 12, 1)
    with pytest.raises(ValueError, match="X needs 60"):
        model.predict(y_ctx, X=x_win[:, :48])
    # past-only covariates: X with the context's rows, or with the horizon's too (not read), and
    # its rows line up with y's from the first (a longer context is cut from the end of both)
    past = TSForecaster(horizon=12, context_length=48, **FAST).fit(df)
    y_long = np.stack([s.y.to_numpy()[i : i + 60] for i in range(3)])
    x_long = np.stack([s[["load_fc", "temp"]].to_numpy()[i : i + 72] for i in range(3)])
    expected = past.predict(y_long[:, -48:], X=x_long[:, 12:60])
    np.testing.assert_allclose(past.predict(y_long, X=x_long[:, :60]), expected, rtol=1e-10)
    np.testing.assert_allclose(past.predict(y_long, X=x_long), expected, rtol=1e-10)


def test_covariates_lower_the_error_where_they_drive_the_target():
    df = panel(lengths=(400, 400, 400), seed=1)
    train = df.groupby("unique_id").head(376)
    truth = df.groupby("unique_id").tail(24)
    errors = {}
    for name, kw in (("none", {}), ("future", {"future_covariates": ["load_fc"]})):
        data = train[["unique_id", "ds", "y"]] if name == "none" else train
        model = TSForecaster(horizon=24, context_length=48, **FAST, **kw).fit(data)
        out = model.predict(X=truth[["unique_id", "ds", "load_fc"]] if kw else None)
        errors[name] = float(np.mean((out.y.to_numpy() - truth.y.to_numpy()) ** 2))
    assert errors["future"] < 0.5 * errors["none"], errors


def test_one_series_with_covariate_arrays():
    df = panel(lengths=(200,))
    y, X = df.y.to_numpy(), df[["load_fc", "temp"]].to_numpy()
    model = TSForecaster(horizon=12, context_length=48, future_covariates=[0], **FAST).fit(y, X)
    assert model.covariates_ == ["x0", "x1"]
    assert model.predict(X=np.zeros((12, 1))).shape == (12,)
    with pytest.raises(ValueError, match="future covariates"):
        model.predict()
    parts = model.predict_components(X=np.zeros((12, 1)))
    blend = model.blend_
    np.testing.assert_allclose(parts["forecast"], blend * parts["network"] + (1 - blend) * parts["anchor"],
                               rtol=1e-5, atol=1e-4)  # fmt: skip


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: pd.concat([d, d.iloc[:1]]), "duplicated"),
        (lambda d: d.assign(load_fc=d.load_fc.where(d.index != 5)), "NaN.*'load_fc'"),
        (lambda d: d.drop(index=[7]), "gaps|regular"),
        (lambda d: d.assign(temp="a"), "non-numeric"),
        (lambda d: d.assign(ds=d.ds.astype(str)), "datetimes"),
    ],
)
def test_bad_long_frames_name_the_problem(change, message):
    with pytest.raises(ValueError, match=message):
        TSForecaster(horizon=6, context_length=24, **FAST).fit(change(panel()))


def test_covariate_input_errors():
    df = panel()
    with pytest.raises(ValueError, match="Did you mean 'load_fc'"):
        TSForecaster(horizon=6, context_length=24, future_covariates=["load_f"], **FAST).fit(df)
    model = TSForecaster(horizon=6, context_length=24, future_covariates=["load_fc"], **FAST).fit(df)
    fut = future_rows(model)
    with pytest.raises(ValueError, match="no row for series 's2'"):
        model.predict(X=fut[fut.unique_id != "s2"])
    with pytest.raises(ValueError, match="lacks the future covariate"):
        model.predict(X=fut.rename(columns={"load_fc": "other"}))
    constant = df.assign(temp=1.0)  # constant in TRAIN: scaled by 1, fits and forecasts
    with pytest.warns(UserWarning, match=r"\['temp'\] are constant"):
        out = TSForecaster(horizon=6, context_length=24, **FAST).fit(constant).predict()
    assert np.isfinite(out.y).all()


def test_score_on_the_continuation_and_on_windows():
    df = panel(lengths=(200, 200))[["unique_id", "ds", "y"]]
    fit_part = df.groupby("unique_id").head(188)
    model = TSForecaster(horizon=12, context_length=48, **FAST).fit(fit_part)
    score = model.score(df.groupby("unique_id").tail(12))
    out = model.predict()
    assert score == pytest.approx(-np.mean((out.y.to_numpy() - df.groupby("unique_id").tail(12).y.to_numpy()) ** 2))
    one = TSForecaster(horizon=12, context_length=48, **FAST).fit(df.y.to_numpy()[:188])
    assert one.score(df.y.to_numpy()[188:200]) == pytest.approx(
        -np.mean((one.predict() - df.y.to_numpy()[188:200]) ** 2))  # fmt: skip
    windows = np.stack([df.y.to_numpy()[i : i + 48] for i in range(3)])[..., None]
    targets = np.stack([df.y.to_numpy()[i + 48 : i + 60] for i in range(3)])[..., None]
    assert one.score(windows, targets) == pytest.approx(-one.mse(windows, targets))


def test_pack_and_covariate_windows_hide_what_is_not_known():
    """Predict packs its contexts as training packs its windows (one ``WindowData``)."""
    contexts = np.arange(2 * 4 * 3, dtype=float).reshape(2, 4, 3)  # 2 targets, 1 covariate
    future = np.full((2, 2, 1), -1.0)
    data = ForecastData([], 2, Covariates(("f",), ("future",)), Form(None))
    packed = data.network_input(contexts, future, 2, torch.device("cpu")).numpy()
    assert packed.shape == (4, 6, 2)
    np.testing.assert_array_equal(packed[1, :4, 0], contexts[0, :, 1])  # window 0, channel 1
    np.testing.assert_array_equal(packed[1, :4, 1], contexts[0, :, 2])
    assert (packed[:, 4:, 0] == 0).all() and (packed[:, 4:, 1] == -1).all()
    series = torch.arange(30.0).reshape(10, 3)  # target, future covariate, past covariate
    known = Covariates(("f", "p"), ("future", "past")).known(3, 2)
    data = WindowData(series, 3, 2, None, known=known)
    x = data.gather(torch.tensor([1]))[0]
    assert x[3:, 0].tolist() == [0, 0] and x[3:, 2].tolist() == [0, 0]
    assert x[3:, 1].tolist() == [13.0, 16.0]
    assert data.y[torch.tensor([1])][0, :, 0].tolist() == [12.0, 15.0]


SMALL_NET = dict(attention="softmax", d_model=16, n_heads=2, n_layers=1, dim_feedforward=16,
                 dropout=0.0, attention_dropout=0.0, norm="layer")


def covariate_network(context_length, horizon, *, n_covariates, future, patch_len, anchor,
                      decoder=False, head="linear", tokens="patch", **trunk):
    """The forecasting network with its covariate adapter (a sample: one target and the
    covariates, packed)."""
    return ForecastingTransformer(
        1, context_length, horizon, head=head, tokens=tokens, channel_independent=True,
        patch_len=patch_len, anchor=anchor,
        covariates=dict(n_covariates=n_covariates, future=list(future), decoder=decoder), **trunk)


@pytest.mark.parametrize("decoder, head, tokens", [(False, "linear", "patch"),
                                                   (True, "linear", "patch"),
                                                   (True, "fourier", "patch"),
                                                   (True, "linear", "variate")])  # fmt: skip
def test_covariate_network_reads_only_the_known_rows(decoder, head, tokens):
    """With any registered head and view that gives ``"covariates"``."""
    torch.manual_seed(0)
    net = covariate_network(24, 6, n_covariates=2, future=(0,), patch_len=4, anchor=True,
                            decoder=decoder, head=head, tokens=tokens, **SMALL_NET)  # fmt: skip
    torch.nn.init.normal_(net.covariates.future_map.weight)
    if decoder:
        torch.nn.init.normal_(net.covariates.decoder.mlp[-1].weight)
    net.eval()
    x = torch.randn(3, 30, 3)
    base = net(x)
    hidden = x.clone()
    hidden[:, 24:, 0] = 7.0  # the target's horizon
    hidden[:, 24:, 2] = 7.0  # the past-only covariate's horizon
    torch.testing.assert_close(net(hidden), base)
    seen = x.clone()
    seen[:, 24:, 1] += 1.0
    assert not torch.allclose(net(seen), base)
    past = x.clone()
    past[:, :24, 2] += 1.0  # the past-only covariate's context rows are read
    assert not torch.allclose(net(past), base)


def test_the_temporal_decoder_starts_from_the_network_without_it_and_answers_non_linearly():
    kw = dict(n_covariates=2, future=(0,), patch_len=4, anchor=False, **SMALL_NET)
    torch.manual_seed(0)
    plain = covariate_network(24, 6, **kw).eval()
    net = covariate_network(24, 6, decoder=True, **kw).eval()
    missing, unexpected = net.load_state_dict(plain.state_dict(), strict=False)
    assert not unexpected and missing and all(k.startswith("covariates.decoder.") for k in missing)
    x = torch.randn(3, 30, 3)
    torch.testing.assert_close(net(x), plain(x))  # its last layer starts at zero
    torch.nn.init.normal_(net.covariates.decoder.mlp[-1].weight)
    load = [x.clone() for _ in range(3)]
    for i, value in enumerate((0.0, 1.0, 2.0)):
        load[i][:, 24:, 1] = value  # the future-known covariate's horizon rows
    low, mid, high = (net(v) for v in load)
    assert not torch.allclose(high - mid, mid - low)  # a linear map would give equal steps
    lin = [plain(v) for v in load]
    torch.testing.assert_close(lin[2] - lin[1], lin[1] - lin[0])


def _saved_as_before_issue_76(model: TSForecaster, decoder: bool = True) -> dict:
    """``model``'s pickled state as the covariate network's own class wrote it before issue 76
    (its adapter's parts on the network, flat parameters; ``decoder`` False: before the temporal
    decoder, without it)."""
    import io

    state = model.__getstate__()
    weights = torch.load(io.BytesIO(state["_module_state"]), weights_only=True)
    old = {k.replace("covariates.", ""): v for k, v in weights.items()
           if decoder or not k.startswith("covariates.decoder.")}  # fmt: skip
    buffer = io.BytesIO()
    torch.save(old, buffer)
    state["_module_state"] = buffer.getvalue()
    params = {k: v for k, v in state["network_params_"].items()
              if k not in ("n_channels", "head", "head_params", "channel_independent", "tokens",
                           "anchor_period", "patch_stride", "covariates")}  # fmt: skip
    covariates = state["network_params_"]["covariates"]
    params.update(n_covariates=covariates["n_covariates"], future=covariates["future"])
    if decoder:
        params["decoder"] = covariates["decoder"]
    state["network_params_"] = params
    return state


@pytest.mark.parametrize("decoder", [True, False])
def test_a_covariate_model_saved_before_issue_76_loads_into_the_one_network(decoder):
    df = panel()
    model = TSForecaster(horizon=6, context_length=24, future_covariates=["load_fc"], **FAST).fit(df)
    assert model.network_params_["covariates"]["decoder"] is True
    assert model.module_.covariates.decoder is not None
    old = TSForecaster.__new__(TSForecaster)
    old.__setstate__(_saved_as_before_issue_76(model, decoder))
    assert (old.module_.covariates.decoder is not None) is decoder
    fut = future_rows(old)
    if decoder:  # the same network, its weights under their old names
        pd.testing.assert_frame_equal(old.predict(X=fut), model.predict(X=fut))
    assert np.isfinite(old.predict(X=fut).y).all()
    past = TSForecaster(horizon=6, context_length=24, **FAST).fit(df)  # nothing known ahead
    assert past.network_params_["covariates"]["decoder"] is False
    assert past.module_.covariates.decoder is None


def test_long_frame_reader_joins_covariates_and_names_misaligned_rows():
    df = panel()
    cov = df[["unique_id", "ds", "load_fc"]]
    read = read_long_frame(df[["unique_id", "ds", "y"]], covariates=cov)
    assert read.covariate_names == ["load_fc"] and read.lengths.tolist() == [120, 150, 30, 90]
    with pytest.raises(ValueError, match="X has no row"):
        read_long_frame(df[["unique_id", "ds", "y"]], covariates=cov.iloc[1:])
    two = df.copy()
    two.loc[two.unique_id == "s3", "ds"] = pd.date_range("2021-03-01", periods=90, freq="D")
    with pytest.raises(ValueError, match="s3"):
        read_long_frame(two)


def test_panel_and_covariate_models_survive_pickling():
    import pickle

    df = panel()
    model = TSForecaster(horizon=6, context_length=24, future_covariates=["load_fc"], **FAST).fit(df)
    again = pickle.loads(pickle.dumps(model))
    fut = future_rows(model)
    pd.testing.assert_frame_equal(again.predict(X=fut), model.predict(X=fut))


def test_auto_width_and_dropout_follow_the_number_of_series():
    from tsattn.estimators.forecasting import AUTO_DROPOUT, AUTO_WIDTHS

    (wide, fewest), (narrow, _) = AUTO_WIDTHS
    (many, at_least), (few, _) = AUTO_DROPOUT
    assert at_least == fewest and (many, few) == (0.0, 0.2)
    small = dict(max_steps=2, random_state=0, n_layers=1, dim_feedforward=16)
    rng = np.random.default_rng(0)

    def panel_of(n_series):
        return pd.DataFrame({"unique_id": np.repeat(np.arange(n_series), 40),
                             "ds": np.tile(np.arange(40), n_series),
                             "y": rng.normal(size=40 * n_series)})  # fmt: skip

    for n_series, width, rate in ((1, narrow, few), (fewest - 1, narrow, few), (fewest, wide, many)):
        model = TSForecaster(horizon=4, context_length=12, **small).fit(panel_of(n_series))
        assert model.get_params()["d_model"] == model.get_params()["dropout"] == "auto"
        assert model.d_model_ == model.network_params_["d_model"] == width
        assert model.module_.tokenizer.projection.out_features == width
        assert model.dropout_ == model.network_params_["dropout"] == rate
        assert model.module_.head.dropout.p == rate
    one = TSForecaster(horizon=4, context_length=12, d_model=48, **small).fit(np.sin(np.arange(80.0)))
    assert (one.d_model_, one.dropout_) == (48, few)  # one series: the long-horizon sets' rate
    assert TSForecaster(horizon=4, context_length=12, dropout=0.3, **small).fit(
        panel_of(fewest)).dropout_ == 0.3
    with pytest.raises(ValueError, match="n_heads"):
        TSForecaster(d_model="auto", n_heads=3).validate()  # 32 and 128 are checked before data


def test_only_the_forecaster_has_a_width_rule():
    from tsattn import TSClassifier, TSRegressor

    for cls in (TSClassifier, TSRegressor):
        with pytest.raises(ValueError, match="no rule for d_model='auto'"):
            cls(d_model="auto").validate()
        with pytest.raises(ValueError, match="no rule for dropout='auto'"):
            cls(dropout="auto").validate()


def test_auto_context_by_the_series_lengths():
    from tsattn.estimators.forecaster.params import MAX_PANEL_CONTEXT, SERIES_CONTEXT, auto_context

    # half the lower quartile, rounded up to whole seasons, within [2 * horizon, MAX_PANEL_CONTEXT]
    assert auto_context([366] * 150 + [900] * 250, 13, 52) == 208  # 183 -> four seasons of 52
    assert auto_context([652] * 300 + [912] * 100, 48, 24) == MAX_PANEL_CONTEXT  # 326 -> 336
    assert auto_context([36_000, 30_000], 24, 24) == MAX_PANEL_CONTEXT  # long series: capped
    assert auto_context([13, 20, 30, 40], 6, 1) == 12  # M4 Yearly's shortest: twice the horizon
    assert auto_context([100] * 8, 6, 1) == 50
    small = dict(max_steps=2, random_state=0, d_model=16, n_heads=2, n_layers=1, dim_feedforward=16)
    df = panel(lengths=(120, 150, 100, 90), integer=True)[["unique_id", "ds", "y"]]
    model = TSForecaster(horizon=6, period=24, **small).fit(df)
    assert model.get_params()["context_length"] == "auto"
    assert model.context_length_ == model.network_params_["context_length"] == 72  # 97.5 / 2 -> 3 x 24
    assert model.predict().groupby("unique_id").size().eq(6).all()
    assert model.last_context_.shape[1] == 72
    one = TSForecaster(horizon=6, **small).fit(np.sin(np.arange(300.0)))  # one series: unchanged
    assert one.context_length_ == SERIES_CONTEXT
    alone = df[df.unique_id == "s1"]  # a long frame of one series too
    assert TSForecaster(horizon=6, period=24, **small).fit(alone).context_length_ == SERIES_CONTEXT
    assert TSForecaster(horizon=6, context_length=30, **small).fit(df).context_length_ == 30


def test_seasonal_weights_are_one_over_the_squared_seasonal_difference():
    rng = np.random.default_rng(0)
    smooth = np.sin(2 * np.pi * np.arange(96) / 24)[:, None] + 0.01 * rng.standard_normal((96, 1))
    noisy = rng.standard_normal((96, 1))
    short = rng.standard_normal((10, 1))
    w = seasonal_weights([smooth, noisy, short, None, np.ones((50, 1))], period=24)
    assert w[0] == pytest.approx(1 / np.mean(np.abs(smooth[24:] - smooth[:-24])) ** 2)
    assert w[1] == pytest.approx(1 / np.mean(np.abs(noisy[24:] - noisy[:-24])) ** 2)
    assert w[2] == pytest.approx(1 / np.mean(np.abs(np.diff(short[:, 0]))) ** 2)  # lag 1: short
    assert w[3] == w[4] == 1.0 and w[0] > 100 * w[1]


def test_a_panel_anchor_weighs_each_series_by_its_seasonal_difference(monkeypatch):
    """A long frame's ridge anchor is fitted with each window weighted by its series' seasonal
    weight; one series' fit is not weighted (its fits are unchanged)."""
    seen = []
    fit_anchor = _anchor.fit_anchor

    def spy(*args, **kwargs):
        weights = args[7] if len(args) > 7 else kwargs.get("weights")
        seen.append(None if weights is None else np.unique(np.round(weights, 9)))
        return fit_anchor(*args, **kwargs)

    monkeypatch.setattr(_anchor, "fit_anchor", spy)
    df = panel(lengths=(120, 150, 90))[["unique_id", "ds", "y"]]
    TSForecaster(horizon=12, context_length=48, period=24, **FAST).fit(df)
    assert any(w is not None and len(w) == 3 for w in seen)  # a weight per series
    seen.clear()
    TSForecaster(horizon=12, context_length=48, period=24, **FAST).fit(df[df.unique_id == "s0"].y.to_numpy())
    assert seen and all(w is None for w in seen)


def test_a_long_frame_forecast_is_held_above_each_series_lowest_value():
    """Fitted on a long frame without covariates, forecasts and their quantiles are held at or
    above the lowest value of the rows read for each series (``series_low_`` for the fitted
    ones, a batch window's own rows); the network and the anchor of ``predict_components`` are
    not, and one series or covariates are never held."""
    df = panel(lengths=(120, 150, 90))[["unique_id", "ds", "y"]]
    model = TSForecaster(horizon=12, context_length=48, **FAST).fit(df)
    np.testing.assert_allclose(model.series_low_[:, 0], df.groupby("unique_id").y.min().to_numpy())
    # the forecast made the anchor's alone, three standardised units below each window's mean:
    # below the lowest value of these rising ramps (their first value)
    model.module_.set_anchor(np.zeros((12, 48)), np.full(12, -3.0))
    model.module_.set_blend(0.0)
    ramps = np.array([0.0, 100.0, 200.0])[:, None, None] + np.linspace(0.0, 5.0, 60)[None, :, None]
    low = ramps.min(axis=1)[:, None, :]  # of every row given, the 12 before the context included
    fitted_low = model.series_low_.copy()
    model.series_low_, model.fit_plan_.scales.floor = None, False  # the floor off, as without it
    raw, raw_fitted = model.predict(ramps), model.predict()
    raw_q = model.predict_quantiles(ramps, alpha=(0.1, 0.9))
    assert (raw < low).all() and (raw_q[..., 1] < low).any()  # unheld, they fall below
    model.series_low_, model.fit_plan_.scales.floor = fitted_low, True
    np.testing.assert_allclose(model.predict(ramps), np.maximum(raw, low))
    np.testing.assert_allclose(model.predict_quantiles(ramps, alpha=(0.1, 0.9)),
                               np.maximum(raw_q, low[..., None]))  # fmt: skip
    held = model.predict()
    floor = np.repeat(fitted_low[:, 0], 12)
    assert (raw_fitted.y.to_numpy() < floor).any()
    np.testing.assert_allclose(held.y.to_numpy(), np.maximum(raw_fitted.y.to_numpy(), floor))
    new = df[df.unique_id == "s1"].assign(y=lambda d: d.y + 50.0)  # a series unseen in fit
    assert (model.predict(y=new).y >= new.y.min()).all()
    parts = model.predict_components(ramps)
    np.testing.assert_allclose(parts["forecast"], model.predict(ramps), rtol=1e-5, atol=1e-4)
    assert (parts["anchor"] < low).all()  # the parts stay as the anchor made them
    assert TSForecaster(horizon=12, context_length=48, **FAST).fit(
        df[df.unique_id == "s0"].y.to_numpy()).series_low_ is None  # fmt: skip
    with_covariates = panel(lengths=(120, 150, 90))[["unique_id", "ds", "y", "temp"]]
    assert TSForecaster(horizon=12, context_length=48, **FAST).fit(with_covariates).series_low_ is None


def periodic_panel() -> pd.DataFrame:
    """Two series that repeat a 24-step cycle exactly (the seasonal naive forecast is exact on
    them) and a noisy one, of different lengths and levels."""
    rng = np.random.default_rng(1)
    cycle = rng.standard_normal(24)
    frames = []
    for i, (n, noise) in enumerate(((240, 0.0), (216, 0.0), (240, 1.0))):
        y = 10.0 * (i + 1) + np.tile(cycle, n // 24) + noise * rng.standard_normal(n)
        frames.append(pd.DataFrame({"unique_id": f"s{i}", "ds": np.arange(n) + 1, "y": y}))
    return pd.concat(frames, ignore_index=True)


def test_a_long_frame_forecast_is_chosen_per_series_on_its_last_horizon(monkeypatch):
    """Fitted on a long frame without covariates, a series whose seasonal naive forecast erred
    far less than the model's on its last horizon of rows is forecast by it (``series_choice_``,
    the same choice for a long ``y`` from its own rows); the quantiles follow the chosen
    forecast; a batch, one series and covariates keep the blend."""

    df = periodic_panel()
    model = TSForecaster(horizon=12, context_length=48, period=24, **FAST).fit(df)
    assert model.series_choice_[:2].tolist() == [_series_choice.NAIVE] * 2
    rows = [g.y.to_numpy() for _, g in df.groupby("unique_id")]
    out = model.predict().y.to_numpy().reshape(3, 12)
    for i in range(2):  # the last cycle continued: rows T - 24 .. T - 13
        np.testing.assert_allclose(out[i], rows[i][-24:-12], rtol=1e-6)
    np.testing.assert_allclose(model.predict(y=df).y.to_numpy().reshape(3, 12)[:2], out[:2],
                               rtol=1e-6)  # fmt: skip
    parts = model.predict_components()
    np.testing.assert_allclose(parts["forecast"].y, model.predict().y)
    assert not np.allclose(parts["network"].y.to_numpy().reshape(3, 12)[0], out[0], atol=1e-3)
    low, high = model.predict_interval(coverage=0.8)
    assert (low.y.to_numpy() <= out.ravel() + 1e-9).all() and (out.ravel() <= high.y.to_numpy() + 1e-9).all()
    batch = np.stack([r[-48:] for r in rows])[..., None]  # windows: no rows to choose on
    blend = model.predict_components(batch)["forecast"]
    np.testing.assert_allclose(model.predict(batch), blend, rtol=1e-6)
    assert not np.allclose(model.predict(batch)[0, :, 0], out[0], atol=1e-3)
    # a model pickled before the choice (no series_choice_) loads and forecasts the blend
    import pickle

    state = pickle.loads(pickle.dumps(model))
    del state.series_choice_
    old = pickle.loads(pickle.dumps(state))
    assert old.series_choice_ is None
    np.testing.assert_allclose(old.predict().y, old.predict_components()["forecast"].y)
    assert not np.allclose(old.predict().y.to_numpy().reshape(3, 12)[0], out[0], atol=1e-3)
    # without the rule (a ratio nothing is below) every series keeps the blend
    monkeypatch.setattr(_series_choice, "SWITCH_RATIO", 0.0)
    plain = TSForecaster(horizon=12, context_length=48, period=24, **FAST).fit(df)
    assert (plain.series_choice_ == _series_choice.BLEND).all()
    assert not np.allclose(plain.predict().y.to_numpy().reshape(3, 12)[0], out[0], atol=1e-3)
    monkeypatch.undo()
    one = TSForecaster(horizon=12, context_length=48, period=24, **FAST).fit(rows[0])
    assert one.series_choice_ is None
    with_covariates = panel(lengths=(120, 150, 90))[["unique_id", "ds", "y", "temp"]]
    assert TSForecaster(horizon=12, context_length=48, **FAST).fit(with_covariates).series_choice_ is None


def test_the_series_choice_takes_the_best_candidate_below_the_ratio():
    sc = _series_choice

    r = sc.SWITCH_RATIO
    truth = np.zeros((4, 3, 1))
    blend = np.ones((4, 3, 1))
    naive = np.array([0.6 * r, 1.1 * r, 0.1 * r, 0.0])[:, None, None] * np.ones((1, 3, 1))
    anchor = np.array([0.8 * r, 1.2 * r, 0.05 * r, 0.0])[:, None, None] * np.ones((1, 3, 1))
    usable = np.array([True, True, True, False])
    choice = sc.choose(truth, blend, [(sc.NAIVE, naive, usable), (sc.ANCHOR, anchor, usable)])
    # both below the ratio: the lower (naive); both above it: the blend; the anchor lower;
    # the fourth series has no backtest
    assert choice.tolist() == [sc.NAIVE, sc.BLEND, sc.ANCHOR, sc.BLEND]
    contexts = np.arange(10.0)[None, :, None]
    np.testing.assert_array_equal(sc.seasonal_naive(contexts, 4, 6)[0, :, 0], [6, 7, 8, 9, 6, 7])
    out = sc.apply(np.array([sc.NAIVE, sc.LAST, sc.ANCHOR, sc.BLEND]), np.zeros((4, 6, 1)),
                   np.full((4, 6, 1), -1.0), np.repeat(contexts, 4, axis=0), 4)  # fmt: skip
    np.testing.assert_array_equal(out[..., 0], [[6, 7, 8, 9, 6, 7], [9] * 6, [-1] * 6, [0] * 6])


def test_series_on_the_log_scale_take_their_own_share():
    """Where some series of a long frame are read on the log scale and others not, the blend of
    network and anchor is fitted for each side on its own validation windows (``log_blend_`` for
    the log scale's, ``blend_`` for the others', :func:`_anchor.fit_blends`); every forecast of a
    series or window on the log scale blends by ``log_blend_`` (of the logarithms), the others by
    ``blend_``; None where no series, or every series, is on the log scale; a model saved
    before it loads with one share, as then."""

    rng = np.random.default_rng(0)
    net, anc, target = rng.normal(size=(3, 40, 6, 1))
    group = np.arange(40) % 3 == 0
    weights = rng.random(40) + 0.5
    assert _anchor.fit_blends(net, anc, target, weights, group) == (
        _anchor.fit_blend(net[~group], anc[~group], target[~group], weights[~group]),
        _anchor.fit_blend(net[group], anc[group], target[group], weights[group]))

    df = spiky_panel()
    kw = dict(horizon=12, context_length=48, **FAST)
    model = TSForecaster(**kw).fit(df)
    assert model.log_series_.tolist() == [False] * 4 + [True]
    assert 0.0 <= model.log_blend_ <= 1.0 and 0.0 <= model.blend_ <= 1.0

    def blended(parts, log):  # (n, 12) forecasts of the shares, held by the caller
        net, anc = (np.asarray(parts[k], dtype=float).reshape(len(log), 12) for k in ("network", "anchor"))
        own = model.blend_ * net + (1 - model.blend_) * anc
        on_log = np.exp(model.log_blend_ * np.log(net) + (1 - model.log_blend_) * np.log(anc))
        return np.where(np.asarray(log)[:, None], on_log, own)

    parts = {k: v.y for k, v in model.predict_components().items()}
    low = model.series_low_[:, 0].copy()
    low[4] = np.exp(low[4])
    expected = np.maximum(blended(parts, model.log_series_), low[:, None])
    kept = model.series_choice_ == 0  # the series that keep the blend
    assert kept.any()
    np.testing.assert_allclose(model.predict().y.to_numpy().reshape(5, 12)[kept], expected[kept], rtol=1e-6)
    # a batch of windows, each judged on its own rows: s1's on its own scale, s4's on the log scale
    windows = np.stack([df[df.unique_id == i].y.to_numpy()[-48:] for i in ("s1", "s4")])[..., None]
    parts = {k: v[..., 0] for k, v in model.predict_components(windows).items()}
    expected = np.maximum(blended(parts, [False, True]), windows.min(axis=1))
    np.testing.assert_allclose(model.predict(windows)[..., 0], expected, rtol=1e-6)
    # one share: every series on the log scale, or none
    assert TSForecaster(target_transform="log", **kw).fit(df).log_blend_ is None
    assert TSForecaster(target_transform=None, **kw).fit(df).log_blend_ is None
    # a model saved before the shares: one share for every series, as then
    state = model.__getstate__()
    state.pop("log_blend_")
    old = TSForecaster.__new__(TSForecaster)
    old.__setstate__(state)
    assert old.log_blend_ is None
    parts = {k: v[..., 0] for k, v in old.predict_components(windows).items()}
    model.log_blend_ = model.blend_  # the one share, in the expectation
    expected = np.maximum(blended(parts, [False, True]), windows.min(axis=1))
    np.testing.assert_allclose(old.predict(windows)[..., 0], expected, rtol=1e-6)


def spiky_panel() -> pd.DataFrame:
    """``panel()``'s four series lifted above zero (spanning less than a factor of 2), and a fifth
    that idles at 1 with a spike to 40-60 each day (an order of magnitude and more)."""
    df = panel()[["unique_id", "ds", "y"]].assign(y=lambda d: d.y + 50.0)
    t = np.arange(140)
    spikes = 1.0 + np.where(t % 24 == 20, 40.0 + 20.0 * np.random.default_rng(1).random(140), 0.0)
    extra = pd.DataFrame({"unique_id": "s4", "ds": pd.date_range("2021-03-01", periods=140, freq="h"),
                          "y": spikes})  # fmt: skip
    return pd.concat([df, extra], ignore_index=True)


def test_spiky_series_are_forecast_on_the_log_scale():
    """``target_transform='auto'`` reads a long frame's spiky positive series on the log scale:
    every output is the same model fitted with ``target_transform=None`` on the frame with those
    series' ``log(y)``, ``exp()`` back for them (forecast, parts, quantiles, a long ``y``, a
    batch; without the anchor, whose share the log scale's series take apart from the others:
    ``log_blend_``, tested below); with the anchor the network and the anchor alone are that
    model's too; ``'log'`` takes every series; one series, covariates and non-positive series
    stay on their own scale; ``'log'`` of a non-positive value is an error naming the series."""
    df = spiky_panel()
    kw = dict(horizon=12, context_length=48, **FAST)
    spiky = df.unique_id == "s4"
    logged = df.assign(y=np.where(spiky, np.log(df.y), df.y))
    anchored = TSForecaster(**kw).fit(df)
    anchored_ref = TSForecaster(target_transform=None, **kw).fit(logged)
    assert anchored.log_series_.tolist() == [False] * 4 + [True] and anchored.log_blend_ is not None
    kw["anchor"] = None
    model = TSForecaster(**kw).fit(df)
    assert model.log_series_.tolist() == [False] * 4 + [True]
    ref = TSForecaster(target_transform=None, **kw).fit(logged)
    assert ref.log_series_ is None

    def same(ours, theirs, n=5):
        theirs = np.asarray(theirs, dtype=float).reshape(n, 12, -1).copy()
        theirs[-1] = np.exp(theirs[-1])  # s4, the last series
        np.testing.assert_allclose(np.asarray(ours, dtype=float).reshape(n, 12, -1), theirs, rtol=1e-6)

    same(model.predict().y, ref.predict().y)
    same(model.predict(y=df).y, ref.predict(y=logged).y)
    ours, theirs = model.predict_components(), ref.predict_components()
    assert ours["anchor"] is None and theirs["anchor"] is None
    for name in ("forecast", "network"):
        same(ours[name].y, theirs[name].y)
    ours, theirs = anchored.predict_components(), anchored_ref.predict_components()
    for name in ("network", "anchor"):
        same(ours[name].y, theirs[name].y)
    q, q_ref = model.predict_quantiles(alpha=(0.1, 0.9)), ref.predict_quantiles(alpha=(0.1, 0.9))
    same(q[[0.1, 0.9]], q_ref[[0.1, 0.9]])
    def windows_of(frame):  # s1's and s4's last contexts, a batch
        return np.stack([frame[frame.unique_id == i].y.to_numpy()[-48:] for i in ("s1", "s4")])[..., None]

    windows = windows_of(df)
    same(model.predict(windows), ref.predict(windows_of(logged)), n=2)
    following = model.make_future_dataframe().assign(y=100.0)
    expected = -np.mean((model.predict().y.to_numpy() - 100.0) ** 2)  # in the series' units
    assert model.score(following) == pytest.approx(expected)
    every = TSForecaster(target_transform="log", **kw).fit(df)
    assert every.log_series_.all()
    # not taken: a value at or below zero, covariates, one series
    signed = panel()[["unique_id", "ds", "y"]]
    assert signed.y.min() <= 0
    assert TSForecaster(**kw).fit(pd.concat([signed, df[spiky]])).log_series_.tolist() == [False] * 4 + [True]
    assert TSForecaster(**kw).fit(signed).log_series_ is None
    covariates = spiky_panel().assign(temp=0.5)
    assert TSForecaster(**kw).fit(covariates).log_series_ is None
    assert TSForecaster(**kw).fit(df[spiky].y.to_numpy()).log_series_ is None
    with pytest.raises(ValueError, match=r"at or below zero .* in series 's0'"):
        TSForecaster(target_transform="log", **kw).fit(signed)
    with pytest.raises(ValueError, match=r"in series 's2'.*target_transform='auto'"):
        every.predict(y=df.assign(y=np.where(df.unique_id == "s2", -1.0, df.y)))
    with pytest.raises(ValueError, match="y_context has a value at or below zero"):
        every.predict(-windows)
    # 'auto' leaves a series it does not take on its own scale, at or below zero too
    assert np.isfinite(model.predict(y=df.assign(y=np.where(df.unique_id == "s2", -1.0, df.y))).y).all()


def test_the_auto_rule_takes_swings_around_a_level_not_growth():
    """``'auto'``'s rule (:meth:`LogScale.select` with ``spiky``): a series idling at 1 with
    spikes to 41 is taken; one that grew fiftyfold over its context, one that spans less than a
    factor of 10 and one with a value at or below zero are not; ``'log'`` takes every series."""
    spiky, every = LogScale(spiky=True), LogScale()
    t = np.arange(120.0)
    spikes = 1.0 + 40.0 * (t % 24 == 20)
    growth = np.exp(np.linspace(0.0, np.log(50.0), 120))
    narrow = 50.0 + 10.0 * np.sin(2 * np.pi * t / 24)
    rows = [x[:, None] for x in (spikes, growth, narrow, spikes - 1.0)]
    assert spiky.select(rows, 1, 96).tolist() == [True, False, False, False]
    assert every.select(rows, 1, 96).all()
    # only the last context counts: the spikes before a flat context do not
    assert not spiky.select([np.r_[spikes, np.full(96, 5.0)][:, None]], 1, 96)[0]
    # back from the log scale, a forecast is held at or below the context's top times its span
    contexts = np.log([[1.0], [10.0]])[None]  # (1, L=2, C=1): top 10, span 10
    out = every.inverse(np.log([[[5.0], [50.0], [1e300]]]), contexts)
    np.testing.assert_allclose(out[0, :, 0], [5.0, 50.0, 100.0])
    chain = ScaleChain(series=every)
    assert chain.from_series_scale(np.zeros((1, 3, 1)), None, contexts).sum() == 0  # no series


@pytest.mark.parametrize("options", [{"head": "fourier"}, {"tokens": "variate"},
                                     {"patch_stride": "half"}])  # fmt: skip
def test_covariates_are_read_by_every_registered_head_and_view(options):
    """Covariates are a capability of the network's views, not of one head: a fit with them
    trains and forecasts with the Fourier head, variate tokens and overlapping patches too."""
    df = panel()
    model = TSForecaster(horizon=6, context_length=24, future_covariates=["load_fc"], **options,
                         **FAST).fit(df)  # fmt: skip
    assert model.module_.covariates is not None and model.anchor_ == "lear"
    out = model.predict(X=future_rows(model))
    assert len(out) == 4 * 6 and np.isfinite(out.y).all()
