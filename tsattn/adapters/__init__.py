"""Adapters to other toolkits' estimator interfaces; each imports its toolkit lazily.

``tsattn.adapters.sktime.TSAttnForecaster`` (needs ``pip install 'tsattn[sktime]'``).
``tsattn.adapters.aeon.TSAttnAeonClassifier`` and ``TSAttnAeonRegressor`` (aeon is a core
dependency).
"""
