"""The covariates' roles: which rows of a window a covariate is read on, by name, as registered
parts (like the attention variants and the network's heads).

A **role** (:class:`CovariateRole`) says on which rows of a window its columns are known: a
``"past"`` covariate on the context's rows only (read up to the forecast origin, never after), a
``"future"`` one on the horizon's rows too (day-ahead forecasts, calendar columns: ``predict``
then needs its ``horizon`` next rows). Each role names the estimator parameter that lists its
columns (``past_covariates``, ``future_covariates``). A long frame's own columns beside its id,
time and target are covariates only where a role's parameter names them (a stray column, such as
the ``index`` ``df.reset_index()`` leaves, is an error that lists it); the columns of ``X``, given
as covariates, take :data:`DEFAULT_ROLE` where no parameter names them. :class:`Covariates` is what a fit's columns are: their names, each one's
role, and from them where the windows read each column (``known``) and which columns the network
reads on the horizon (``future``).

Recipe: a new covariate role
----------------------------
1. A :class:`CovariateRole` subclass decorated ``@register_role("<name>")``, with a one-line
   ``summary``, the rows it is read on (``context``, ``horizon``) and the estimator ``parameter``
   that lists its columns.
2. That parameter, a field of the estimator (``param(None, [list, tuple, None], doc)``; a
   subclass of :class:`~tsattn.TSForecaster` declared with
   :func:`~tsattn.estimators.params.declare` for a role of your own).
3. Nothing else: the windows, the network's covariate adapter, the anchor and ``predict``'s
   checks of ``X`` read the role's rows (``tests/estimators/test_forecast_roles.py`` registers a
   toy role in the test module and trains it through the estimator).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np

from tsattn._registry import register
from tsattn._validation import did_you_mean

__all__ = ["DEFAULT_ROLE", "CovariateRole", "Covariates", "get_role", "list_roles", "register_role"]

#: The role of a covariate column that no role's parameter names.
DEFAULT_ROLE = "past"


class CovariateRole:
    """A registered role: on which rows of a window its columns are read."""

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    #: Read on the context's rows (up to the forecast origin).
    context: ClassVar[bool] = True
    #: Read on the horizon's rows (known ahead: ``predict`` needs them).
    horizon: ClassVar[bool] = False
    #: The estimator parameter listing this role's columns (None: the default role's, the
    #: columns no parameter names).
    parameter: ClassVar[str | None] = None


_ROLES: dict[str, type[CovariateRole]] = {}
T = TypeVar("T", bound=type)


def register_role(name: str) -> Callable[[T], T]:
    """Class decorator adding a :class:`CovariateRole` subclass to the roles under ``name``."""
    return register(_ROLES, "role", name)


def list_roles() -> list[str]:
    """Names of the registered covariate roles, sorted."""
    return sorted(_ROLES)


def get_role(name: str) -> type[CovariateRole]:
    """The role registered as ``name``; a ``ValueError`` naming the registered ones otherwise."""
    if name not in _ROLES:
        raise ValueError(f"role must be one of {list_roles()}; got {name!r}."
                         f"{did_you_mean(name, list_roles(), n=1)}")  # fmt: skip
    return _ROLES[name]


@register_role("past")
class Past(CovariateRole):
    summary = "known up to the forecast origin, read on the context's rows only"
    parameter = "past_covariates"


@register_role("future")
class Future(CovariateRole):
    summary = "known for the horizon too (day-ahead forecasts, calendar columns)"
    horizon = True
    parameter = "future_covariates"


@dataclass(frozen=True)
class Covariates:
    """A fit's covariate columns: ``names``, each one's ``roles`` (role names, in order; the
    default role's where not given), and ``listed``, the positions in the order the role
    parameters list them (the order the network reads the horizon's columns in)."""

    names: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    listed: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if len(self.roles) != len(self.names):
            object.__setattr__(self, "roles", (DEFAULT_ROLE,) * len(self.names))

    @classmethod
    def assign(cls, names: list[str], estimator: Any, in_frame: tuple[str, ...] = ()) -> Covariates:
        """Each of ``names`` its role, from the role parameters of ``estimator`` (column names,
        or positions for covariates without names); an error names a listed column that is not
        a covariate, one listed twice, and a column of ``in_frame`` (a long frame's own columns)
        that no parameter lists."""
        roles: dict[int, str] = {}
        listed: list[int] = []
        for role in list_roles():
            parameter = get_role(role).parameter
            given = None if parameter is None else getattr(estimator, parameter, None)
            for j in _positions(given, names, parameter):
                if j in roles and roles[j] != role:
                    raise ValueError(f"covariate {names[j]!r} is listed for two roles, {roles[j]!r} "
                                     f"and {role!r}; give each column one role.")  # fmt: skip
                roles[j] = role
                listed.append(j)
        stray = [name for j, name in enumerate(names) if name in in_frame and j not in roles]
        if stray:
            raise ValueError(
                f"y has column(s) {stray} beside its id, time and target columns that no covariate "
                "role names, so they are not read: name each in future_covariates=[...] (known for "
                "the horizon too) or past_covariates=[...] (known up to the forecast origin), or "
                f"drop them (df.drop(columns={stray})). An index column that df.reset_index() left "
                "is the usual one to drop.")  # fmt: skip
        return cls(tuple(names), tuple(roles.get(j, DEFAULT_ROLE) for j in range(len(names))),
                   tuple(dict.fromkeys(listed)))  # fmt: skip

    def __len__(self) -> int:
        return len(self.names)

    @property
    def future(self) -> tuple[int, ...]:
        """Positions of the columns read on the horizon's rows (the network's ``future``), in
        the order their parameters list them."""
        order = [*self.listed, *range(len(self.names))]
        return tuple(j for j in dict.fromkeys(order) if get_role(self.roles[j]).horizon)

    def describe(self) -> str:
        """The covariates in words for :func:`.summary.summary` ('' without any)."""
        counts = ", ".join(f"{self.roles.count(role)} {role}" for role in dict.fromkeys(self.roles))
        return f", {len(self)} covariates ({counts})" if len(self) else ""

    @property
    def future_names(self) -> list[str]:
        return [self.names[j] for j in self.future]

    def network(self) -> dict | None:
        """The network's covariate adapter's parameters (None without covariates)."""
        if not self.names:
            return None
        return dict(n_covariates=len(self.names), future=list(self.future),
                    decoder=bool(self.future))  # fmt: skip

    def known(self, context_length: int, horizon: int) -> np.ndarray:
        """``(context_length + horizon, k)``: 1 where a window reads each column, else 0."""
        out = np.zeros((context_length + horizon, len(self.names)))
        for j, role in enumerate(self.roles):
            out[:context_length, j] = get_role(role).context
            out[context_length:, j] = get_role(role).horizon
        return out


def _positions(listed: Any, names: list[str], parameter: str | None) -> list[int]:
    """Positions among ``names`` of the columns ``listed`` names (names, or positions)."""
    if listed is None:
        return []
    if not names:
        raise ValueError(f"{parameter}={list(listed)} but fit got no covariates; pass them as X "
                         "(or as columns of the long frame beside unique_id, ds, y).")  # fmt: skip
    out = []
    for item in listed:
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if not 0 <= item < len(names):
                raise ValueError(f"{parameter} has position {item}, but X has {len(names)} "
                                 "covariate columns.")  # fmt: skip
            out.append(int(item))
        elif str(item) in names:
            out.append(names.index(str(item)))
        else:
            raise ValueError(f"{parameter} names {item!r}, which is not a covariate column "
                             f"(covariates: {names}).{did_you_mean(item, names, n=1)}")  # fmt: skip
    return list(dict.fromkeys(out))
