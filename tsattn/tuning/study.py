"""Studies shared by several workers: storage, liveness of running trials, trial counts, sampling.

Storage (:func:`resolve_storage`): ``None`` in memory; a path ending in ``.db``/``.sqlite``/
``.sqlite3`` or a ``sqlite:///`` URL SQLite (one machine, several processes: tables created under
a file lock, busy timeout, write-ahead log, and retries of a locked database); any other path
Optuna's journal file (machines sharing a file system); a database URL (``postgresql://...``,
``mysql://...``; tables created by two workers at once are retried); or an Optuna storage.

Liveness. Every running trial's worker records a heartbeat every :data:`HEARTBEAT_S` seconds:
Optuna's own on database storages, a ``alive_at`` user attribute on a journal file (Optuna has no
heartbeat there). A running trial whose heartbeat is older than :data:`STALE_AFTER_S` seconds
belongs to a worker that died without a word (``kill -9``, a lost machine): the next worker
marks it failed and queues its parameters to run again (once), so a killed worker loses nothing
but the time it had spent.

Counting (:func:`taken`): finished (complete or pruned) trials plus the running trials of live
workers; a worker starts a trial only while fewer than ``n_trials`` are taken, so the study ends
with exactly ``n_trials``. Failed trials never count.

Sampling (:func:`per_trial_sampler`): TPE seeded from ``(random_state, trial number)``: workers
started with the same ``random_state`` draw different points, and one worker replays exactly.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tsattn._filelock import file_lock
from tsattn.tuning.space import _optuna

if TYPE_CHECKING:  # pragma: no cover
    import optuna

__all__ = ["resolve_storage", "HEARTBEAT_S", "STALE_AFTER_S", "taken", "fail_stale",
           "per_trial_sampler", "heartbeat"]  # fmt: skip

#: Seconds between two heartbeats of a running trial.
HEARTBEAT_S = 10
#: A running trial without a heartbeat for this long (seconds) is failed by the next worker.
STALE_AFTER_S = 60

_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
ALIVE = "alive_at"  # user attribute: time.time() of a journal trial's last heartbeat
_RETRY = "retry_of"  # user attribute: the trial number a requeued trial repeats


@contextlib.contextmanager
def _experimental() -> Iterator[None]:
    """Silence Optuna's ExperimentalWarning (heartbeat, multivariate TPE, constant liar)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", _optuna().exceptions.ExperimentalWarning)
        yield


def resolve_storage(storage: Any) -> Any:
    """An Optuna storage for ``storage``: None, a path, a database URL or a storage.

    Database storages (SQLite files and URLs) get Optuna's heartbeat and are connected to now, so
    that a wrong address, missing database or driver fails here, before any trial. Several workers
    may open a new storage at the same moment: Optuna writes the tables on the first connection,
    so SQLite files (paths and ``sqlite:///`` URLs) are opened one process at a time under a file
    lock, and a clash with another process creating the tables of a database server is retried.
    """
    optuna = _optuna()
    if storage is None or isinstance(storage, optuna.storages.BaseStorage):
        return storage
    if not isinstance(storage, (str, Path)):
        raise ValueError(
            "storage must be None, a file path (.db for SQLite, anything else for a journal file), "
            f"a database URL or an optuna storage; got {type(storage).__name__}."
        )
    text = str(storage)
    path = _sqlite_file(text) if "://" in text else Path(text).expanduser().resolve()
    if "://" in text and path is None:  # a database server, or SQLite in memory
        return _open(text, lambda: _rdb(text, {}))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a"):
            pass
    except OSError as err:
        raise ValueError(
            f"storage {text!r} cannot be written ({err.strerror or err}); give a file in a "
            "writable folder."
        ) from None
    if "://" in text or path.suffix.lower() in _SQLITE_SUFFIXES:
        url = text if "://" in text else f"sqlite:///{path}"
        # The busy timeout lets concurrent workers wait for each other's writes instead of failing.
        with file_lock(path):
            return _open(text, lambda: _rdb(url, {"connect_args": {"timeout": 60}}, sqlite=True))
    from optuna.storages.journal import JournalFileBackend

    return optuna.storages.JournalStorage(JournalFileBackend(str(path)))


def _sqlite_file(url: str) -> Path | None:
    """The database file of a ``sqlite://`` URL; None for other URLs and in-memory SQLite."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return None  # _open says what is wrong with it
    name = parsed.database
    if parsed.get_backend_name() != "sqlite" or name in (None, "", ":memory:"):
        return None
    if name.startswith("file:"):
        return None  # an SQLite URI filename (uri=true): left to SQLite
    return Path(name).expanduser().resolve()


#: Tries at opening a database whose tables another process is creating at the same moment.
_SCHEMA_TRIES = 5


def _open(text: str, connect: Callable[[], Any]) -> Any:
    """``connect()``, retried while another process is creating the storage's tables; a failure
    raises ValueError naming its cause (address, driver, schema race, Optuna version)."""
    for attempt in range(_SCHEMA_TRIES):
        try:
            return connect()
        except Exception as err:  # noqa: BLE001 - any failure to open it is the caller's to fix
            if _schema_race(err) and attempt + 1 < _SCHEMA_TRIES:
                time.sleep(0.2 * (attempt + 1) * (1 + np.random.random()))
                continue
            raise ValueError(f"storage {text!r} cannot be opened: {_cause(err, text)}") from None
    raise AssertionError("unreachable")  # pragma: no cover


def _schema_race(err: Exception) -> bool:
    """Whether ``err`` is Optuna creating its tables in two processes at once (optuna#1092,
    optuna#4621): one of them finds a table or the ``alembic_version`` row already there."""
    from sqlalchemy.exc import DatabaseError, IntegrityError

    return isinstance(err, IntegrityError) or (
        isinstance(err, DatabaseError) and "already exists" in str(err)
    )


def _cause(err: Exception, text: str) -> str:
    from sqlalchemy.exc import ArgumentError, OperationalError

    what = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    if isinstance(err, ImportError):
        missing = f" ({err.__cause__})" if err.__cause__ else ""
        return (
            f"its database driver is not installed{missing}. Install it, e.g. pip install "
            "psycopg2-binary for postgresql://, pymysql for mysql://."
        )
    if isinstance(err, ArgumentError):
        return (
            f"not a database address ({what}). Give a URL such as postgresql://user:pw@host/db "
            "or sqlite:///study.db, or a file path."
        )
    if _schema_race(err):
        return (
            f"other processes kept creating its tables at the same moment ({what}), still after "
            f"{_SCHEMA_TRIES} tries. Create the study once before starting the workers "
            f"(optuna create-study --storage {text} --study-name NAME), then start them."
        )
    if isinstance(err, RuntimeError) and "optuna" in str(err).lower():
        return f"its tables were written by another Optuna version. {err}"
    if isinstance(err, OperationalError):
        return (
            f"the database did not answer or refused the connection ({what}). Check the "
            "address, that the server runs and that the database and its user exist."
        )
    return f"{what}. Check that it is an Optuna storage this version of Optuna can read."


def _rdb(url: str, engine_kwargs: dict, sqlite: bool = False) -> Any:
    optuna = _optuna()
    with _experimental():
        storage = optuna.storages.RDBStorage(
            url, engine_kwargs=engine_kwargs, heartbeat_interval=HEARTBEAT_S,
            grace_period=STALE_AFTER_S, heartbeat_stale_trial_callback=_requeue,
        )  # fmt: skip
    if sqlite:
        _sqlite_pragmas(storage)
        storage = _retrying(storage)
    return storage


def _sqlite_pragmas(storage: Any) -> None:
    """Write-ahead log: readers no longer block the writer, so workers polling the study
    (counting trials, heartbeats) do not hold up the one writing a result."""
    from sqlalchemy import event

    @event.listens_for(storage.engine, "connect")
    def _wal(dbapi_connection, _record):  # noqa: ANN001
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    storage.engine.dispose()  # connections opened before the listener reopen with it


def _retrying(storage: Any) -> Any:
    """``storage`` whose calls retry (with backoff, up to about a minute) when SQLite answers
    "database is locked" despite the busy timeout (it gives up at once, without waiting, when
    two connections would deadlock on upgrading a read lock)."""
    from sqlalchemy.exc import OperationalError

    def wrap(method: Callable) -> Callable:
        def call(*args: Any, **kwargs: Any) -> Any:
            delay = 0.05
            for _ in range(12):
                try:
                    return method(*args, **kwargs)
                except OperationalError as err:
                    if "locked" not in str(err) and "busy" not in str(err):
                        raise
                    time.sleep(delay * (1 + np.random.random()))
                    delay = min(delay * 2, 8.0)
            return method(*args, **kwargs)

        return call

    for name, method in vars(_optuna().storages.BaseStorage).items():
        if callable(method) and not name.startswith("__") and hasattr(storage, name):
            setattr(storage, name, wrap(getattr(storage, name)))  # instance attributes win
    return storage


def _requeue(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
    """Queue a dead worker's trial to run again with the same parameters, once."""
    optuna = _optuna()
    if _RETRY in trial.user_attrs or not trial.params:
        return
    study.add_trial(optuna.create_trial(
        state=optuna.trial.TrialState.WAITING, params=trial.params,
        distributions=trial.distributions, user_attrs={_RETRY: trial.number},
    ))  # fmt: skip


def _uses_optuna_heartbeat(study: optuna.Study) -> bool:
    from optuna.storages._heartbeat import is_heartbeat_enabled

    return is_heartbeat_enabled(study._storage)


def fail_stale(study: optuna.Study) -> None:
    """Mark failed the running trials of dead workers (heartbeat older than STALE_AFTER_S) and
    queue their parameters again."""
    optuna = _optuna()
    if _uses_optuna_heartbeat(study):
        with _experimental():
            optuna.storages.fail_stale_trials(study)
        return
    storage = study._storage
    if isinstance(storage, optuna.storages.InMemoryStorage):
        return  # only this process runs its trials
    now = time.time()
    for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
        started = t.datetime_start.timestamp() if t.datetime_start else now
        if now - t.user_attrs.get(ALIVE, started) < STALE_AFTER_S:
            continue
        trial_id = storage.get_trial_id_from_study_id_trial_number(study._study_id, t.number)
        try:
            storage.set_trial_state_values(trial_id, optuna.trial.TrialState.FAIL)
        except optuna.exceptions.UpdateFinishedTrialError:
            continue  # another worker got there first
        _requeue(study, storage.get_trial(trial_id))


@contextlib.contextmanager
def heartbeat(study: optuna.Study, trial: optuna.Trial) -> Iterator[None]:
    """Record ``trial``'s heartbeat every HEARTBEAT_S seconds while the block runs, where Optuna
    does not (journal files); database storages have Optuna's own."""
    optuna = _optuna()
    if _uses_optuna_heartbeat(study) or isinstance(study._storage, optuna.storages.InMemoryStorage):
        yield
        return
    stop = threading.Event()

    def beat() -> None:
        while True:
            with contextlib.suppress(Exception):  # a finished trial, a busy file: next beat
                trial.set_user_attr(ALIVE, time.time())
            if stop.wait(HEARTBEAT_S):
                return

    thread = threading.Thread(target=beat, daemon=True, name=f"heartbeat-{trial.number}")
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def finished_states() -> tuple:
    state = _optuna().trial.TrialState
    return (state.COMPLETE, state.PRUNED)


def taken(study: optuna.Study, before: int | None = None) -> int:
    """Finished trials plus the running trials of live workers (numbered below ``before``).

    Call :func:`fail_stale` first: running trials are taken as alive."""
    state = _optuna().trial.TrialState
    n = 0
    for t in study.get_trials(deepcopy=False, states=(*finished_states(), state.RUNNING)):
        n += t.state != state.RUNNING or before is None or t.number < before
    return n


def per_trial_sampler(seed: int | None, conditional: bool = False) -> Any:
    """A sampler that runs a TPE sampler per trial, seeded from ``(seed, trial number)``.

    TPE keeps no state between trials but its random generator; seeding that generator from the
    trial number instead of once per process gives every worker of a shared study different
    draws (the numbers are unique in the study), while one worker with one ``seed`` replays the
    same study. ``constant_liar`` keeps TPE from proposing again the points that other workers
    are running; ``conditional`` turns on TPE's joint model of the parameters drawn together
    (``multivariate``, ``group``), for spaces that search over the attention variant.
    """
    return _sampler_class()(seed, conditional)


@functools.cache
def _sampler_class() -> type:
    optuna = _optuna()

    class PerTrialTPE(optuna.samplers.BaseSampler):
        def __init__(self, seed: int | None, conditional: bool) -> None:
            self._seed, self._conditional = seed, conditional
            self._by_trial: dict[int, Any] = {}

        def _for(self, trial: Any) -> Any:
            sampler = self._by_trial.get(trial.number)
            if sampler is None:
                seed = None
                if self._seed is not None:
                    seed = int(np.random.SeedSequence([self._seed, trial.number]).generate_state(1)[0])
                with _experimental():
                    sampler = optuna.samplers.TPESampler(
                        seed=seed, constant_liar=True, multivariate=self._conditional,
                        group=self._conditional,
                    )  # fmt: skip
                self._by_trial[trial.number] = sampler
            return sampler

        def infer_relative_search_space(self, study, trial):  # noqa: ANN001
            return self._for(trial).infer_relative_search_space(study, trial)

        def sample_relative(self, study, trial, search_space):  # noqa: ANN001
            return self._for(trial).sample_relative(study, trial, search_space)

        def sample_independent(self, study, trial, param_name, param_distribution):  # noqa: ANN001
            return self._for(trial).sample_independent(study, trial, param_name, param_distribution)

        def before_trial(self, study, trial):  # noqa: ANN001
            self._for(trial).before_trial(study, trial)

        def after_trial(self, study, trial, state, values):  # noqa: ANN001
            self._for(trial).after_trial(study, trial, state, values)
            self._by_trial.pop(trial.number, None)

        def reseed_rng(self) -> None:
            for sampler in self._by_trial.values():
                sampler.reseed_rng()

    return PerTrialTPE
