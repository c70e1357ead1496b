"""Local data cache: where files live, checksum checks, and safe downloads.

The cache is a plain folder laid out like ``forecasting/ETTh1.csv``, ``uea/<Name>_TRAIN.ts``,
``ucr/<Name>_TEST.ts``, ``tser/<Name>_TRAIN.ts``, so a folder of copies made by hand or by another
tool is used as it is. Nothing is written into the cache unless a file has to be downloaded; a
read-only cache holding valid files is simply read.

Environment variables
---------------------
``TSATTN_DATA_DIR``
    The cache folder (default ``$XDG_CACHE_HOME/tsattn``, i.e. ``~/.cache/tsattn``).
``TSATTN_DATA_URL``
    Base URL of a mirror laid out like the cache (``<base>/uea/BasicMotions_TRAIN.ts``); tried
    before the canonical sources.
``TSATTN_OFFLINE``
    ``1`` to never touch the network: a missing file raises at once.
``TSATTN_CONNECT_TIMEOUT``
    Seconds allowed to open a connection (default 2), so that an unreachable host fails fast.
"""

from __future__ import annotations

import hashlib
import io
import os
import socket
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tsattn._filelock import acquire_lock, release_lock

__all__ = [
    "ChecksumError",
    "DatasetNotAvailableError",
    "SettingError",
    "Source",
    "data_dir",
    "ensure_file",
    "sha256_file",
]

_READ_TIMEOUT = 60.0
_CHUNK = 1 << 20


class DatasetNotAvailableError(OSError):
    """A data file is not in the cache and could not be downloaded."""


class ChecksumError(OSError):
    """A file's sha256 differs from the one recorded in the catalogue."""


class SettingError(ValueError):
    """An environment variable of the data cache (``TSATTN_*``) holds a value it cannot use."""


@dataclass(frozen=True)
class Source:
    """Where a file can be downloaded from.

    Parameters
    ----------
    url : str
        The address to fetch.
    member : str or None
        For a zip archive, the base name of the file to extract from it; None for a plain file.
    """

    url: str
    member: str | None = None


def data_dir() -> Path:
    """Return the cache folder: ``$TSATTN_DATA_DIR``, else ``$XDG_CACHE_HOME/tsattn``."""
    env = os.environ.get("TSATTN_DATA_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "tsattn"


def sha256_file(path: str | os.PathLike) -> str:
    """Return the hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"", "0", "false", "no", "off"}


def _offline() -> bool:
    raw = os.environ.get("TSATTN_OFFLINE", "")
    value = raw.strip().lower()
    if value not in _TRUE | _FALSE:
        raise SettingError(
            f"environment variable TSATTN_OFFLINE={raw!r} is neither on ({', '.join(sorted(_TRUE))}) "
            f"nor off ({', '.join(sorted(_FALSE - {''}))}, or unset); set it to 1 to never use "
            "the network, or unset it."
        )
    return value in _TRUE


def _connect_timeout() -> float:
    raw = os.environ.get("TSATTN_CONNECT_TIMEOUT", "2")
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise SettingError(
            f"environment variable TSATTN_CONNECT_TIMEOUT={raw!r} is not a number of seconds > 0; "
            "set it to e.g. 2 (the default, used when it is unset) or 10 for a slow network."
        )
    return value


def _is_valid(path: Path, sha256: str | None) -> bool:
    return path.is_file() and (sha256 is None or sha256_file(path) == sha256)


def ensure_file(relpath: str, sources: Sequence[Source], sha256: str | None = None) -> Path:
    """Return the path of a verified cached file, downloading it first if needed.

    Parameters
    ----------
    relpath : str
        Path inside the cache, e.g. ``"forecasting/ETTh1.csv"``.
    sources : sequence of Source
        Canonical locations, tried in order after the ``TSATTN_DATA_URL`` mirror (if set).
    sha256 : str or None
        Expected checksum; None when none is recorded (the file is then accepted as it is).

    Returns
    -------
    pathlib.Path
        The cached file. A cached file whose checksum differs is never returned: it is fetched
        again and replaced atomically.

    Raises
    ------
    DatasetNotAvailableError
        No valid cached copy and every source failed (or ``TSATTN_OFFLINE=1``).
    """
    target = data_dir() / relpath
    if _is_valid(target, sha256):
        return target
    corrupt = target.exists()
    sources = _with_mirror(relpath, sources)
    if _offline():
        raise _not_available(target, relpath, sources, ["TSATTN_OFFLINE is set"], corrupt)
    _connect_timeout()  # a malformed setting is named now, not once per source among the errors
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _not_available(target, relpath, sources, [f"cannot create {target.parent}: {exc}"],
                             corrupt) from exc
    try:
        lock_fd = acquire_lock(target)
    except OSError as exc:
        raise _not_available(target, relpath, sources, [f"cannot write to {target.parent}: {exc}"],
                             corrupt) from exc
    try:
        # Another process may have finished the download while we waited for the lock.
        if _is_valid(target, sha256):
            return target
        errors = []
        for source in sources:
            try:
                _download(source, target, sha256)
                return target
            except (OSError, zipfile.BadZipFile, KeyError, ValueError) as exc:
                errors.append(f"{source.url}: {exc}")
        raise _not_available(target, relpath, sources, errors, corrupt)
    finally:
        release_lock(lock_fd)


def _with_mirror(relpath: str, sources: Sequence[Source]) -> list[Source]:
    base = os.environ.get("TSATTN_DATA_URL")
    mirror = [Source(base.rstrip("/") + "/" + relpath)] if base else []
    return mirror + list(sources)


def _not_available(target: Path, relpath: str, sources: Sequence[Source], errors: list[str],
                   corrupt: bool) -> DatasetNotAvailableError:
    urls = "\n".join(f"  - {s.url}" + (f" (extract {s.member})" if s.member else "")
                     for s in sources) or "  (no known source)"
    why = "\n".join(f"  - {e}" for e in errors)
    state = "has a wrong checksum" if corrupt else "is not in the cache"
    return DatasetNotAvailableError(
        f"{relpath} {state} ({target}) and could not be downloaded.\n"
        f"Sources tried:\n{urls}\nErrors:\n{why}\n"
        f"Fix: connect to the internet, or download the file by hand and save it as {target} "
        f"(or point TSATTN_DATA_DIR at a folder laid out as <folder>/{relpath})."
    )


def _open_url(url: str):
    """Open ``url``, failing within the connect timeout when the host cannot be reached."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in {"http", "https"}:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        # A plain TCP probe with a short timeout: urlopen's single timeout would also cut off
        # slow but healthy transfers.
        with socket.create_connection((parts.hostname, port), timeout=_connect_timeout()):
            pass
    request = urllib.request.Request(url, headers={"User-Agent": "tsattn-datasets"})
    return urllib.request.urlopen(request, timeout=_READ_TIMEOUT)


def _download(source: Source, target: Path, sha256: str | None) -> None:
    """Download ``source`` to a temp file beside ``target``, verify, then ``os.replace``."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out, _open_url(source.url) as response:
            total = int(response.headers.get("Content-Length") or 0) or None
            received = _copy_with_progress(response, out, total, os.path.basename(
                urllib.parse.urlsplit(source.url).path) or target.name)
        if total is not None and received != total:
            raise OSError(f"incomplete download: {received} of {total} bytes")
        if source.member is not None:
            _extract_member(tmp, source.member)
        if sha256 is not None:
            got = sha256_file(tmp)
            if got != sha256:
                raise ChecksumError(f"sha256 {got} differs from the recorded {sha256}")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _copy_with_progress(response, out: io.BufferedWriter, total: int | None, label: str) -> int:
    from tqdm.auto import tqdm

    received = 0
    with tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=label,
              leave=False) as bar:
        for chunk in iter(lambda: response.read(_CHUNK), b""):
            out.write(chunk)
            received += len(chunk)
            bar.update(len(chunk))
    return received


def _extract_member(path: Path, member: str) -> None:
    """Replace the zip file at ``path`` by its member whose base name is ``member``."""
    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == member]
        if not names:
            raise KeyError(f"{member} not found in the zip archive")
        data = archive.read(names[0])
    path.write_bytes(data)
