"""The covariates' roles (:mod:`tsattn.estimators.forecaster.roles`), and the recipe for a new
one followed once: a toy role registered in this module and trained through the estimator."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from tests.estimators.test_forecast_panel import FAST, future_rows, panel
from tsattn import TSForecaster
from tsattn.estimators.forecaster import roles
from tsattn.estimators.forecaster.roles import CovariateRole, Covariates, list_roles, register_role
from tsattn.estimators.params import declare, param


def test_the_roles_say_where_a_window_reads_each_column():
    assert {"past", "future"} <= set(list_roles())
    covariates = Covariates(("load", "temp"), ("future", "past"), (0,))
    known = covariates.known(3, 2)
    assert known[:, 0].tolist() == [1, 1, 1, 1, 1] and known[:, 1].tolist() == [1, 1, 1, 0, 0]
    assert covariates.future == (0,) and covariates.future_names == ["load"]
    assert covariates.network() == {"n_covariates": 2, "future": [0], "decoder": True}
    assert Covariates().network() is None
    est = TSForecaster(future_covariates=["temp", "load"])
    listed = Covariates.assign(["load", "temp", "flag"], est)
    assert listed.roles == ("future", "future", "past") and listed.future == (1, 0)  # as listed
    with pytest.raises(ValueError, match="role must be one of"):
        roles.get_role("futur")


# ----------------------------------------------------------------------------- the recipe
class Ahead(CovariateRole):
    """A toy role: a column read on the horizon's rows only (a plan known ahead whose history
    says nothing, e.g. a promotion calendar)."""

    summary = "toy: the horizon's rows only"
    context = False
    horizon = True
    parameter = "ahead_covariates"


@declare
class AheadForecaster(TSForecaster):
    """``TSForecaster`` with the toy role's parameter (step 2 of the recipe)."""

    ahead_covariates: list | None = param(None, [list, tuple, None],
                                          "Covariates read on the horizon's rows only.")


@pytest.fixture
def ahead_role():
    register_role("ahead")(Ahead)  # step 1 of the recipe: one class, registered
    try:
        yield "ahead"
    finally:
        roles._ROLES.pop("ahead")


def test_a_new_role_is_one_registered_class_and_its_parameter(ahead_role):
    """The recipe of :mod:`tsattn.estimators.forecaster.roles` followed once: the toy role's
    columns are read on the horizon's rows and never on the context's, by the network and the
    anchor alike; predict asks for their horizon rows; the model pickles."""
    df = panel()
    model = AheadForecaster(horizon=6, context_length=24, ahead_covariates=["load_fc"], **FAST)
    model.fit(df)
    plan = model.fit_plan_
    assert plan.covariates.roles == ("ahead", "past") and plan.covariates.future == (0,)
    with pytest.raises(ValueError, match=r"future covariates \['load_fc'\]"):
        model.predict()
    base = model.predict(X=future_rows(model)).y.to_numpy()
    assert not np.allclose(base, model.predict(X=future_rows(model, 2.0)).y.to_numpy())
    # a batch: the toy column's context rows are never read, its horizon rows are
    s = df[df.unique_id == "s1"]
    y_ctx = np.stack([s.y.to_numpy()[i : i + 24] for i in range(3)])
    x_win = np.stack([s[["load_fc", "temp"]].to_numpy()[i : i + 30] for i in range(3)])
    history, ahead = x_win.copy(), x_win.copy()
    history[:, :24, 0] = x_win[:, 23::-1, 0]  # reversed: another history, the same statistics
    ahead[:, 24:, 0] += 5.0
    out = model.predict(y_ctx, X=x_win)
    np.testing.assert_allclose(model.predict(y_ctx, X=history), out, rtol=1e-10)
    assert not np.allclose(model.predict(y_ctx, X=ahead), out)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_allclose(again.predict(y_ctx, X=x_win), out, rtol=1e-6)
