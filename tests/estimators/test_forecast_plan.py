"""The fit plan: the kind of fit ({one series, a long frame} x {covariates or not}) decided once
(:mod:`tsattn.estimators.forecaster.plan`), and no other module of the forecaster branching on it."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from tests.estimators.test_forecast_panel import FAST, panel
from tsattn import TSForecaster
from tsattn.estimators.forecaster.frames import read_fit
from tsattn.estimators.forecaster.plan import FitPlan
from tsattn.estimators.forecaster.scales import AsinhScale, LogScale

PACKAGE = Path(__file__).resolve().parents[2] / "tsattn" / "estimators"


def _plan(y, X=None, **params) -> FitPlan:
    est = TSForecaster(horizon=6, context_length="auto", **FAST, **params)
    return FitPlan.decide(est, read_fit(y, X, None, "TSForecaster"))


def test_the_plan_decides_each_kind_of_fit():
    df = panel(lengths=(200, 150, 120))
    one = df[df.unique_id == "s0"]
    cases = {
        "series": _plan(one.y.to_numpy()),
        "series + covariates": _plan(one.y.to_numpy(), one[["load_fc"]].to_numpy(),
                                     future_covariates=[0]),  # fmt: skip
        "long frame": _plan(df[["unique_id", "ds", "y"]]),
        "long frame + covariates": _plan(df, future_covariates=["load_fc"]),
    }
    got = {name: (p.panel, len(p.covariates), type(p.scales.series).__name__,
                  type(p.scales.standardised).__name__, p.scales.floor, p.anchor, p.weighted,
                  p.refit, p.choice) for name, p in cases.items()}  # fmt: skip
    assert got == {
        "series": (False, 0, "NoneType", "NoneType", False, "auto", False, True, False),
        "series + covariates": (False, 1, "NoneType", "AsinhScale", False, "lear", False, False,
                                False),
        "long frame": (True, 0, "LogScale", "NoneType", True, "auto", True, True, True),
        "long frame + covariates": (True, 2, "NoneType", "AsinhScale", False, "lear", False,
                                    False, False),
    }  # fmt: skip
    assert cases["long frame"].scales.series.spiky  # 'auto': the spiky series only
    assert cases["series"].context_length == 96 and cases["long frame"].context_length == 72
    assert cases["long frame + covariates"].covariates.roles == ("future", "past")
    # 'auto' resolved once: the names ask for one scale whatever the kind of fit
    assert isinstance(_plan(one.y.to_numpy(), target_transform="log").scales.series, LogScale)
    asked = _plan(df[["unique_id", "ds", "y"]], target_transform="asinh").scales
    assert isinstance(asked.standardised, AsinhScale) and asked.series is None
    assert _plan(df[["unique_id", "ds", "y"]], anchor=None).anchor is None


def test_a_fitted_model_reads_its_kind_from_the_plan():
    df = panel(lengths=(200, 150))[["unique_id", "ds", "y"]]
    model = TSForecaster(horizon=6, context_length=24, **FAST).fit(df)
    assert model.fit_plan_.panel and model.fit_plan_.choice and model.series_choice_ is not None
    one = TSForecaster(horizon=6, context_length=24, **FAST).fit(df.y.to_numpy()[:150])
    assert not one.fit_plan_.panel and one.series_choice_ is None
    with pytest.raises(ValueError, match="needs a model fitted on a long frame"):
        one.make_future_dataframe()
    assert np.isfinite(one.predict()).all()


#: Where the kind of a fit may be read from the input: the plan decides it, the readers parse the
#: input's form, the data object packs its samples by its covariates, and the saved-model reader
#: rebuilds plans of old models.
DECIDERS = {"plan.py", "frames.py", "data.py", "saved.py"}
#: What a branch on the kind of fit reads: a long frame's ids or kind, or the covariates' count.
INDICATORS = {"long", "series_ids_", "input_kind_", "covariates_", "ids", "is_long_frame"}


def _branches_on_the_kind(test: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(test):
        name = (node.attr if isinstance(node, ast.Attribute)
                else node.id if isinstance(node, ast.Name) else None)  # fmt: skip
        if name in INDICATORS:
            found.append(name)
        if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "len" and node.args
                and "covariates" in ast.unparse(node.args[0])):  # fmt: skip
            found.append(ast.unparse(node))
    return found


def test_no_module_but_the_plan_branches_on_the_kind_of_fit():
    """A condition (``if``, a conditional expression, a comprehension's filter, ``and``/``or``)
    outside :data:`DECIDERS` that reads a long frame's ids or kind or the covariates' count would
    decide the kind of fit again: it must read the plan's fields (``panel``, ``choice``,
    ``weighted``, ``refit``, the anchor, the scale chain) instead."""
    files = [PACKAGE / "forecasting.py", *sorted((PACKAGE / "forecaster").glob("*.py"))]
    offending = []
    for path in files:
        if path.name in DECIDERS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            tests = []
            if isinstance(node, (ast.If, ast.IfExp, ast.While)):
                tests.append(node.test)
            elif isinstance(node, ast.comprehension):
                tests.extend(node.ifs)
            elif isinstance(node, ast.BoolOp):
                tests.extend(node.values)
            for test in tests:
                offending += [f"{path.name}:{test.lineno}: {what}"
                              for what in _branches_on_the_kind(test)]  # fmt: skip
    assert len(files) > 10 and not offending, offending
