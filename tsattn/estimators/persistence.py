"""Saved models that say which versions wrote them.

A fitted estimator is saved in one of two ways, which hold the same state:

- ``model.save(path)`` and ``TSClassifier.load(path)`` (likewise ``TSRegressor``, ``TSForecaster``):
  a zip file with ``metadata.json`` (the model format, the estimator class and the versions of
  tsattn, torch and scikit-learn that wrote it; readable with any zip tool) and ``estimator.pkl``.
  ``load`` reads the metadata first, so a file from a newer model format fails with a clear message
  before any of it is unpickled.
- ``pickle`` or ``joblib``: the pickled state carries the same metadata and is checked the same way.

Either way the network travels as a CPU ``state_dict`` and is rebuilt on load, on the saved device
when it exists here and on the CPU otherwise (with a warning). Loading under other versions than
those that saved the model warns with :class:`InconsistentVersionWarning`, naming both; a model
format newer than this tsattn reads raises ``ValueError``, and so does a model that set an option
since removed to another value than its default (:func:`drop_removed`). Both ways unpickle: load
only files you trust.
"""

from __future__ import annotations

import contextvars
import io
import json
import os
import pickle
import warnings
import zipfile
from pathlib import Path
from typing import Any

__all__ = [
    "FORMAT",
    "InconsistentVersionWarning",
    "Persistent",
    "check_metadata",
    "drop_removed",
    "load",
    "metadata",
    "save",
]

#: The model format this tsattn writes and the newest it reads. Raise it when a saved model's
#: state changes so that an older tsattn would misread it. 2: ``TSForecaster``'s network without
#: the options issue 50 removed (format 1 models load when they left those at their defaults).
#: 3: ``TSForecaster``'s covariate network is the one forecasting network with a covariate adapter
#: (issue 76; format 2 covariate models load, their parameters and weights renamed).
FORMAT = 3

_METADATA = "metadata.json"
_PICKLE = "estimator.pkl"
# Set while load() unpickles: the file's metadata has been checked, __setstate__ need not repeat it.
_checked = contextvars.ContextVar("tsattn_metadata_checked", default=False)


class InconsistentVersionWarning(UserWarning):
    """A model loaded under other versions of tsattn, torch or scikit-learn than those that saved
    it: it may fail to predict or predict differently. Refit it, or save it again under these
    versions once checked."""


def versions() -> dict[str, str]:
    """The versions recorded with a saved model: ``{"tsattn": ..., "torch": ..., "scikit-learn": ...}``."""
    import sklearn
    import torch

    from tsattn._version import __version__

    return {"tsattn": __version__, "torch": torch.__version__, "scikit-learn": sklearn.__version__}


def metadata(estimator: Any) -> dict[str, Any]:
    """What a saved model records about itself: the model format, its class and :func:`versions`."""
    cls = type(estimator)
    return {"format": FORMAT, "class": f"{cls.__module__}.{cls.__qualname__}", "versions": versions()}


def _public(version: str) -> str:
    # torch's local tag (+cpu, +cu121) names the build, not the format: a GPU-trained model read
    # by a CPU build of the same torch is the same model
    return str(version).split("+", 1)[0]


def check_metadata(meta: dict[str, Any] | None, what: str, stacklevel: int = 2) -> None:
    """Raise for a model format newer than :data:`FORMAT`; warn for other versions than these.

    Parameters
    ----------
    meta : dict or None
        The metadata saved with the model (:func:`metadata`); None for a model saved by a tsattn
        that recorded none (0.1.0 and before), which warns.
    what : str
        The model's class name, for the messages.
    stacklevel : int, default=2
        Passed to :func:`warnings.warn` (2: the warning points at the caller).

    Raises
    ------
    ValueError
        When the model was written in a newer model format than this tsattn reads.
    """
    from tsattn._version import __version__

    if meta is None:
        warnings.warn(
            f"this {what} was saved by a tsattn that recorded no versions (0.1.0 or earlier); "
            f"it is loaded by tsattn {__version__}. If it fails or predicts differently, refit it.",
            InconsistentVersionWarning, stacklevel=stacklevel,
        )  # fmt: skip
        return
    fmt = meta.get("format")
    saved = dict(meta.get("versions") or {})
    if not isinstance(fmt, int) or fmt > FORMAT:
        raise ValueError(
            f"this {what} was saved in tsattn's model format {fmt!r} (by tsattn "
            f"{saved.get('tsattn', 'unknown')}); tsattn {__version__} reads formats up to {FORMAT}. "
            "Upgrade tsattn (pip install -U tsattn) to load it."
        )
    now = versions()
    differ = [f"{lib} {saved.get(lib, 'unknown')} (now {now[lib]})" for lib in now
              if _public(saved.get(lib, "unknown")) != _public(now[lib])]  # fmt: skip
    if differ:
        warnings.warn(
            f"this {what} was saved with {', '.join(differ)}; it may fail to predict or predict "
            "differently. Refit it, or check it and save it again under these versions.",
            InconsistentVersionWarning, stacklevel=stacklevel,
        )  # fmt: skip


def check_state(meta: dict[str, Any] | None, what: str) -> None:
    """:func:`check_metadata` for ``__setstate__``, unless :func:`load` has checked the file."""
    if not _checked.get():
        check_metadata(meta, what, stacklevel=4)  # the user's pickle.load(s) -> __setstate__ -> here


def drop_removed(state: dict[str, Any], removed: dict[str, Any], what: str) -> None:
    """Take out of a saved ``state`` the options a later tsattn removed, where the model kept
    what is still done: ``removed`` maps each option to the value whose behaviour was kept.

    Raises
    ------
    ValueError
        Naming every removed option the model was saved with at another value (its forecasts
        depend on code that is gone): refit it with this tsattn, or load it with the one that
        saved it.
    """
    used = {k: state[k] for k in removed if k in state and state[k] != removed[k]}
    if used:
        names = ", ".join(f"{k}={v!r}" for k, v in used.items())
        kept = ", ".join(f"{k}={removed[k]!r}" for k in used)
        raise ValueError(
            f"this {what} was saved with {names}: removed from this tsattn (measured and left "
            f"off; CHANGELOG.md says where each decision is recorded), which keeps only {kept}. "
            "Refit it with this tsattn, or load it with the tsattn that saved it."
        )  # fmt: skip
    for k in removed:
        state.pop(k, None)


def save(estimator: Any, path: str | os.PathLike) -> Path:
    """Write ``estimator`` to ``path`` (a zip of ``metadata.json`` and ``estimator.pkl``); return
    the path."""
    path = Path(path)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(_METADATA, json.dumps(metadata(estimator), indent=2) + "\n")
        archive.writestr(_PICKLE, pickle.dumps(estimator, protocol=pickle.HIGHEST_PROTOCOL))
    return path


def load(path: str | os.PathLike, expected: type) -> Any:
    """The estimator saved at ``path`` by :func:`save`, checked to be an instance of ``expected``."""
    path = Path(path)
    not_saved = (f"{str(path)!r} is not a model saved by tsattn's save() ({{}}); a pickle or "
                 "joblib file loads with pickle.load or joblib.load.")  # fmt: skip
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise ValueError(not_saved.format("not a zip file")) from None
    with archive:
        if not {_METADATA, _PICKLE} <= set(archive.namelist()):
            raise ValueError(not_saved.format(f"no {_METADATA} and {_PICKLE} in it"))
        meta = json.loads(archive.read(_METADATA))
        what = str(meta.get("class", "model")).rsplit(".", 1)[-1]
        check_metadata(meta, what, stacklevel=4)  # the user's Estimator.load -> load -> here
        blob = archive.read(_PICKLE)
    token = _checked.set(True)
    try:
        estimator = pickle.load(io.BytesIO(blob))
    finally:
        _checked.reset(token)
    if not isinstance(estimator, expected):
        raise TypeError(f"{str(path)!r} holds a {type(estimator).__name__}, not a "
                        f"{expected.__name__}; load it with {type(estimator).__name__}.load.")  # fmt: skip
    return estimator


def get_state(estimator: Any) -> dict:
    """The pickled state of a fitted estimator: its attributes, the network's weights as a CPU
    ``state_dict`` in torch's format (no pickled module) and the versions (:func:`metadata`)."""
    import torch

    state = estimator.__dict__.copy()
    module = state.pop("module_", None)
    if module is not None:
        buffer = io.BytesIO()
        torch.save({k: v.detach().cpu() for k, v in module.state_dict().items()}, buffer)
        state["_module_state"] = buffer.getvalue()
    state.pop("device_", None)
    state["_tsattn_saved"] = metadata(estimator)
    return state


def set_state(estimator: Any, state: dict) -> None:
    """Restore :func:`get_state`'s ``state`` into ``estimator``: the versions checked, the network
    rebuilt and loaded on its device, or on the CPU (with a warning) where that device is absent."""
    import torch

    from tsattn.training import resolve_device

    check_state(state.pop("_tsattn_saved", None), type(estimator).__name__)
    blob = state.pop("_module_state", None)
    estimator.__dict__.update(state)
    if blob is None:
        return
    try:
        estimator.device_ = resolve_device(estimator.device)
    except ValueError:
        warnings.warn(
            f"this model was saved with device={estimator.device!r}, which is not available here; "
            "loading it on the CPU.",
            UserWarning,
            stacklevel=3,
        )
        estimator.device_ = torch.device("cpu")
    module = estimator._build_network()
    module.load_state_dict(torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True))
    estimator.module_ = module.to(estimator.device_).eval()


class Persistent:
    """``save``, ``load`` and pickling for the estimators (their base class derives from this)."""

    def save(self, path: str | os.PathLike) -> Path:
        """Write this estimator to ``path``, with the versions of tsattn, torch and scikit-learn.

        The file is a zip of ``metadata.json`` (model format, class, versions) and the pickled
        estimator; :meth:`load` reads it back. Plain ``pickle``/``joblib`` work too and record the
        same metadata (:mod:`tsattn.estimators.persistence`).

        Parameters
        ----------
        path : str or os.PathLike
            The file to write (any name, e.g. ``"model.tsattn"``); an existing file is replaced.

        Returns
        -------
        pathlib.Path
            ``path``.
        """
        return save(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Any:
        """The estimator that :meth:`save` wrote to ``path``.

        Loads on the saved device when it exists here, on the CPU otherwise (``UserWarning``).
        The file is unpickled: load only files you trust.

        Parameters
        ----------
        path : str or os.PathLike
            A file written by :meth:`save`.

        Returns
        -------
        estimator
            An instance of this class (``TSClassifier.load`` refuses a saved ``TSRegressor``).

        Raises
        ------
        ValueError
            When ``path`` is not such a file, or was written in a newer model format than this
            tsattn reads (upgrade tsattn).
        TypeError
            When the file holds another estimator class.

        Warns
        -----
        InconsistentVersionWarning
            When the versions of tsattn, torch or scikit-learn differ from those that saved it.
        """
        return load(path, cls)

    def __getstate__(self) -> dict:
        return get_state(self)

    def __setstate__(self, state: dict) -> None:
        set_state(self, state)
