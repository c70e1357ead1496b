"""The resumable CSV of ``ensemble_cv.py`` and ``tta_cv.py``: one row per (dataset, fold)."""
import csv
import os


def done(out):
    """The (dataset, fold) pairs already in ``out``."""
    if not os.path.exists(out):
        return set()
    with open(out) as f:
        return {(r["dataset"], int(r["fold"])) for r in csv.DictReader(f)}


def append(out, row):
    """Append ``row`` to ``out`` (the header first in a new file) and print it."""
    new = not os.path.exists(out)
    with open(out, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)
    print(row, flush=True)
