"""The dataset catalogue: one JSON file shipped with the package, read by the loaders and rendered
into the human-readable ``datasets/README.md`` (``tsattn datasets catalogue --write``).

``catalogue.json`` holds, per archive, the dataset names (UEA multivariate 2018, UCR 2018, TSER, as
listed by aeon 1.6), their Zenodo record ids and URL templates; per forecasting set its URL,
frequency, split convention and shape; the panels (the EPF markets and the M4 frequencies) with
their sources, covariates, horizons and seasonal periods; the sha256 of every file known byte for byte; and the
papers' published numbers and settings. Edit the JSON, then regenerate the README.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from tsattn._validation import did_you_mean

__all__ = [
    "ARCHIVES",
    "FORECASTING",
    "PANELS",
    "archive_names",
    "catalogue",
    "file_checksums",
    "file_sha256",
    "list_datasets",
    "published_tables",
    "render_readme",
    "resolve_name",
]

ARCHIVES = ("uea", "ucr", "tser")
FORECASTING = "forecasting"
#: Sets of many series loaded as long frames (``load_epf``, ``load_m4``): their names are keys of
#: ``catalogue()[panel][_PANEL_NAMES[panel]]``.
PANELS = ("epf", "m4")
_PANEL_NAMES = {"epf": "markets", "m4": "frequencies"}
_ALL = (*ARCHIVES, FORECASTING, *PANELS)


@lru_cache(maxsize=1)
def catalogue() -> dict[str, Any]:
    """Return the parsed ``catalogue.json`` (cached; treat it as read-only)."""
    text = resources.files("tsattn.datasets").joinpath("catalogue.json").read_text("utf-8")
    return json.loads(text)


def published_tables(archive: str) -> list[dict[str, Any]]:
    """The catalogue's tables of published numbers for ``archive`` (``"uea"``, ``"ucr"``,
    ``"tser"``, ``"forecasting"``): each a dict with ``source``, ``metric``, ``columns`` (models)
    and ``rows`` (dataset, or ``"dataset h=96"`` for forecasting, -> one value per column)."""
    return [t for t in catalogue()["published"] if t.get("archive") == archive]


def archive_names(archive: str) -> list[str]:
    """Return the dataset names of ``archive`` (``"uea"``, ``"ucr"``, ``"tser"``, ``"forecasting"``,
    ``"epf"`` (markets), ``"m4"`` (frequencies))."""
    cat = catalogue()
    if archive == FORECASTING:
        return list(cat["forecasting"])
    if archive in PANELS:
        return list(cat[archive][_PANEL_NAMES[archive]])
    if archive not in cat["archives"]:
        raise ValueError(f"unknown archive {archive!r}; expected one of {', '.join(_ALL)}")
    return list(cat["archives"][archive]["names"])


def list_datasets(archive: str | None = None) -> dict[str, list[str]]:
    """Return ``{archive: [names]}`` for one archive or, with None, for all of them."""
    archives = _ALL if archive is None else (archive,)
    return {a: archive_names(a) for a in archives}


def resolve_name(name: str, archive: str) -> str:
    """Return the catalogue spelling of ``name`` in ``archive`` (exact, else case-insensitive).

    Raises
    ------
    ValueError
        Unknown name; the message lists close matches.
    """
    names = archive_names(archive)
    if name in names:
        return name
    folded = {n.lower(): n for n in names}
    if isinstance(name, str) and name.lower() in folded:
        return folded[name.lower()]
    raise ValueError(
        f"unknown {archive} dataset {name!r}.{did_you_mean(name, names, 5, quote=False)} "
        f"See tsattn.datasets.list_datasets({archive!r}) for the {len(names)} valid names."
    )


def file_sha256(relpath: str) -> str | None:
    """Return the recorded sha256 of a cache-relative file path, or None if none is recorded."""
    return file_checksums(relpath)[0]


def file_checksums(relpath: str) -> tuple[str | None, str | None]:
    """Return ``(sha256, git_sha1)`` recorded for a cache-relative file path (None where not
    recorded); ``git_sha1`` is the blob id published by the file's source git repository."""
    entry = catalogue()["files"].get(relpath, {})
    return entry.get("sha256"), entry.get("git_sha1")


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def _shape(entry: dict[str, Any]) -> str:
    return " x ".join(str(s) for s in entry["shape"])


def _checksum(entry: dict[str, Any] | None) -> str:
    if not entry:
        return "recorded at first download"
    if "sha256" in entry:
        return f"`{entry['sha256']}`"
    return f"git blob `{entry['git_sha1']}`"


def _panel_lines(cat: dict[str, Any]) -> list[str]:
    """The README's sections on the EPF markets and the M4 frequencies (long frames)."""
    files, epf, m4 = cat["files"], cat["epf"], cat["m4"]
    lines = ["", f"## {epf['title']}", "",
             f"- Load: `tsattn.datasets.load_epf(market)`: a long frame `unique_id, ds, y` (the "
             f"price) and the two covariates below; frequency {epf['frequency']}, horizon "
             f"{epf['horizon']}, seasonal period {epf['seasonal_period']} (`epf_info(market)`).",
             f"- Reference: {epf['reference']}; homepage {epf['homepage']}",
             f"- Licence: {epf['licence']}", f"- Time: {epf['time']}",
             f"- Covariates: {epf['future_known']}", "- Sources (`source=`):", ""]
    lines += [f"  - `{key}`: `{src['file']}` from {src['url']}: {src['about']}"
              for key, src in epf["sources"].items()]  # fmt: skip
    rows = [[f"`{m}`", e["name"], " to ".join(e["period"]), e["rows"],
             "; ".join(f"`{c}`: {v['about']}" for c, v in e["covariates"].items()),
             _checksum(files.get(epf["sources"]["timexer"]["file"].format(market=m)))]
            for m, e in epf["markets"].items()]  # fmt: skip
    lines += [""] + _table(["market", "price", "period", "rows", "covariates",
                            "sha256 (timexer)"], rows)  # fmt: skip
    lines += ["", f"## {m4['title']}", "",
              "- Load: `tsattn.datasets.load_m4(frequency, split)`: a long frame `unique_id, ds, y`; "
              "`m4_info(frequency)` gives the horizon and seasonal period.",
              f"- Reference: {m4['reference']}; homepage {m4['homepage']}",
              f"- Licence: {m4['licence']}", f"- Files: `{m4['file']}` from {m4['url']}",
              f"- Format: {m4['format']}", f"- Time: {m4['time']}", ""]
    rows = []
    for name, f in m4["frequencies"].items():
        sums = [_checksum(files.get(m4["file"].format(frequency=name, split=s)))
                for s in ("train", "test")]
        rows.append([f"`{name}`", f["n_series"], f["horizon"], f["seasonal_period"], *sums])
    lines += _table(["frequency", "series", "horizon", "seasonal period", "train checksum",
                     "test checksum"], rows)  # fmt: skip
    return lines


def _derived_lines(cat: dict[str, Any]) -> list[str]:
    """The README's sections on the derived regression tasks and the regression suite."""
    d = cat["derived"]
    lines = ["", f"## {d['title']}", "", d["about"], ""]
    rows = [[f"`{name}`", f"`{t['source']}`", ", ".join(f"`{c}`" for c in t["inputs"]),
             f"`{t['target']}`", t["window"], t["horizon"], t["stride"], t["description"]]
            for name, t in d["tasks"].items()]  # fmt: skip
    lines += _table(["name", "source", "inputs", "target", "window", "horizon", "stride",
                     "what"], rows)  # fmt: skip
    suite = cat["regression_suite"]
    lines += ["", "## Regression suite", "", suite["about"], "",
              ", ".join(f"`{n}`" for n in suite["names"])]
    return lines


def render_readme() -> str:
    """Return the text of ``datasets/README.md``, generated from ``catalogue.json``."""
    cat = catalogue()
    files = cat["files"]
    lines = [
        "# Datasets",
        "",
        "<!-- Generated from tsattn/datasets/catalogue.json by "
        "`tsattn datasets catalogue --write datasets/README.md`; do not edit by hand. -->",
        "",
        "Load any of these with one call (`tsattn.datasets.load_uea`, `load_ucr`, `load_tser`, "
        "`load_forecasting`, `load_epf`, `load_m4`); files are downloaded once into the cache (`TSATTN_DATA_DIR`, default "
        "`~/.cache/tsattn`), laid out as below, verified against the sha256 recorded here where "
        "one is known (else a git blob id published by the source, else the sha256 recorded at "
        "the first download). A folder of copies made by hand with the same layout is used as it is.",
        "",
        "Environment: `TSATTN_DATA_DIR` (cache folder), `TSATTN_DATA_URL` (mirror base URL laid "
        "out like the cache, tried first), `TSATTN_OFFLINE=1` (never use the network), "
        "`TSATTN_CONNECT_TIMEOUT` (seconds, default 2). Data bundled inside aeon (e.g. "
        "BasicMotions, JapaneseVowels, GunPoint, ArrowHead, ItalyPowerDemand, OSULeaf, "
        "Covid3Month) is used without a download when the cache has no copy.",
        "",
        "Command line: `tsattn datasets list`, `tsattn datasets fetch NAME...`, "
        "`tsattn datasets catalogue --write datasets/README.md`.",
        "",
        "## Long-horizon forecasting",
        "",
        "Split convention (the Informer/Autoformer code, `data_loader.py`): ETT hourly sets use "
        "12/4/4 months = 8640/2880/2880 rows; ETT 15-minute sets the same months (x4 rows); all "
        "others 70/10/20 by time with `num_train = int(n*0.7)`, `num_test = int(n*0.2)`, "
        "`num_vali = n - num_train - num_test`. Validation and test windows start "
        "`context_length` steps before their split; the scaler is fitted on the train split only.",
        "",
    ]
    rows = []
    for name, e in cat["forecasting"].items():
        sha = files.get(e["file"], {}).get("sha256", "not recorded")
        shape = _shape(e) + ("" if e["file"] in files else " (paper, unverified)")
        rows.append([f"`{name}`", f"`{e['file']}`", e["url"], e["frequency"], shape,
                     e["split"], f"{e['context_length']} -> {e['horizons']}", e["licence"],
                     f"`{sha}`"])
    lines += _table(["name", "cache path", "source URL", "freq", "rows x channels", "split",
                     "context -> horizons", "licence", "sha256"], rows)
    lines += _panel_lines(cat)
    for key in ARCHIVES:
        a = cat["archives"][key]
        lines += [
            "",
            f"## {a['title']}",
            "",
            f"- Task: {a['task']}; {len(a['names'])} datasets; cache path `{key}/<Name>_TRAIN.ts`, "
            f"`{key}/<Name>_TEST.ts`" + (" (and `ucr/tsv/<Name>_TRAIN.tsv` for the .tsv form)"
                                          if key == "ucr" else ""),
            f"- Reference: {a['reference']}; homepage {a['homepage']}",
            f"- Licence: {a['licence']}",
            f"- Split: {a['split']}",
            "- Sources, tried in order: "
            + "; ".join(f"`{s}`" for s in a["sources"]),
            "",
            "Files recorded byte for byte (shape: cases x channels x length):",
            "",
        ]
        rows = [[f"`{p}`", _shape(f), f["bytes"], f"`{f['sha256']}`"]
                for p, f in files.items() if p.startswith(key + "/")]
        lines += _table(["file", "shape", "bytes", "sha256"], rows)
        lines += ["", "All names (Zenodo record id):", ""]
        lines += [", ".join(f"{n} ({a['zenodo'].get(n, '-')})" for n in a["names"])]
    lines += _derived_lines(cat)
    lines += ["", "## Published numbers", ""]
    for pub in cat["published"]:
        lines += [f"### {pub['source']}: {pub['archive']}, {pub['metric']}", ""]
        lines += _table(["dataset", *pub["columns"]], [[k, *v] for k, v in pub["rows"].items()])
        lines += [""]
    beta = cat["settings"]["beta"]
    lines += ["## Paper settings", "", f"beta ({beta['source']}):", ""]
    lines += _table(["dataset", *beta["columns"]], [[k, *v] for k, v in beta["rows"].items()])
    ds = cat["settings"]["uea_downsampling_factors"]
    lines += ["", f"Downsampling factors s = {ds['value']} ({ds['source']}): {ds['note']}.", ""]
    lines += ["## Notes", ""] + [f"- {n}" for n in cat["notes"]]
    return "\n".join(lines) + "\n"
