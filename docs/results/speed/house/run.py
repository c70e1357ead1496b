"""Issue 76's speed check: the default M4 Hourly and EPF fits of the rebuilt forecaster against
those of main before it (3e3a6cc), interleaved in one run on one machine
(:func:`tsattn.benchmarks.fit_versions.compare_fit_times`: each version in its own worker, ABBA
order), with each worker's peak resident memory.

    TSATTN_DATA_DIR=<shared datasets> PYTHONPATH=. python3 docs/results/speed/house/run.py \
        [--baseline 3e3a6cc] [--repeats 2] [--threads 2]

Writes ``fit_time.csv`` (one row per fit) and ``summary.csv`` / ``summary.json`` here.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

from tsattn.benchmarks.fit_versions import compare_fit_times, summarise
from tsattn.benchmarks.runinfo import code_state, machine

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="3e3a6cc")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tasks", nargs="+", default=["m4:Hourly", "epf:NP"])
    args = parser.parse_args()
    (HERE / "fit_time.csv").unlink(missing_ok=True)
    rows = compare_fit_times(args.tasks, args.baseline, HERE, repeats=args.repeats,
                             threads=args.threads, log=lambda m: print(m, flush=True))  # fmt: skip
    table, totals = summarise(rows)
    memory = rows.groupby(["dataset", "version"])["peak_rss_mb"].max().unstack("version")
    table = table.merge((memory["current"] / memory["baseline"]).rename("peak_rss_ratio"),
                        left_on="dataset", right_index=True)  # fmt: skip
    table.to_csv(HERE / "summary.csv", index=False, float_format="%.4g")
    record = {"command": " ".join(["python3", "docs/results/speed/house/run.py", *sys.argv[1:]]),
              "baseline": args.baseline, "code": code_state(), "machine": machine(),
              "python": platform.python_version(), "totals": totals,
              "peak_rss_mb": memory.to_dict()}  # fmt: skip
    (HERE / "summary.json").write_text(json.dumps(record, indent=2, default=repr) + "\n")
    print(table.to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
