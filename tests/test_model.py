"""Entry parsing: strict YAML, typed keys, errors that name the file and the key."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from glossary.entries.model import EntryError, front_matter_schema, load_entries

ROOT = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def error_for(tmp_path: Path, front: str, body: str = "Body.\n", files: dict | None = None) -> EntryError:
    write(tmp_path, "term.md", f"---\n{textwrap.dedent(front)}---\n{body}")
    for rel, text in (files or {}).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    with pytest.raises(EntryError) as info:
        load_entries(tmp_path)
    return info.value


def test_minimal_entry_parses(tmp_path):
    write(tmp_path, "warp.md", "---\ntitle: Warp\nsummary: Thirty-two threads that issue together.\n---\nText.\n")
    entries = load_entries(tmp_path)
    assert entries["warp"].meta.title == "Warp"
    assert entries["warp"].body == "Text.\n"
    assert entries["warp"].meta.measure is None


def test_unknown_key_suggests_the_close_one(tmp_path):
    err = error_for(tmp_path, "title: T\nsummary: S\nreveiwer: Bob\n")
    assert err.key == "reveiwer"
    assert "did you mean 'reviewer'" in str(err)
    assert "term.md" in str(err)


def test_wrong_type_says_expected_and_found(tmp_path):
    err = error_for(tmp_path, "title: T\nsummary: S\nrelated: kernel-fusion\n")
    assert err.key == "related"
    assert "expected a list of text" in err.message
    assert "found text 'kernel-fusion'" in err.message


def test_bad_date(tmp_path):
    err = error_for(tmp_path, "title: T\nsummary: S\nwritten_on: 2026-13-45\n")
    assert err.key == "written_on"
    assert "YYYY-MM-DD" in err.message


def test_duplicate_yaml_key(tmp_path):
    err = error_for(tmp_path, "title: T\nsummary: S\ntitle: U\n")
    assert "duplicate key 'title'" in str(err)
    assert "line" in str(err)


def test_bad_yaml_gives_line_not_traceback(tmp_path):
    err = error_for(tmp_path, "title: [unclosed\nsummary: S\n")
    assert "not valid YAML" in str(err)
    assert "line" in str(err)


def test_missing_required_key(tmp_path):
    err = error_for(tmp_path, "title: T\n")
    assert err.key == "summary"
    assert "required" in err.message


def test_no_front_matter(tmp_path):
    write(tmp_path, "term.md", "# Just markdown\n")
    with pytest.raises(EntryError, match="front-matter"):
        load_entries(tmp_path)


def test_unresolved_related_slug(tmp_path):
    write(tmp_path, "kernel-fusion.md", "---\ntitle: K\nsummary: S\n---\n")
    err = error_for(tmp_path, "title: T\nsummary: S\nrelated: [kernel-fussion]\n")
    assert err.key == "related[0]"
    assert "did you mean 'kernel-fusion'" in str(err)


def test_nested_key_path_in_error(tmp_path):
    err = error_for(tmp_path, "title: T\nsummary: S\nsources:\n  - {title: G, url: 'https://x.org', checked: soon}\n")
    assert err.key == "sources[0].checked"


SPEC = """\
title: T
summary: S
measure:
  sources: [{src}]
  reference: ref.py
  archs: [sm_75]
  sizes: [{{n: 1024}}]
  headline: {{n: 1024}}
  buffers: {{x: {{role: input}}, y: {{role: output}}}}
  variants:
    - name: copy
      label: copy
      bytes_per_elem: 8
      launches: [{{kernel: copy, grid: ["ceil(n / 256)"], block: [256], args: [x, y, n]}}]
"""


def test_kernel_file_missing(tmp_path):
    err = error_for(tmp_path, SPEC.format(src="k.cu"), files={"term/ref.py": ""})
    assert err.key == "measure.sources[0]"
    assert "found none" in err.message


def test_kernel_file_outside_entries(tmp_path):
    (tmp_path.parent / "evil.cu").write_text("")
    err = error_for(tmp_path, SPEC.format(src="../../evil.cu"), files={"term/ref.py": ""})
    assert err.key == "measure.sources[0]"
    assert "inside" in err.message


def test_spec_checks_expressions_and_names(tmp_path):
    bad = SPEC.format(src="k.cu").replace("ceil(n / 256)", "ceil(m / 256)")
    err = error_for(tmp_path, bad, files={"term/k.cu": "", "term/ref.py": ""})
    assert err.key == "measure.variants[0].launches[0].grid[0]"
    assert "m" in err.message


def test_spec_rejects_code_in_expressions(tmp_path):
    bad = SPEC.format(src="k.cu").replace("ceil(n / 256)", "__import__('os').system('x')")
    err = error_for(tmp_path, bad, files={"term/k.cu": "", "term/ref.py": ""})
    assert "not allowed" in err.message


def test_host_clock_with_blocking_kernel_is_refused(tmp_path):
    bad = SPEC.format(src="k.cu") + "  timing: {clock: host, blocking: true}\n"
    err = error_for(tmp_path, bad, files={"term/k.cu": "", "term/ref.py": ""})
    assert err.key == "measure.timing.blocking"


def test_real_entries_parse():
    entries = load_entries(ROOT / "entries")
    assert "kernel-fusion" in entries
    spec = entries["kernel-fusion"].meta.measure
    assert [v.name for v in spec.variants][:2] == ["staged", "fused"]
    assert spec.variant("staged").bytes_per_elem == 36
    assert spec.variant("fused").bytes_per_elem == 12


def test_shipped_json_schema_is_current():
    shipped = json.loads((ROOT / "schema" / "entry.schema.json").read_text())
    assert shipped == front_matter_schema(), "regenerate with: glossary schema > schema/entry.schema.json"


def test_schema_knows_every_key():
    schema = front_matter_schema()
    assert set(schema["properties"]) >= {"title", "summary", "related", "lessons", "sources", "author",
                                         "written_on", "reviewer", "reviewed_on", "measure"}
    assert schema["required"] == ["title", "summary"]
    assert schema["additionalProperties"] is False
