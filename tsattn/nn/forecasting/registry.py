"""The registries of the forecasting network's parts: heads and token views, as attention variants.

A **token view** (:class:`TokenView`) says how a window becomes the tokens the trunk encodes
(``"patch"``: patches of steps, PatchTST; ``"variate"``: a token per channel, iTransformer) and
what those tokens are to a head (:class:`TokenLayout`). A **head** (:class:`ForecastHead`) maps
the encoded tokens to the horizon (``"linear"``, ``"fourier"``: 002's Fourier extrapolation).
Each is one file of this package, registered by name with :func:`register_view` /
:func:`register_head`, with its hyperparameters declared there
(:class:`~tsattn.attention.hyperparameters.HyperParameter`) and what it needs or gives:
a head's ``requires`` and a view's :meth:`TokenView.capabilities` are the one table of which
options combine (:data:`CAPABILITIES`, :func:`combinations`), read by :func:`check_combination`,
which both :class:`tsattn.TSForecaster` (before any data is read) and the network call.

Recipe: a new forecasting head
------------------------------
1. One file here, ``tsattn/nn/forecasting/<name>.py``: a :class:`ForecastHead` subclass
   decorated ``@register_head("<name>")`` with a one-line ``summary``; ``__init__(self, layout,
   horizon, dropout, **hyperparameters)``; ``forward(h)`` from the encoded tokens ``h (B',
   layout.n_tokens, layout.d_model)`` to ``(B', horizon, layout.channels)``, in the normalised
   units (the network de-normalises and blends). Read the tokens through ``layout``, never
   through the view's name, so the head works with every view that gives what it needs.
2. Its needs in ``requires`` (names of :data:`CAPABILITIES`, e.g. ``{"steps"}`` to decode every
   token back to the steps it covers); its hyperparameters in ``hyperparameters``, each declared
   once in that file.
3. Import the file in ``tsattn/nn/forecasting/__init__.py`` (registration happens at import).
4. A hyperparameter users set: a field of
   :class:`~tsattn.estimators.forecaster.params.ForecasterParams` built from its declaration,
   ``name: int = param(HP.default, HP.constraint, HP.doc)``; the estimator hands the head the
   fields its declarations name.
5. Tests: the head's own maths against a slow reference in ``tests/nn/``, and a fit of
   ``TSForecaster(head="<name>")`` for a few steps with each view it combines with
   (``tests/nn/test_forecast_parts.py`` registers a toy head in the test module and trains it:
   that is all a head needs). Nothing else changes: ``TSForecaster``'s checks,
   ``tsattn bench forecast --heads`` and the guide's table read the registry.

A new token view is the same with :class:`TokenView` and :func:`register_view`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import torch
from torch import nn

from tsattn._registry import register
from tsattn.attention.hyperparameters import HyperParameter

__all__ = [
    "CAPABILITIES",
    "ForecastHead",
    "TokenLayout",
    "TokenView",
    "check_combination",
    "combinations",
    "get_head",
    "get_view",
    "head_hyperparameters",
    "list_heads",
    "list_views",
    "register_head",
    "register_view",
]

#: What a token view may give a head, by name (a head lists those it needs in ``requires``).
CAPABILITIES = {
    "steps": "tokens that decode to the window's steps, each to the ones it covers",
    "covariates": "tokens that hold covariate columns beside the target's",
}


@dataclass(frozen=True)
class TokenLayout:
    """What the encoded tokens ``h (B', n_tokens, d_model)`` of one sample are to a head.

    ``channels``: the channels a sample forecasts (the last axis of the head's output ``(B',
    horizon, channels)``). ``by_channel``: the tokens are the channels (``n_tokens ==
    channels``), not spans of time. ``token_values``: how many values each token decodes to for
    :meth:`to_steps` (``steps_per_token * columns`` for spans of time, ``context_length`` for
    channels); None where the tokens do not decode to steps (overlapping patches). ``pad``: the
    steps the view added before the window (dropped by :meth:`to_steps`). ``columns``: the
    values of one step the tokens hold (None: ``channels``; the target's and the covariates'
    with covariates, the forecast channels first).
    """

    n_tokens: int
    d_model: int
    channels: int
    context_length: int
    by_channel: bool
    token_values: int | None
    pad: int = 0
    columns: int | None = None

    def to_steps(self, values: torch.Tensor) -> torch.Tensor:
        """Decoded tokens ``(B', n_tokens, token_values)`` -> the window's steps ``(B',
        context_length, columns)`` (the forecast channels first)."""
        if self.token_values is None:
            raise ValueError("these tokens do not decode to steps (overlapping patches).")
        if self.by_channel:  # a token per channel, decoded to that channel's window
            return values.transpose(1, 2)
        columns = self.channels if self.columns is None else self.columns
        return values.reshape(values.shape[0], -1, columns)[:, self.pad :]


class TokenView:
    """A registered way to cut a window into tokens. Built with ``(n_channels, **options)``, the
    options being the estimator's ``context_length``, ``patch_len``, ``patch_stride`` and
    ``channel_independent`` (each view reads its own), and ``covariates``, the covariate columns
    a sample holds after its ``n_channels`` target columns (0: none; a view that takes them gives
    ``"covariates"`` and puts them in its tokens beside the target's); :meth:`tokenizer`
    gives the trunk its factory ``d_model -> tokeniser``, :meth:`layout` what the encoded tokens
    are, :meth:`samples` / :meth:`series` the reshaping around the trunk."""

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    #: The options that decide what these tokens give a head (named in the errors).
    options: ClassVar[tuple[str, ...]] = ()
    #: Whether the tokens are the channels (a sample is a whole window, every channel of it, so
    #: ``channel_independent`` does not apply and a batch of ``batch_size`` univariate series
    #: holds ``batch_size // n_channels`` windows).
    by_channel: ClassVar[bool] = False

    @classmethod
    def check(cls, **options: Any) -> None:
        """Raise ``ValueError`` for options this view cannot take (names as the estimator's)."""

    @classmethod
    def capabilities(cls, **options: Any) -> frozenset[str]:
        """What these tokens give a head (names of :data:`CAPABILITIES`)."""
        return frozenset()

    def tokenizer(self) -> Callable[[int], nn.Module]:
        raise NotImplementedError

    def layout(self, tokenizer: nn.Module, d_model: int) -> TokenLayout:
        raise NotImplementedError

    def samples(self, x: torch.Tensor) -> torch.Tensor:
        """The normalised windows ``(B, L, C)`` as the trunk encodes them (default: as they are)."""
        return x

    def series(self, out: torch.Tensor, batch: int) -> torch.Tensor:
        """The head's ``(B', horizon, channels)`` back to ``(batch, horizon, C)``."""
        return out


class ForecastHead(nn.Module):
    """A registered head: ``(layout, horizon, dropout, **hyperparameters)``; ``forward(h)`` maps
    the encoded tokens ``h (B', layout.n_tokens, layout.d_model)`` to ``(B', horizon,
    layout.channels)``."""

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    hyperparameters: ClassVar[tuple[HyperParameter, ...]] = ()
    #: What the head needs of the token view (names of :data:`CAPABILITIES`).
    requires: ClassVar[frozenset[str]] = frozenset()


_HEADS: dict[str, type[ForecastHead]] = {}
_VIEWS: dict[str, type[TokenView]] = {}
T = TypeVar("T", bound=type)



def register_head(name: str) -> Callable[[T], T]:
    """Class decorator adding a :class:`ForecastHead` subclass to the heads under ``name``."""
    return register(_HEADS, "head", name)


def register_view(name: str) -> Callable[[T], T]:
    """Class decorator adding a :class:`TokenView` subclass to the token views under ``name``."""
    return register(_VIEWS, "tokens", name)


def list_heads() -> list[str]:
    """Names of the registered forecasting heads, sorted."""
    return sorted(_HEADS)


def list_views() -> list[str]:
    """Names of the registered token views (``tokens``), sorted."""
    return sorted(_VIEWS)


def _lookup(registry: Mapping[str, Any], option: str, name: Any) -> Any:
    if isinstance(name, str) and name in registry:
        return registry[name]
    close = difflib.get_close_matches(str(name), list(registry), n=3)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    raise ValueError(f"{option} must be one of {', '.join(map(repr, sorted(registry)))}; got "
                     f"{name!r}.{hint}")  # fmt: skip


def get_head(name: str) -> type[ForecastHead]:
    """The head registered as ``name``; a ``ValueError`` naming the registered ones otherwise."""
    return _lookup(_HEADS, "head", name)


def get_view(name: str) -> type[TokenView]:
    """The token view registered as ``name``; a ``ValueError`` naming the registered ones otherwise."""
    return _lookup(_VIEWS, "tokens", name)


def head_hyperparameters(name: str) -> dict[str, Any]:
    """The hyperparameters of head ``name`` with their defaults."""
    return {hp.name: hp.default for hp in get_head(name).hyperparameters}


def check_combination(head: str, tokens: str, covariates: bool = False, **options: Any) -> None:
    """Raise ``ValueError`` unless head ``head`` and view ``tokens`` with ``options`` (of
    ``context_length``, ``patch_len``, ``patch_stride``, ``channel_independent``) combine: the
    view takes the options, and gives the head what it ``requires`` (and, with ``covariates``,
    ``"covariates"``). The estimator calls it with its parameters, the network with its sizes."""
    head_cls, view = get_head(head), get_view(tokens)
    view.check(**options)
    needs = head_cls.requires | ({"covariates"} if covariates else frozenset())
    missing = sorted(needs - view.capabilities(**options))
    if missing:
        read = ", ".join(f"{k}={options[k]!r}" for k in view.options if k in options)
        raise ValueError(
            f"head={head!r} needs {'; '.join(CAPABILITIES[m] for m in missing)}, which "
            f"tokens={tokens!r}{f' with {read}' if read else ''} does not give; choose another "
            f"head (those that combine: {', '.join(_combining(tokens, options))}).")


def _combining(tokens: str, options: Mapping[str, Any]) -> list[str]:
    gives = get_view(tokens).capabilities(**options)
    return [repr(h) for h in list_heads() if _HEADS[h].requires <= gives]


def combinations(**options: Any) -> dict[tuple[str, str], bool]:
    """The table of which head reads which view with ``options``: ``(head, tokens) -> bool``."""
    table = {}
    for tokens in list_views():
        try:
            get_view(tokens).check(**options)
        except ValueError:
            table.update({(h, tokens): False for h in list_heads()})
            continue
        gives = get_view(tokens).capabilities(**options)
        table.update({(h, tokens): _HEADS[h].requires <= gives for h in list_heads()})
    return table
