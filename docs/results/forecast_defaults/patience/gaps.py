"""What early stopping after ``P`` rounds without a better validation loss would have done to the
fits of ``histories.jsonl`` (all trained 20 rounds): the fits whose kept round is unchanged, the
share of rounds run, and the validation loss at the round kept against the full fit's best.
Writes ``gaps.md``.

    python3 gaps.py
"""

import collections
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROWS = [json.loads(line) for line in open(HERE / "histories.jsonl") if line.startswith("{")]


def stop(val, patience):
    """(round kept, rounds run) with early stopping after ``patience`` rounds (None: never)."""
    best, kept, since = float("inf"), 0, 0
    for i, v in enumerate(val, 1):
        better = v is not None and v < best  # None: a round without a validation loss
        best, kept, since = (v, i, 0) if better else (best, kept, since + 1)
        if patience is not None and since >= patience:
            return kept, i
    return kept, len(val)


lines = ["# early stopping on the default fits' validation histories", ""]
for mode in ("val", "test"):
    rows = [r for r in ROWS if r["mode"] == mode]
    lines += [f"## mode `{mode}` ({len(rows)} fits: 10 set-horizon pairs x seeds 0-2)", "",
              "| patience | kept round unchanged | rounds run (mean share) | changed fits: round kept -> full fit's best (validation loss ratio) |",
              "|---|---|---|---|"]
    for p in (4, 5, 6, 7, 8, 10):
        same, share, changed = 0, [], []
        for r in rows:
            full, _ = stop(r["val"], None)
            kept, ran = stop(r["val"], p)
            same += kept == full
            share.append(ran / len(r["val"]))
            if kept != full:
                ratio = r["val"][kept - 1] / r["val"][full - 1]
                changed.append(f"{r['ds']} h{r['h']} s{r['seed']}: {kept} -> {full} ({ratio:.3f})")
        lines.append(f"| {p} | {same}/{len(rows)} | {sum(share) / len(share):.2f} | "
                     f"{'; '.join(changed) or '-'} |")
    by = collections.defaultdict(list)
    for r in rows:
        by[r["ds"]].append(stop(r["val"], 8)[1] / len(r["val"]))
    lines += ["", "Share of rounds run with patience 8, per set: "
              + ", ".join(f"{k} {sum(v) / len(v):.2f}" for k, v in by.items()), ""]
(HERE / "gaps.md").write_text("\n".join(lines))
print("\n".join(lines))
