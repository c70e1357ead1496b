"""Search spaces: each variant's own hyperparameters from its declarations, the attention variant
itself as a categorical, and the checks that refuse a space before any trial runs.

A space is a plain ``{estimator parameter: optuna distribution}`` dict. Where it holds
``"attention"`` as a categorical, the space is conditional: a trial first picks the variant, then
draws that variant's own hyperparameters from their declarations in the variant's file
(:class:`~tsattn.attention.hyperparameters.HyperParameter`), under the Optuna names
``"<variant>:<name>"`` (``"bn:beta"``, ``"bn_sh:beta"``), so that each variant's parameters are
modelled apart. A variant hyperparameter also given in such a space replaces the declared range
for every searched variant that takes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tsattn.attention import all_hyperparameters, get_attention_class, list_attention
from tsattn.attention.hyperparameters import Choice, FloatRange

if TYPE_CHECKING:  # pragma: no cover
    import optuna

__all__ = ["search_space", "TUNE_SETS"]

#: Estimator parameters that :func:`tsattn.tuning.tune` sets itself.
TUNE_SETS = ("validation_fraction", "callbacks", "random_state")
_SEQUENCE_PARAMS = ("scales", "key_scales")  # tuned as strings like "1,1,2,2", passed as tuples
_SEP = ":"  # "<variant>:<hyperparameter>" in conditional spaces


def _optuna():
    try:
        import optuna
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("tuning needs Optuna: pip install 'tsattn[tune]'") from err
    return optuna


def _distribution(space: FloatRange | Choice, n_heads: int) -> Any:
    """The optuna distribution of a declared tuning range."""
    dist = _optuna().distributions
    if isinstance(space, FloatRange):
        return dist.FloatDistribution(space.low, space.high, step=space.step, log=space.log)
    return dist.CategoricalDistribution(space.options(n_heads))


def _attention_space(name: str, n_heads: int) -> dict[str, Any]:
    """Distributions for the hyperparameters a variant declares with a tuning space."""
    return {hp.name: _distribution(hp.space, n_heads)
            for hp in get_attention_class(name).hyperparameters if hp.space is not None}  # fmt: skip


def _training_space(n_heads: int) -> dict[str, Any]:
    """Distributions for the estimator parameters declared with a tuning range (``lr``,
    ``dropout``, ``weight_decay``), read from their declarations."""
    from tsattn.estimators.base import BaseTSEstimator
    from tsattn.estimators.params import declared_params

    return {name: _distribution(info.space, n_heads)
            for name, info in declared_params(BaseTSEstimator).items() if info.space is not None}  # fmt: skip


def _takes(variant: str) -> set[str]:
    return {hp.name for hp in get_attention_class(variant).hyperparameters}


def search_space(
    attention: str | Sequence[str], n_heads: int = 8, training: bool = True
) -> dict[str, Any]:
    """Optuna distributions for tuning an estimator that uses ``attention``.

    Parameters
    ----------
    attention : a registered variant (``tsattn.attention.list_attention()``): its own declared
        hyperparameters. A list of variants, or ``"auto"`` for every registered one: ``attention``
        as a categorical over them, each trial then drawing the chosen variant's own
        hyperparameters (conditional space, see the module docstring).
    n_heads : the estimator's head count; ``scales`` presets have one factor per head.
    training : also tune the estimator parameters declared with a tuning range (``lr``,
        ``dropout``, ``weight_decay``; their ranges are in their documentation).

    Returns ``{estimator parameter name: optuna distribution}``; edit or extend it freely and pass
    it to :func:`tsattn.tuning.tune`.
    """
    dist = _optuna().distributions
    if isinstance(attention, str) and attention != "auto":
        get_attention_class(attention)  # a clear error listing the valid names
        space = _attention_space(attention, n_heads)
    else:
        names = list_attention() if attention == "auto" else list(attention)
        if not names:
            raise ValueError("attention lists no variant; give names or 'auto'.")
        for name in names:
            get_attention_class(name)
        space = {"attention": dist.CategoricalDistribution(names)}
    if training:
        space.update(_training_space(n_heads))
    return space


def variants(space: Mapping[str, Any]) -> list[str] | None:
    """The variants a conditional space searches over; None when ``attention`` is not searched."""
    dist = space.get("attention")
    return None if dist is None else list(dist.choices)


def check_space(estimator: Any, space: Mapping[str, Any]) -> None:
    """Refuse, with the fix, a space ``estimator`` cannot take: unknown names, wrong kinds,
    parameters that tune sets, and hyperparameters the tuned variant(s) ignore."""
    optuna = _optuna()
    valid = estimator.get_params(deep=False)
    kinds = (
        optuna.distributions.FloatDistribution,
        optuna.distributions.IntDistribution,
        optuna.distributions.CategoricalDistribution,
    )
    for name, dist in space.items():
        if name not in valid:
            raise ValueError(
                f"{name!r} in the search space is not a parameter of {type(estimator).__name__}; "
                f"valid: {', '.join(sorted(valid))}."
            )
        if not isinstance(dist, kinds):
            raise ValueError(
                f"the search space maps {name!r} to {dist!r}; give an optuna Float-, Int- or "
                "CategoricalDistribution, e.g. optuna.distributions.FloatDistribution(0.1, 1.2)."
            )
        if name in TUNE_SETS:
            raise ValueError(f"{name!r} is set by tune() itself and cannot be tuned.")
    if "attention" in space:
        if not isinstance(space["attention"], optuna.distributions.CategoricalDistribution):
            raise ValueError("'attention' must be a CategoricalDistribution of variant names, "
                             "e.g. search_space(['bn', 'sh', 'softmax'])['attention'].")  # fmt: skip
        for name in space["attention"].choices:
            get_attention_class(name)
    searched = variants(space) or [valid.get("attention", "softmax")]
    users = all_hyperparameters()
    for name in set(space) & set(users):
        if not any(name in _takes(v) for v in searched):
            which = "the variants searched" if len(searched) > 1 else f"attention {searched[0]!r}"
            raise ValueError(
                f"{name!r} in the search space is not a hyperparameter of {which} "
                f"({', '.join(searched)}), so tuning it would change nothing; remove it, or tune "
                f"an attention that takes it: {', '.join(users[name])}."
            )


def suggest(trial: optuna.Trial, space: Mapping[str, Any], n_heads: int) -> dict[str, Any]:
    """Draw one point of ``space`` in ``trial``; returns ``{estimator parameter: value}``."""
    chosen = variants(space)
    if chosen is None:
        return _decode({name: _suggest(trial, name, dist) for name, dist in space.items()})
    variant = trial.suggest_categorical("attention", chosen)
    own = {**_attention_space(variant, n_heads),
           **{k: d for k, d in space.items() if k in _takes(variant)}}  # fmt: skip
    users = all_hyperparameters()
    values: dict[str, Any] = {"attention": variant}
    for name, dist in space.items():
        if name != "attention" and name not in users:
            values[name] = _suggest(trial, name, dist)
    for name, dist in own.items():
        values[f"{variant}{_SEP}{name}"] = _suggest(trial, f"{variant}{_SEP}{name}", dist)
    return _decode(values)


def _suggest(trial: optuna.Trial, name: str, dist: Any) -> Any:
    """``trial.suggest_*`` for one distribution of the space."""
    d = _optuna().distributions
    if isinstance(dist, d.FloatDistribution):
        return trial.suggest_float(name, dist.low, dist.high, step=dist.step, log=dist.log)
    if isinstance(dist, d.IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, step=dist.step, log=dist.log)
    return trial.suggest_categorical(name, dist.choices)


def _decode(params: Mapping[str, Any]) -> dict[str, Any]:
    """Trial values to estimator parameters: ``"bn:beta"`` -> ``beta``, ``"1,2"`` -> ``(1, 2)``."""
    out = {name.rpartition(_SEP)[2]: value for name, value in params.items()}
    for name in _SEQUENCE_PARAMS:
        if isinstance(out.get(name), str):
            out[name] = tuple(int(s) for s in out[name].split(","))
    return out


def trial_params(estimator: Any, values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` plus ``None`` for every variant hyperparameter set on ``estimator`` that the
    trial's variant does not take (a conditional space switching from ``bn`` to ``sh`` must not
    carry ``beta`` along, which would warn in every fit)."""
    if "attention" not in values:
        return dict(values)
    takes = _takes(values["attention"])
    current = estimator.get_params(deep=False)
    cleared = {name: None for name in all_hyperparameters()
               if name not in takes and current.get(name) is not None}  # fmt: skip
    return {**cleared, **values}
