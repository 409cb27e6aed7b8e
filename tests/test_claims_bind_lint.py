"""Claims, bound figures and the hand-typed-figure lint, over literal results."""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

from glossary.figures import bind
from glossary.verdicts import claims
from glossary.entries import lint
from glossary.build import GlossaryBuild
from glossary.settings import Settings
from glossary.entries.model import load_entries
from glossary.figures.views import device_views
from measure.spec import Claim

import real_glossary

ROOT = Path(__file__).resolve().parent.parent


def t4():
    entries = real_glossary.entries()
    entry = entries["kernel-fusion"]
    from measure import store

    return entry, device_views(entry, {"tesla-t4": store.load_file(entry.folder / "results" / "tesla-t4.json")})


def with_claims(spec, *claims_):
    import dataclasses

    return dataclasses.replace(spec, claims=tuple(claims_))


def test_claims_hold_on_the_imported_t4_with_their_numbers():
    entry, devices = t4()
    spec = with_claims(entry.meta.measure,
                       Claim(kind="speedup_matches_bytes", num="staged", den="fused", tolerance=0.1),
                       Claim(kind="counter_bytes_match", variant="fused", tolerance=0.15),
                       Claim(kind="fraction_of_floor", variant="fused", at_least=0.85),
                       Claim(kind="counter_bytes_match", variant="staged", tolerance=0.15))
    verdicts = claims.evaluate(spec, devices[0])
    assert [v.status for v in verdicts] == ["holds", "holds", "holds", "n/a"]
    assert verdicts[0].numbers == "time ratio 3.08× against byte ratio 3.00× (+2.7%)"
    assert verdicts[1].numbers == "counted 13.2 B/elem (caches flushed) against 12 predicted (+10.0%)"
    assert "105% of the 244.8 GB/s floor" in verdicts[2].numbers
    assert verdicts[3].numbers == "no DRAM counter data at this size"


def test_a_failing_claim_says_so():
    entry, devices = t4()
    spec = with_claims(entry.meta.measure, Claim(kind="counter_bytes_match", variant="fused", tolerance=0.05))
    (verdict,) = claims.evaluate(spec, devices[0])
    assert verdict.failed and "+10.0%" in verdict.numbers


def test_bound_figures_render_with_units_and_provenance():
    entry, devices = t4()
    text, problems = bind.render_body('{{ fig.speedup("staged", "fused") }} and {{ fig.bytes("staged") }}',
                                      tuple(devices), {"staged": 36, "fused": 12})
    assert problems == []
    assert ">3.08×</span>" in text and ">36 B/elem</span>" in text
    assert 'title="Tesla T4, 16,777,216 elements, mean, captured 2026-09-01"' in text


def test_a_figure_without_data_is_visible_and_reported():
    entry, devices = t4()
    text, problems = bind.render_body('{{ fig.on("nvidia-b200").ms("fused") }}', tuple(devices), {})
    assert "[no result:" in text
    assert problems and "nvidia-b200" in problems[0]


def test_the_body_cannot_escape_the_sandbox():
    entry, devices = t4()
    text, problems = bind.render_body("{{ fig.__class__.__mro__ }}", tuple(devices), {})
    assert problems  # refused, reported, body left as written


def entry_with_body(tmp_path: Path, body: str):
    (tmp_path / "term.md").write_text("---\ntitle: T\nsummary: S\n---\n" + textwrap.dedent(body))
    return load_entries(tmp_path)["term"]


def test_lint_flags_hand_typed_figures(tmp_path):
    entry = entry_with_body(tmp_path, """\
        The fused kernel took 0.785 ms and reached 256.5 GB/s,
        a 3.08x speedup, moving 12 bytes per element.

        ```
        copy took 1.5 ms   # code is not prose
        ```
        Bound: {{ fig.ms("fused") }} and `12 B/elem` in code.
        """)
    found = lint.unbound_figures(entry)
    assert [f.text for f in found] == ["0.785 ms", "256.5 GB/s", "3.08x", "12 bytes per element"]
    assert found[0].line == 5  # counted in the file, front-matter included
    assert "bind it" in str(found[0])


def test_real_entries_have_no_unbound_figures():
    for entry in real_glossary.entries().values():
        assert lint.unbound_figures(entry) == [], entry.slug


def test_build_warns_for_unbound_figures(tmp_path, caplog):
    entry_with_body(tmp_path, "It ran at 900 GB/s.\n")
    build = GlossaryBuild(Settings(entries_dir=tmp_path, templates_dir=ROOT / "templates"), logging.getLogger("t"))
    with caplog.at_level(logging.WARNING):
        build.load()
    assert any("900 GB/s" in r.message for r in caplog.records)


def test_summaries_group_sizes_and_fail_if_any_size_fails():
    entry, devices = t4()
    spec = with_claims(entry.meta.measure,
                       Claim(kind="counter_bytes_match", variant="fused", tolerance=0.05),
                       Claim(kind="counter_bytes_match", variant="staged", tolerance=0.15))
    failing, unknown = claims.summarize(claims.evaluate(spec, devices[0]))
    assert failing.status == "fails" and len(failing.evaluated) == 1
    assert unknown.status == "n/a" and unknown.skipped_note == "not evaluated at 16,777,216: no DRAM counter data at this size"


def test_tidy_keeps_blank_lines_inside_code():
    from glossary.site.render import _tidy

    assert _tidy("a\n\n\n\nb\n```\nx\n\n\ny\n```\n") == "a\n\nb\n```\nx\n\n\ny\n```\n"
