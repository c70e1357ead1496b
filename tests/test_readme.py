"""The README is the front door: short, its variants table generated, its result pointers real."""

from __future__ import annotations

import re
from pathlib import Path

from tsattn.attention import variants_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_is_short_and_keeps_to_the_repository():
    assert len(README.splitlines()) < 150
    assert "../shared" not in README


def test_readme_variants_table_is_the_generated_one():
    assert variants_table() in README, (
        "README's variants table is stale: paste tsattn.attention.variants_table() in its place"
    )


def test_every_results_pointer_is_an_experiment_folder_with_its_command():
    folders = set(re.findall(r"docs/results/([\w-]+)/", README))
    assert folders, "the README points to no result"
    on_disk = {p.name for p in (ROOT / "docs" / "results").iterdir() if p.is_dir()}
    assert folders == on_disk, "every experiment folder has one line in the README, and no other"
    for name in on_disk:
        text = (ROOT / "docs" / "results" / name / "README.md").read_text(encoding="utf-8")
        assert "python3 -m tsattn" in text, f"docs/results/{name}/README.md gives no command"
        assert f"({name}/README.md)" in (ROOT / "docs" / "results" / "README.md").read_text()
