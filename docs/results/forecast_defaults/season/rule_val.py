"""The season from the values (issue 77, item 4): candidate rules read on the shared panels'
TRAINING rows and judged on their VALIDATION rows; no TEST row is read. Prints JSON lines
(``rule_val.jsonl``): what each rule chose on each set with the seasonal naive forecast's
validation error at each season (``set``), each rule's picks for each series or channel alone
(``units``), for the last 75-400 rows of each M4 Hourly series alone (``short``) and in panels of
10 (``short panel``), and how often it finds a season where none is (``null``: synthetic series
alone, ``null panel``: panels of 20 of them).

    TSATTN_DATA_DIR=$DATA PYTHONPATH=. OMP_NUM_THREADS=1 python docs/results/forecast_defaults/season/rule_val.py > docs/results/forecast_defaults/season/rule_val.jsonl

The sets, each as a fit sees it (one long frame, or one multichannel series): M4 Hourly's training
file less the last 48 steps of each series (those 48 are its validation rows, as
``docs/results/panels/m4_val.py`` holds them); ETTh1, ETTh2, ETTm1, exchange_rate and illness,
their standard training split (validation: the standard validation split, every window, horizon
96, illness 24); EPF NP, PJM and BE, the price's first 70% of rows (validation: the next 10%, every
24-step window). The validation error: M4, mean sMAPE and MASE (m = 24) of the last ``s`` steps
repeated; the others, MSE on the training rows' standardisation.

Every rule reads :func:`tsattn.io.season.pooled_acf` of the series (raw, ``difference=0``, or
first differences, ``difference=1``) over the lags 2 to ``min(400, median length // 3)``:

- ``raw t``: the lag of the highest local peak of the raw autocorrelation, if it reaches ``t``.
- ``diff t``: the same on the first differences.
- ``rawdiff t/t2``: the highest raw peak, if it reaches ``t`` and the differences'
  autocorrelation at that lag reaches ``t2``.
- ``bartlett c``: the highest raw peak, if it reaches ``c`` standard errors of Bartlett's formula
  (``sqrt((1 + 2 sum_{k<s} r_k^2) / n)``, ``n`` the median length: the M4 benchmarks'
  seasonality test at the chosen lag).
- ``both t/c``: the highest raw peak, if it reaches ``t`` and ``c`` of those standard errors.
- ``pooled t/c``: the same with ``n`` every value pooled (the series' lengths times their
  channels): the rule adopted, :func:`tsattn.io.season.season_from_data` at ``t = 0.3``,
  ``c = 1.5`` (its picks beside the others, ``season_from_data``, to show they agree).
- ``half t``: the lag where the raw autocorrelation exceeds that at half the lag the most, if by
  ``t``.
"""

import json
import sys

import numpy as np

from tsattn.benchmarks.m4_scores import mase_scale, smape
from tsattn.datasets import forecasting_splits, load_epf, load_forecasting, load_m4
from tsattn.io.season import pooled_acf, season_from_data

MAX_LAG = 400
SEASONS = [1, 7, 12, 24, 48, 52, 96, 168, 336]  # the validation error's seasons, with each pick's


def peaks(a: np.ndarray, lags: np.ndarray) -> np.ndarray:
    return lags[(a[lags] > a[lags - 1]) & (a[lags] >= a[lags + 1])]


class Acf:
    """The raw and differenced pooled autocorrelations of some series, and their lengths."""

    def __init__(self, rows: list[np.ndarray]) -> None:
        self.n = int(np.median([len(r) for r in rows]))
        self.total = sum(len(r) * (r.shape[1] if r.ndim == 2 else 1) for r in rows)
        self.top = max(3, min(MAX_LAG, self.n // 3))
        self.raw = pooled_acf(rows, self.top + 1, 0)
        self.diff = pooled_acf(rows, self.top + 1, 1)
        self.lags = np.arange(2, self.top + 1)


def highest(a: np.ndarray, lags: np.ndarray) -> int:
    p = peaks(a, lags)
    return int(p[np.argmax(a[p])]) if len(p) else 1


def rule(name: str, acf: Acf, t: float, t2: float = 0.0) -> int:
    raw, diff, lags = acf.raw, acf.diff, acf.lags
    if name == "diff":
        s = highest(diff, lags)
        return s if s > 1 and diff[s] >= t else 1
    if name == "half":
        p = peaks(raw, lags)
        if not len(p):
            return 1
        gain = raw[p] - raw[p // 2]
        return int(p[np.argmax(gain)]) if gain.max() >= t else 1
    s = highest(raw, lags)
    if s == 1:
        return 1
    if name == "raw":
        return s if raw[s] >= t else 1
    if name == "rawdiff":
        return s if raw[s] >= t and diff[s] >= t2 else 1
    se = np.sqrt((1 + 2 * np.sum(raw[1:s] ** 2)) / acf.n)
    if name == "bartlett":
        return s if raw[s] >= t * se else 1
    if name == "both":
        return s if raw[s] >= max(t, t2 * se) else 1
    if name == "pooled":  # Bartlett's standard error over every value pooled
        se = np.sqrt((1 + 2 * np.sum(raw[1:s] ** 2)) / acf.total)
        return s if raw[s] >= max(t, t2 * se) else 1
    raise ValueError(name)


RULES = {"raw .1": ("raw", 0.1), "raw .2": ("raw", 0.2), "raw .3": ("raw", 0.3),
         "diff .05": ("diff", 0.05), "diff .1": ("diff", 0.1),
         "rawdiff .2/.02": ("rawdiff", 0.2, 0.02), "rawdiff .2/.05": ("rawdiff", 0.2, 0.05),
         "bartlett 2": ("bartlett", 2.0), "bartlett 3": ("bartlett", 3.0),
         **{f"both .{int(t * 100)}/{c}": ("both", t, c) for t in (0.1, 0.2, 0.25, 0.3)
            for c in (1.5, 2, 2.5, 3)},
         "pooled .3/1.5": ("pooled", 0.3, 1.5), "pooled .3/2": ("pooled", 0.3, 2.0),
         "half .1": ("half", 0.1), "half .2": ("half", 0.2)}  # fmt: skip


def windows_mse(z: np.ndarray, start: int, end: int, horizon: int, s: int) -> float:
    """MSE of the last ``s`` values repeated, forecasting ``z[t:t+horizon]`` for every origin
    ``start <= t <= end - horizon`` (``z (T, C)``)."""
    t = np.arange(start, end - horizon + 1)
    pred = z[t[:, None] - s + (np.arange(horizon) % s)[None, :]]
    return float(np.mean((pred - z[t[:, None] + np.arange(horizon)[None, :]]) ** 2))


def sets():
    """``(name, training rows (list of arrays), validation error of the season s)`` per set."""
    m4 = load_m4("Hourly")
    held = m4.groupby("unique_id").tail(48)
    fit = m4.drop(held.index)
    truth = held.y.to_numpy().reshape(-1, 48)
    series = [g.y.to_numpy() for _, g in fit.groupby("unique_id")]
    scale = np.array([mase_scale(v, 24) for v in series])

    def m4_error(s):
        pred = np.stack([np.resize(v[-s:], 48) for v in series])
        return (round(float(np.mean(smape(truth, pred))), 3),
                round(float(np.mean(np.mean(np.abs(truth - pred), 1) / scale)), 4))

    yield "M4 Hourly", series, m4_error
    for name in ["ETTh1", "ETTh2", "ETTm1", "exchange_rate", "illness"]:
        frame = load_forecasting(name)
        context, horizon = (36, 24) if name == "illness" else (96, 96)
        splits = forecasting_splits(frame, name, context)
        z = splits.scaler.transform(frame.to_numpy())[: splits.borders[1][1]]
        start = splits.borders[1][0] + context
        yield name, [splits.train.to_numpy()], \
            lambda s, z=z, start=start, h=horizon: round(windows_mse(z, start, len(z), h, s), 4)
    for market in ["NP", "PJM", "BE"]:
        y = load_epf(market).y.to_numpy()
        n_tr, n_te = int(0.7 * len(y)), int(0.2 * len(y))
        end = len(y) - n_te
        z = ((y - y[:n_tr].mean()) / y[:n_tr].std())[:end, None]
        yield f"EPF {market}", [y[:n_tr]], \
            lambda s, z=z, n_tr=n_tr, end=end: round(windows_mse(z, n_tr, end, 24, s), 4)


def channels(rows: list[np.ndarray]) -> list[np.ndarray]:
    return [r[:, j] for r in rows for j in range(r.shape[1])] if rows[0].ndim == 2 else rows


def null_series(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    e = rng.standard_normal(n)
    if kind == "white noise":
        return e
    if kind == "random walk":
        return np.cumsum(e)
    if kind == "random walk, drift":
        return np.cumsum(e + 0.2)
    x = np.zeros(n)  # AR(1) at 0.9
    for t in range(1, n):
        x[t] = 0.9 * x[t - 1] + e[t]
    return x


def main() -> None:
    for name, rows, error in sets():
        acf = Acf(rows)
        picks = {label: rule(*spec[:1], acf, *spec[1:]) for label, spec in RULES.items()}
        picks["season_from_data"] = season_from_data(rows)
        seasons = sorted(set(SEASONS) | set(picks.values()))
        print(json.dumps({"kind": "set", "set": name, "n": acf.n, "picks": picks,
                          "error": {s: error(s) for s in seasons}}), flush=True)
        # each series or channel alone: the share of each pick
        units = channels(rows)
        alone = [Acf([u]) for u in units]
        shares = {}
        for label, spec in RULES.items():
            got = [rule(spec[0], a, *spec[1:]) for a in alone]
            values, counts = np.unique(got, return_counts=True)
            shares[label] = {int(v): int(c) for v, c in zip(values, counts, strict=True)}
        print(json.dumps({"kind": "units", "set": name, "units": len(units), "picks": shares}),
              flush=True)
        if name == "M4 Hourly":  # shorter series: the last n rows of each M4 Hourly series alone
            for n in [75, 100, 200, 400]:           # and panels of 10 of them
                alone = [Acf([u[-n:]]) for u in units]
                panels = [Acf([u[-n:] for u in units[i : i + 10]]) for i in range(0, 410, 10)]
                found = {label: int(sum(rule(spec[0], a, *spec[1:]) == 24 for a in panels))
                         for label, spec in RULES.items()}
                print(json.dumps({"kind": "short panel", "set": name, "last": n, "panel": 10,
                                  "of": len(panels), "found_24": found}), flush=True)
                shares = {}
                for label, spec in RULES.items():
                    got = [rule(spec[0], a, *spec[1:]) for a in alone]
                    values, counts = np.unique(got, return_counts=True)
                    shares[label] = {int(v): int(c) for v, c in zip(values, counts, strict=True)}
                print(json.dumps({"kind": "short", "set": name, "last": n, "units": len(units),
                                  "picks": shares}), flush=True)
    rng = np.random.default_rng(0)
    for kind in ["white noise", "AR(1) 0.9", "random walk", "random walk, drift"]:
        for n in [100, 300, 1000, 3000]:
            alone = [Acf([null_series(kind, n, rng)]) for _ in range(100)]
            found = {label: int(sum(rule(spec[0], a, *spec[1:]) > 1 for a in alone))
                     for label, spec in RULES.items()}
            print(json.dumps({"kind": "null", "series": kind, "n": n, "of": 100,
                              "season_found": found}), flush=True)
            panels = [Acf([null_series(kind, n, rng) for _ in range(20)]) for _ in range(50)]
            found = {label: int(sum(rule(spec[0], a, *spec[1:]) > 1 for a in panels))
                     for label, spec in RULES.items()}
            print(json.dumps({"kind": "null panel", "series": kind, "n": n, "of": 50,
                              "panel": 20, "season_found": found}), flush=True)


if __name__ == "__main__" and not sys.flags.interactive:
    main()
