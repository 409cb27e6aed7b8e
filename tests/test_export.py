"""glossary.json: every shown entry, its definition and its results; nothing refused."""

from __future__ import annotations

import json

from conftest import ROOT

from glossary.site import export, sitefiles
from site_fixture import build_fixture_site
from repository_build import repository_build


def kernel_fusion_models(preview: bool):
    # Other entries have their own tests; these are about the one with committed results.
    return [m for m in repository_build(preview).shown_models() if m.entry.slug == "kernel-fusion"]


def test_export_carries_the_figures_the_page_shows():
    data = export.export(kernel_fusion_models(preview=True))
    assert data["format"] == export.EXPORT_FORMAT
    [entry] = data["entries"]
    assert entry["slug"] == "kernel-fusion" and entry["status"] == "draft"
    assert entry["definition"].startswith("Merging several kernels into one")
    [t4] = [r for r in entry["results"] if r["device"] == "tesla-t4"]
    assert t4["gpu"] == "Tesla T4" and t4["provenance"] == "imported"
    [size] = t4["sizes"]
    fused = {v["name"]: v for v in size["variants"]}["fused"]
    assert fused["ms"] == 0.785 and round(fused["gbps"], 1) == 256.5
    assert size["copy_floor_gbps"] == 244.8
    assert size["ratios"][0]["time_ratio"] == round(2.419 / 0.785, 4)


def test_refused_entries_are_not_exported():
    assert export.export(kernel_fusion_models(preview=False)) == {"format": 1, "entries": []}


def test_generated_files_only_for_shown_entries():
    shown = sitefiles.generated(kernel_fusion_models(preview=True), ROOT / "templates")
    assert "kernel-fusion/plots/tesla-t4.svg" in shown
    assert "tags/memory-bound.md" in shown and "tags/index.md" in shown
    refused = sitefiles.generated(kernel_fusion_models(preview=False), ROOT / "templates")
    assert set(refused) == {"glossary.json"}


def test_built_site_has_glossary_json(tmp_path):
    site = build_fixture_site(tmp_path)
    data = json.loads((site / "glossary.json").read_text())
    assert [e["slug"] for e in data["entries"]] == ["occupancy", "stream-triad"]
    triad = data["entries"][1]
    assert triad["url"] == "stream-triad/" and triad["author"] == "Ada Lovelace"
    assert [r["gpu"] for r in triad["results"]] == ["Fixture GPU A", "Fixture GPU B"]
    assert data["entries"][0]["related"] == ["stream-triad"]
    assert "bank-conflict" not in (site / "glossary.json").read_text()


def test_export_json_is_safe_to_inline_and_reads_back_the_same():
    models = kernel_fusion_models(preview=True)
    text = export.export_json(models)
    assert not set("<>&'\u2028\u2029") & set(text)
    assert "lesson\\u0027s own run" in text  # the T4 import note, as \uXXXX
    assert json.loads(text) == export.export(models)


def test_export_json_put_together_per_entry_is_the_whole_document_dumped_at_once():
    # Issue 34: `mkdocs serve` keeps each unchanged entry's text between rebuilds; the file is
    # byte for byte what dumping the whole export writes, for every entry, both URL styles and none.
    models = repository_build(True).shown_models()
    assert len(models) > 1
    for urls in (True, False):
        assert export.export_json(models, urls) == export.dumps(export.export(models, urls))
        kept = export.export_json(models, urls, entry_text=lambda m, u: export.entry_json(m, u))
        assert kept == export.export_json(models, urls)
    assert export.export_json([]) == export.dumps(export.export([])) == '{\n "format": 1,\n "entries": []\n}\n'
