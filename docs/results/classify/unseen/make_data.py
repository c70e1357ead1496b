"""Write this folder's sets as the archives' ``.ts`` files, in a folder laid out for
``TSATTN_DATA_DIR`` (``<out>/ucr/<Name>_TRAIN.ts``, ``<out>/uea/ERing_TRAIN.ts``).

The UCR sets come in the archive's 2018 ``.tsv`` form (label first, tab separated:
``<ucr>/<Name>/<Name>_TRAIN.tsv``), ERing (UEA) as ``.arff``; both are read with aeon's readers
and written with aeon's ``save_to_ts_file``. ``sources.tsv`` records the sha256 of every input
file this folder's run read, and the script checks them::

    python3 docs/results/classify/unseen/make_data.py <ucr tsv folder> <ERing arff folder> <out>
"""
from __future__ import annotations

import csv
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(ucr: str, uea: str, out: str) -> None:
    from aeon.datasets import load_from_arff_file, load_from_tsv_file, save_to_ts_file

    with open(HERE / "sources.tsv", newline="") as fh:
        expected = {r["file"]: r["sha256"] for r in csv.DictReader(fh, delimiter="\t")}
    names = [n for n in json.loads((HERE / "config.json").read_text())["datasets_resolved"]
             if n != "ERing"]
    for name in [*names, "ERing"]:
        for split in ("TRAIN", "TEST"):
            if name == "ERing":
                src, archive = Path(uea) / f"ERing_{split}.arff", "uea"
                X, y = load_from_arff_file(str(src))
            else:
                src, archive = Path(ucr) / name / f"{name}_{split}.tsv", "ucr"
                X, y = load_from_tsv_file(str(src))
            if _sha256(src) != expected.get(src.name):
                raise SystemExit(f"{src}: sha256 {_sha256(src)} is not the one in sources.tsv "
                                 f"({expected.get(src.name)}); a different copy of the set")
            (Path(out) / archive).mkdir(parents=True, exist_ok=True)
            save_to_ts_file(np.asarray(X), np.asarray(y), label_type="classification",
                            path=str(Path(out) / archive), problem_name=f"{name}_{split}")
    print(f"wrote {2 * (len(names) + 1)} files under {out}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
