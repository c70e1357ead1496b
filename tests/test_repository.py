"""The repository is the product: no file in it names a folder of the machine that wrote it.

A record's command, a script's default or a traceback kept in a results table gives a path relative
to the repository, or a placeholder such as ``<archives>``, so a clone reads the same on any machine
(issue 36).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: An absolute path into a home, working or temporary folder. The slash that starts it follows no
#: name character, dot, tilde or slash, so URLs (a host, then a folder named home) and relative
#: paths (``docs``, then a folder named tmp) do not count.
MACHINE_PATH = re.compile(r"(?<![\w.~/-])/(?:home|Users|root|work|tmp)/")


def _tracked_text_files() -> list[Path]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    proc = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if proc.returncode != 0:
        pytest.skip("not a git checkout")
    files = []
    for name in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        path = ROOT / name
        if name and path.is_file() and not path.is_symlink():
            files.append(path)
    return files


def _hits(path: Path) -> list[str]:
    data = path.read_bytes()
    if b"\0" in data[:8192]:  # binary: pictures, arrays, archives
        return []
    hits = []
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        match = MACHINE_PATH.search(line)
        if match:
            excerpt = line[max(0, match.start() - 40): match.end() + 60].strip()
            hits.append(f"{path.relative_to(ROOT)}:{number}: {excerpt}")
    return hits


def test_no_tracked_file_names_a_path_of_a_machine():
    files = _tracked_text_files()
    assert files, "git lists no tracked file"
    hits = [hit for path in files for hit in _hits(path)]
    assert not hits, (
        f"{len(hits)} line(s) name an absolute home, working or temporary folder; give a path "
        "relative to the repository or a placeholder instead:\n" + "\n".join(hits)
    )


@pytest.mark.parametrize("line, found", [
    ("--out {root}work/exp/fc1", True),  # written out, these paths would fail the test above
    ('File "{root}home/me/.venv/lib/x.py"', True),
    ("cd {root}tmp/before", True),
    ("--out docs/results/speed/profile_fit/after", False),
    ("https://example.org{root}home{root}page", False),
    ("docs{root}tmp{root}x", False),
    ("~/.cache/tsattn", False),
    ("$OLDPWD/docs/results", False),
])
def test_the_pattern_tells_a_machine_path_from_a_relative_one(line, found):
    assert bool(MACHINE_PATH.search(line.format(root="/"))) is found
