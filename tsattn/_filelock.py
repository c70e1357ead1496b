"""An exclusive inter-process lock on a file's sibling ``.<name>.lock`` (POSIX ``fcntl``).

Used where several processes may create the same file at once: the dataset cache's downloads and
the SQLite storage of an Optuna study (whose first connection writes the schema).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["acquire_lock", "release_lock", "file_lock"]


def acquire_lock(target: Path) -> int:
    """Block until this process holds an exclusive ``fcntl`` lock on ``.<name>.lock``."""
    lock_path = target.with_name(f".{target.name}.lock")
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:
        os.close(fd)
        raise
    return fd


def release_lock(fd: int) -> None:
    """Release a lock from :func:`acquire_lock`."""
    # The lock file stays: unlinking it would let a third process lock a fresh inode.
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


@contextlib.contextmanager
def file_lock(target: Path) -> Iterator[None]:
    """``with file_lock(path):`` holds :func:`acquire_lock` on ``path`` for the block."""
    fd = acquire_lock(target)
    try:
        yield
    finally:
        release_lock(fd)
