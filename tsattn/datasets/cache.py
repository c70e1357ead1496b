"""Local data cache: where files live, checksum checks, and safe downloads.

The cache is a plain folder laid out like ``forecasting/ETTh1.csv``, ``uea/<Name>_TRAIN.ts``,
``ucr/<Name>_TEST.ts``, ``tser/<Name>_TRAIN.ts``, so a folder of copies made by hand or by another
tool is used as it is. Nothing is written into the cache unless a file has to be downloaded; a
read-only cache holding valid files is simply read.

Checks: a file is verified against the sha256 the catalogue records; else against the git blob id
(``git_sha1``) its source repository publishes in its tree; else, for a file the cache downloaded
itself, against the sha256 it recorded beside the file at that download (``<file>.sha256``, in
``sha256sum`` format). A file placed by hand with no recorded checksum of any kind is used as it is.

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
    "git_blob_sha1",
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


def git_blob_sha1(path: str | os.PathLike) -> str:
    """Return the git blob id of a file (``git hash-object``: sha1 of ``"blob <size>\\0"`` and the
    bytes), the checksum a git repository's tree publishes for each file."""
    size = os.path.getsize(path)
    digest = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _sidecar(path: Path) -> Path:
    """Where the sha256 of a download without a catalogue checksum is recorded."""
    return path.with_name(path.name + ".sha256")


def _recorded_sha256(path: Path) -> str | None:
    try:
        text = _sidecar(path).read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return None
    return text[0].lower() if text else None


def _problem(path: Path, sha256: str | None, git_sha1: str | None) -> str | None:
    """None when ``path`` holds a verified file, else what is wrong with it."""
    if not path.is_file():
        return "missing"
    if sha256 is not None:
        got = sha256_file(path)
        return None if got == sha256 else f"sha256 {got} differs from the recorded {sha256}"
    if git_sha1 is not None:
        got = git_blob_sha1(path)
        return None if got == git_sha1 else (f"git blob id {got} differs from the source "
                                             f"repository's {git_sha1}")  # fmt: skip
    recorded = _recorded_sha256(path)
    if recorded is None:
        return None
    got = sha256_file(path)
    return None if got == recorded else (
        f"sha256 {got} differs from {recorded}, recorded in {_sidecar(path)} when the file was "
        "downloaded")


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


def ensure_file(relpath: str, sources: Sequence[Source], sha256: str | None = None,
                git_sha1: str | None = None) -> Path:
    """Return the path of a verified cached file, downloading it first if needed.

    Parameters
    ----------
    relpath : str
        Path inside the cache, e.g. ``"forecasting/ETTh1.csv"``.
    sources : sequence of Source
        Canonical locations, tried in order after the ``TSATTN_DATA_URL`` mirror (if set).
    sha256 : str or None
        Expected checksum; None when none is recorded.
    git_sha1 : str or None
        The git blob id the source repository publishes, checked where no ``sha256`` is given.
        With neither, a downloaded file's sha256 is recorded beside it and checked afterwards; a
        file placed by hand is accepted as it is.

    Returns
    -------
    pathlib.Path
        The cached file. A cached file whose checksum differs is never returned: it is fetched
        again and replaced atomically (or, offline, the error names both checksums).

    Raises
    ------
    DatasetNotAvailableError
        No valid cached copy and every source failed (or ``TSATTN_OFFLINE=1``).
    """
    target = data_dir() / relpath
    corrupt = _problem(target, sha256, git_sha1)
    if corrupt is None:
        return target
    if corrupt == "missing":
        corrupt = None
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
        if _problem(target, sha256, git_sha1) is None:
            return target
        errors = []
        for source in sources:
            try:
                _download(source, target, sha256, git_sha1)
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
                   corrupt: str | None) -> DatasetNotAvailableError:
    urls = "\n".join(f"  - {s.url}" + (f" (extract {s.member})" if s.member else "")
                     for s in sources) or "  (no known source)"
    why = "\n".join(f"  - {e}" for e in errors)
    state = f"has a wrong checksum: {corrupt}" if corrupt else "is not in the cache"
    return DatasetNotAvailableError(
        f"{relpath} ({target}) {state}; it could not be downloaded.\n"
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


def _download(source: Source, target: Path, sha256: str | None, git_sha1: str | None) -> None:
    """Download ``source`` to a temp file beside ``target``, verify, then ``os.replace``; with no
    checksum to verify, record the sha256 of what came (``<target>.sha256``)."""
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
        if sha256 is not None or git_sha1 is not None:
            problem = _problem(tmp, sha256, git_sha1)
            if problem is not None:
                raise ChecksumError(problem)
            _sidecar(target).unlink(missing_ok=True)
            os.replace(tmp, target)
            return
        digest = sha256_file(tmp)
        os.replace(tmp, target)
        _sidecar(target).write_text(f"{digest}  {target.name}\n", encoding="ascii")
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
