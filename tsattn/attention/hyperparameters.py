"""How a variant declares its hyperparameters: name, default, documentation, constraint, tuning space.

Each variant file declares its :class:`HyperParameter` objects once (``beta`` in ``batch_norm.py``,
``scales`` in ``scaled_heads.py``...) and lists them in its classes' ``hyperparameters``; variants
that share one (``bn_sh`` takes ``beta`` and ``scales``) import the same object. Everything else
reads these declarations: the registry (defaults, which variant takes what), the estimators (their
flat parameters' constraints and documentation), :mod:`tsattn.tuning` (search spaces) and the
README's variants table. Tuning spaces are plain data here (:class:`FloatRange`, :class:`Choice`),
so this floor does not import Optuna.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

from tsattn._validation import check_value

__all__ = ["HyperParameter", "FloatRange", "Choice"]


@dataclass(frozen=True)
class FloatRange:
    """Tune a float in ``[low, high]`` (on a grid of ``step`` when given, log-uniform with ``log``)."""

    low: float
    high: float
    step: float | None = None
    log: bool = False


@dataclass(frozen=True)
class Choice:
    """Tune by picking one of ``choices``: a sequence, or a function of ``n_heads`` giving one."""

    choices: Sequence[Any] | Callable[[int], Sequence[Any]]

    def options(self, n_heads: int) -> list[Any]:
        return list(self.choices(n_heads) if callable(self.choices) else self.choices)


@dataclass(frozen=True)
class HyperParameter:
    """One hyperparameter of an attention variant.

    Parameters
    ----------
    name : keyword of the variant's constructor and flat parameter of the estimators.
    default : the value the variant uses when none is given (``None`` where the default depends on
        the sizes, e.g. ``scales`` on ``n_heads``).
    type : the type as documentation writes it (``"float"``, ``"tuple of int"``).
    doc : what it does, for the variant's and the estimators' documentation.
    constraint : the values allowed, as scikit-learn ``_param_validation`` constraints; the
        estimators also accept ``None`` (the variant's default).
    space : the default tuning range, or None when it is not tuned by default.
    sized : a length the network sets when it is left None: the number of tokens of the longest
        series the network is built for (:meth:`tsattn.attention.AttentionSpec.sized`), e.g.
        ``s3``'s ``max_len``.
    """

    name: str
    default: Any
    type: str
    doc: str
    constraint: tuple[Any, ...]
    space: FloatRange | Choice | None = None
    sized: bool = False

    def check(self, value: Any) -> Any:
        """``value`` if it satisfies the constraint (ints as Python ints); a clear error otherwise."""
        check_value(self.name, value, self.constraint)
        return int(value) if isinstance(value, Integral) and not isinstance(value, bool) else value
