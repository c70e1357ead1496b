"""Checks that collections and series share, each error worded once."""

from __future__ import annotations

import numpy as np

__all__ = ["check_channels"]


def check_channels(n_channels: int, n_fitted: int, what: str, owner: str) -> None:
    """Refuse input whose number of channels differs from the one ``owner`` was fitted on.

    Parameters
    ----------
    n_channels : int
        Channels of the input ``what`` (``"X"``, ``"y_context"``...).
    n_fitted : int
        Channels seen in fit.
    what : str
        The input's name, as the error states it.
    owner : str
        The estimator's name, as the error states it (``"TSClassifier"``...).

    Raises
    ------
    ValueError
        When ``n_channels != n_fitted``.
    """
    if n_channels != n_fitted:
        raise ValueError(
            f"{what} has {n_channels} channel(s) but {owner} was fitted on {n_fitted}; pass "
            "the same channels as in fit."
        )


def standardisation(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel mean and scale of ``values (rows, C)``; a constant channel keeps scale 1."""
    std = values.std(axis=0)
    return values.mean(axis=0), np.where(std > 1e-12, std, 1.0)
