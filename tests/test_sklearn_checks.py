"""scikit-learn's own estimator checks over both estimators, with tiny, fast configurations."""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from tsattn import TSClassifier, TSRegressor

SMALL = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_epochs=40, lr=3e-3, random_state=0)

# Each expected failure is named with the reason it cannot pass for a sequence model.
EXPECTED_FAILED = {}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILED.get(type(estimator).__name__, {})


@parametrize_with_checks(
    [TSClassifier(**SMALL), TSRegressor(**SMALL)],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
