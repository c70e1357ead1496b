"""Long frames of many series: every bad input is named; the real panels (EPF, M4) read whole."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.helpers.datasets import isolate
from tsattn.io.panel import read_future_covariates, read_panel


def _panel(n_series=3, length=10, start="2020-01-01", freq="h", covariates=True) -> pd.DataFrame:
    rows = []
    for i in range(n_series):
        ds = pd.date_range(start, periods=length + i, freq=freq)  # lengths differ
        frame = pd.DataFrame({"unique_id": f"s{i}", "ds": ds,
                              "y": np.arange(len(ds), dtype=float) * (i + 1)})
        if covariates:
            frame["load"] = np.sin(np.arange(len(ds)) + i)
            frame["temp"] = np.cos(np.arange(len(ds)) * 0.5 + i)
        rows.append(frame)
    return pd.concat(rows, ignore_index=True)


def test_panel_sorted_with_offsets_and_future_rows():
    df = _panel()
    shuffled = df.sample(frac=1.0, random_state=0)  # any row order
    p = read_panel(shuffled, future_covariates=["load"])
    assert list(p.ids) == ["s0", "s1", "s2"] and list(p.lengths) == [10, 11, 12]
    assert p.covariate_names == ("load", "temp") and p.future_covariates == ("load",)
    assert p.step == pd.tseries.frequencies.to_offset("h") and p.constant_covariates == ()
    y1, x1 = p.series(1)
    np.testing.assert_array_equal(y1, df.loc[df.unique_id == "s1", "y"].to_numpy())
    np.testing.assert_array_equal(x1, df.loc[df.unique_id == "s1", ["load", "temp"]].to_numpy())
    nxt = p.future_ds(2)
    assert list(nxt["unique_id"]) == ["s0", "s0", "s1", "s1", "s2", "s2"]
    assert nxt["ds"].iloc[2] == df.loc[df.unique_id == "s1", "ds"].max() + pd.Timedelta(hours=1)
    X_next = nxt.assign(load=np.arange(6.0))
    future = read_future_covariates(X_next, p, 2)
    assert future.shape == (3, 2, 1) and future[1, 1, 0] == 3.0


def test_covariates_in_a_separate_frame_and_integer_ds():
    df = _panel(covariates=False)
    df["ds"] = df.groupby("unique_id").cumcount() + 1
    X = df[["unique_id", "ds"]].assign(price=df["y"] * 2).iloc[::-1]
    p = read_panel(df, X)
    assert p.step == 1 and p.covariate_names == ("price",)
    np.testing.assert_array_equal(p.covariates[:, 0], p.y * 2)
    assert list(p.future_ds(1)["ds"]) == [11, 12, 13]


def test_monthly_steps_and_mixed_frequencies():
    monthly = _panel(freq="MS", covariates=False)
    assert read_panel(monthly).step == pd.tseries.frequencies.to_offset("MS")
    mixed = pd.concat([monthly, _panel(1, freq="QS", covariates=False).assign(unique_id="q")])
    with pytest.raises(ValueError, match="different frequencies"):
        read_panel(mixed)
    with pytest.raises(ValueError, match="series 's1' has irregular times or a gap"):
        read_panel(monthly.drop(index=15))
    with pytest.raises(ValueError, match="another frequency"):
        read_panel(pd.concat([_panel(covariates=False),
                              _panel(1, freq="D", covariates=False).assign(unique_id="d")]))


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.drop(columns="y"), r"no column\(s\) \['y'\]"),
    (lambda d: pd.concat([d, d.iloc[[3]]]), r"1 repeated \(unique_id, ds\) rows \(first: series 's0'"),
    (lambda d: d.drop(index=4), r"series 's0' steps from ds 2020-01-01 03:00:00 to .*05:00:00"),
    (lambda d: d.assign(ds=d["ds"].astype(str)), "ds must hold datetimes or integers"),
    (lambda d: d.assign(y=d["y"].where(d.index != 12)), r"'y' has 1 missing .*series 's1'"),
    (lambda d: d.assign(load=d["load"].where(d.index != 5)), r"'load' has 1 missing"),
    (lambda d: d.assign(temp="warm"), r"column\(s\) \['temp'\] are not numeric"),
    (lambda d: d.iloc[:0], "no rows"),
])  # fmt: skip
def test_bad_long_frames_are_named(change, message):
    with pytest.raises(ValueError, match=message):
        read_panel(change(_panel()))


def test_misaligned_covariates_and_unknown_future_column():
    df = _panel(covariates=False)
    X = df[["unique_id", "ds"]].assign(load=1.0 + np.arange(len(df)))
    with pytest.raises(ValueError, match=r"X has no row for 1 .*misaligned"):
        read_panel(df, X.iloc[1:])
    extra = pd.concat([X, pd.DataFrame({"unique_id": ["s0"], "ds": [pd.Timestamp("2030-01-01")],
                                        "load": [0.0]})])  # fmt: skip
    with pytest.raises(ValueError, match=r"beyond the rows of y.*predict\(X=\.\.\.\)"):
        read_panel(df, extra)
    with pytest.raises(ValueError, match=r"repeated \(unique_id, ds\)"):
        read_panel(df, pd.concat([X, X.iloc[[0]]]))
    with pytest.raises(ValueError, match="both in y and in X"):
        read_panel(df.assign(load=0.5), X)
    with pytest.raises(ValueError, match=r"future_covariates names \['wind'\]"):
        read_panel(df, X, future_covariates=["wind"])


def test_constant_covariate_warns_and_is_listed():
    with pytest.warns(UserWarning, match=r"\['flag'\] are constant"):
        p = read_panel(_panel().assign(flag=1.0))
    assert p.constant_covariates == ("flag",)


def test_future_covariates_at_predict_are_checked():
    p = read_panel(_panel(), future_covariates=["load", "temp"])
    grid = p.future_ds(3).assign(load=1.0, temp=2.0)
    assert read_future_covariates(grid, p, 3).shape == (3, 3, 2)
    with pytest.raises(ValueError, match=r"needs the horizon's rows of the future covariates"):
        read_future_covariates(None, p, 3)
    with pytest.raises(ValueError, match=r"no column\(s\) \['temp'\]"):
        read_future_covariates(grid.drop(columns="temp"), p, 3)
    with pytest.raises(ValueError, match=r"X has no row for 1 .*first: series 's2'"):
        read_future_covariates(grid.iloc[:-1], p, 3)
    with pytest.raises(ValueError, match=r"series \['new'\] that are not in the fitted panel"):
        read_future_covariates(pd.concat([grid, grid.iloc[:1].assign(unique_id="new")]), p, 3)
    with pytest.raises(ValueError, match="'temp' has 1 missing"):
        read_future_covariates(grid.assign(temp=grid["temp"].where(grid.index != 0)), p, 3)
    assert read_panel(_panel()).future_covariates == ()  # all past-only unless named


def test_loaded_panels_read_whole(monkeypatch, shared_datasets):
    """The loaders' frames are valid panels: EPF hourly with two future covariates, M4 steps."""
    from tsattn.datasets import epf_info, load_epf, load_m4

    isolate(monkeypatch, shared_datasets)
    info = epf_info("PJM")
    p = read_panel(load_epf("PJM"), future_covariates=info.future_covariates)
    assert p.lengths.tolist() == [52416] and p.covariates.shape == (52416, 2)
    assert p.step == pd.tseries.frequencies.to_offset("h")
    m4 = read_panel(load_m4("Hourly"))
    assert len(m4.ids) == 414 and m4.step == 1 and m4.lengths.min() == 700
