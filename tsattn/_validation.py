"""Parameter checks against scikit-learn constraints, with one message style.

Parameters are declared with the constraint objects of :mod:`sklearn.utils._param_validation`
(``Interval``, ``StrOptions``, ``"boolean"``, types, ``None``...), as scikit-learn's own
``_parameter_constraints``. :func:`check_value` tests a value against them and raises
:class:`~sklearn.utils._param_validation.InvalidParameterError` (a ``ValueError`` and a
``TypeError``) worded as every error of this package: ``"<name> must be <what is allowed>, got
<value>."``, followed by a hint where the declaration gives one. Booleans are not numbers here:
``True`` is no valid ``d_model``.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Sequence
from numbers import Integral
from typing import Any

from sklearn.utils._param_validation import (
    Hidden,
    Interval,
    InvalidParameterError,
    StrOptions,
    make_constraint,
)

__all__ = [
    "InvalidParameterError", "NONNEGATIVE_INT", "POSITIVE_INT", "check_value", "close_matches", "describe",
    "did_you_mean",
]

#: An integer >= 1 (numpy integers included).
POSITIVE_INT = Interval(Integral, 1, None, closed="left")
#: An integer >= 0.
NONNEGATIVE_INT = Interval(Integral, 0, None, closed="left")


def _describe_interval(c: Interval) -> str:
    if c.type is Integral and c.right is None and c.closed in ("left", "both"):
        if c.left == 1:
            return "a positive integer"
        if c.left == 0:
            return "a non-negative integer"
    noun = "an integer" if c.type is Integral else "a number"
    bounds = []
    if c.left is not None:
        bounds.append(f"{'>=' if c.closed in ('left', 'both') else '>'} {c.left:g}")
    if c.right is not None:
        bounds.append(f"{'<=' if c.closed in ('right', 'both') else '<'} {c.right:g}")
    if c.type is not Integral and (c.left is None or c.right is None):
        noun = "a finite number"  # an open unbounded side excludes infinity (sklearn's rule)
    return f"{noun} {' and '.join(bounds)}".strip()


def describe(constraint: Any) -> str:
    """What ``constraint`` allows, in words (``"a positive integer"``, ``"one of 'a', 'b'"``)."""
    c = make_constraint(constraint)
    if isinstance(c, Interval):
        return _describe_interval(c)
    if isinstance(c, StrOptions):
        return "one of " + ", ".join(repr(o) for o in sorted(c.options))
    if constraint == "boolean":
        return "True or False"
    if isinstance(constraint, type):
        return f"a {constraint.__name__}"
    return str(c)


def _satisfied(constraint: Any, value: Any) -> bool:
    c = make_constraint(constraint)
    if isinstance(value, bool) and isinstance(c, Interval):
        return False
    return c.is_satisfied_by(value)


def check_value(name: str, value: Any, constraints: Sequence[Any], hint: str = "") -> None:
    """Raise ``InvalidParameterError`` unless ``value`` satisfies one of ``constraints``."""
    if any(_satisfied(c, value) for c in constraints):
        return
    shown = [describe(c) for c in constraints if not isinstance(c, Hidden)]
    allowed = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
    got = "nan" if isinstance(value, float) and math.isnan(value) else repr(value)
    raise InvalidParameterError(f"{name} must be {allowed}, got {got}.{' ' + hint if hint else ''}")


def close_matches(name: Any, valid: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` of ``valid`` that look like ``name`` (:func:`difflib.get_close_matches`, cutoff
    0.6), compared case-insensitively when the exact spelling finds none."""
    valid = list(valid)
    close = difflib.get_close_matches(str(name), valid, n=n, cutoff=0.6)
    if not close:
        folded = {v.lower(): v for v in valid}
        close = [folded[m] for m in difflib.get_close_matches(str(name).lower(), list(folded), n, 0.6)]
    return close


def did_you_mean(name: Any, valid: Iterable[str], n: int = 3, quote: bool = True) -> str:
    """The hint every "unknown name" error of the package ends with: ``" Did you mean 'a', 'b'?"``
    (``quote=False``: the names bare), or ``""`` when nothing in ``valid`` looks like ``name``.

    >>> did_you_mean("bn_shh", ["bn", "bn_sh", "softmax"])
    " Did you mean 'bn_sh'?"
    """
    close = close_matches(name, valid, n)
    return f" Did you mean {', '.join(map(repr, close) if quote else close)}?" if close else ""
