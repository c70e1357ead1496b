"""How the estimators declare their parameters: once, as dataclass fields carrying everything.

A parameter is a field of the estimator's dataclass, so the field is the constructor argument
(``__init__`` stores it unchanged, as scikit-learn requires) and its declaration holds the rest::

    d_model: int = param(64, [POSITIVE_INT], "Model width ...")

:func:`param` records the default, the allowed values (scikit-learn ``_param_validation``
constraints) and the documentation; an estimator that only changes a default writes
``d_model: int = default(32)`` and keeps the rest of the declaration. The attention
hyperparameters (``beta``, ``scales``...) are declared by the variants
(:mod:`tsattn.attention.hyperparameters`) and nowhere here: a class that sets
``_attention_fields = True`` (the estimators' base) gets an ``attention_param()`` field for every
hyperparameter name of the registered variants, its constraints and documentation read from
their declarations, so a new variant's hyperparameters become estimator parameters without an
edit here. :func:`declare` turns a class into such a dataclass and derives
``_parameter_constraints`` and the Parameters section of its docstring from the fields.
"""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from tsattn._validation import check_value
from tsattn.attention import hyperparameter_declarations
from tsattn.attention.hyperparameters import Choice, FloatRange

__all__ = [
    "ParamInfo",
    "attention_param",
    "check_params",
    "declare",
    "declared_params",
    "default",
    "param",
]

T = TypeVar("T")


def param(
    default: Any, constraint: Sequence[Any], doc: str, *, kw_only: bool = True, hint: str = "",
    space: FloatRange | Choice | None = None,
) -> Any:
    """A parameter: its default, the values allowed, its documentation, an optional fix hint
    added to the error for a bad value, and an optional tuning range (``space``), which
    :func:`tsattn.tuning.search_space` reads as it reads the attention variants' own."""
    meta = {"constraint": tuple(constraint), "doc": doc, "hint": hint, "space": space}
    return dataclasses.field(default=default, kw_only=kw_only, metadata=meta)


def default(value: Any) -> Any:
    """Another default for a parameter declared by a base class (constraint and doc unchanged)."""
    return dataclasses.field(default=value, kw_only=True)


def attention_param() -> Any:
    """A flat attention hyperparameter; ``None`` keeps the chosen variant's default."""
    return dataclasses.field(default=None, kw_only=True, metadata={"attention": True})


@dataclass(frozen=True)
class ParamInfo:
    """A declared parameter as the estimator class sees it."""

    name: str
    default: Any
    type: str
    constraint: tuple[Any, ...]
    doc: str
    hint: str = ""
    attention: bool = False
    space: FloatRange | Choice | None = None


def _attention_info(name: str, value_default: Any) -> ParamInfo:
    declarations = hyperparameter_declarations().get(name, {})
    if not declarations:
        raise TypeError(f"attention_param {name!r} is declared by no registered attention variant.")
    first = next(iter(declarations))
    docs = [
        f"{', '.join(f'``{v}``' for v in variants)}: {hp.doc}"
        + ("" if hp.default is None else f" Variant default: ``{hp.default!r}``.")
        for hp, variants in declarations.items()
    ]
    docs.append("None keeps the chosen variant's default; a value it ignores warns.")
    return ParamInfo(name, value_default, f"{first.type} or None", (*first.constraint, None),
                     " ".join(docs), attention=True)  # fmt: skip


def _declaration(cls: type, name: str) -> tuple[type, dataclasses.Field]:
    """The base-most class declaring parameter ``name`` in full, and that declaration."""
    for base in reversed(cls.__mro__):
        own = base.__dict__.get("__dataclass_fields__", {})
        if name in own and own[name].metadata:
            return base, own[name]
    raise TypeError(f"{cls.__name__}.{name} has a default but no declaration (use param()).")


def declared_params(cls: type) -> dict[str, ParamInfo]:
    """Every parameter of estimator class ``cls``: the positional ones, then those users set most
    (``cls._lead``, in its order), then those the task adds, then the shared ones (each in
    declaration order)."""
    fields = dataclasses.fields(cls)
    origins = {f.name: _declaration(cls, f.name) for f in fields}
    shared = min((base for base, _ in origins.values()), key=lambda b: len(b.__mro__))
    lead = list(getattr(cls, "_lead", ()))
    order = sorted(fields, key=lambda f: (f.kw_only, f.name not in lead,
                                          lead.index(f.name) if f.name in lead else 0,
                                          origins[f.name][0] is shared))  # fmt: skip
    out = {}
    for f in order:
        origin = origins[f.name][1]
        meta = origin.metadata
        if meta.get("attention"):
            out[f.name] = _attention_info(f.name, f.default)
        else:
            out[f.name] = ParamInfo(f.name, f.default, str(origin.type), meta["constraint"],
                                    meta["doc"], meta.get("hint", ""),
                                    space=meta.get("space"))  # fmt: skip
    return out


def _params_doc(infos: dict[str, ParamInfo]) -> str:
    lines = ["", "    Parameters", "    ----------"]
    for info in infos.values():
        kind = f"{info.type}, default={info.default!r}" if not info.attention else info.type
        lines.append(f"    {info.name} : {kind}")
        lines.extend(_wrap(info.doc + _space_doc(info.space), indent=8))
    return "\n".join(lines) + "\n"


def _space_doc(space: FloatRange | Choice | None) -> str:
    """The tuning range as the parameter's documentation states it."""
    if isinstance(space, FloatRange):
        how = "log-uniform" if space.log else "uniform" + (f" in steps of {space.step}" if space.step else "")
        return f" Tuned by default over {space.low:g} to {space.high:g}, {how}."
    if isinstance(space, Choice):
        return f" Tuned by default over {list(space.choices)}." if not callable(space.choices) else ""
    return ""


def _wrap(text: str, indent: int, width: int = 100) -> list[str]:
    return textwrap.wrap(text, width - indent, initial_indent=" " * indent,
                         subsequent_indent=" " * indent, break_on_hyphens=False)  # fmt: skip


def _add_attention_fields(cls: type) -> None:
    """Give ``cls`` an ``attention_param()`` field for each hyperparameter name of the registered
    attention variants that it has no field for (after its own, in the registry's order)."""
    have = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
    annotations = dict(cls.__dict__.get("__annotations__", {}))
    for name, declarations in hyperparameter_declarations().items():
        if name not in have and name not in annotations:
            annotations[name] = f"{next(iter(declarations)).type} | None"
            setattr(cls, name, attention_param())
    cls.__annotations__ = annotations


def declare(cls: type[T]) -> type[T]:
    """Make ``cls`` an estimator dataclass (with the attention variants' hyperparameters as fields
    where it sets ``_attention_fields``); set ``_parameter_constraints`` and document the
    parameters after the class docstring (before its ``Attributes`` section, if any)."""
    if getattr(cls, "_attention_fields", False):
        _add_attention_fields(cls)
    cls = dataclass(eq=False, repr=False)(cls)
    infos = declared_params(cls)
    cls._parameter_constraints = {n: list(i.constraint) for n, i in infos.items()}
    cls._parameter_hints = {n: i.hint for n, i in infos.items() if i.hint}
    cls._attention_params = tuple(n for n, i in infos.items() if i.attention)
    doc = cls.__dict__.get("__doc__") or ""
    head, sep, tail = doc.partition("\n    Attributes\n")
    attributes = f"\n{sep.lstrip(chr(10))}{tail}" if sep else ""
    cls.__doc__ = head.rstrip() + "\n" + _params_doc(infos) + attributes
    return cls


def check_params(estimator: Any) -> None:
    """Check every declared parameter of ``estimator`` against its constraint (clear errors)."""
    hints = type(estimator)._parameter_hints
    for name, constraints in type(estimator)._parameter_constraints.items():
        check_value(name, getattr(estimator, name), constraints, hints.get(name, ""))
