"""A body's figures are evaluated from its parsed template (``glossary.figures.bind._evaluate``, issue 34)
instead of a compiled one: for every kind of body (figures with and without data, citations, cited
tables, unknown names, wrong arguments, whitespace control, comments and raw blocks that hold
``{{``) the text, the problems and the citations are those of the compiled template."""

from __future__ import annotations

import pytest

from glossary.figures import bind
from glossary.figures.views import device_views
from glossary.verdicts.findings import body_first_line

import real_glossary

ENTRY = real_glossary.entries()["kernel-fusion"]
DEVICES = tuple(device_views(ENTRY, real_glossary.recorded("kernel-fusion")))
SPEC = ENTRY.meta.measure
SHEET = ENTRY.meta.sources[0].id or ENTRY.meta.sources[0].url

BODIES = [
    ENTRY.body,
    'Fused is {{ fig.speedup("staged", "fused") }} faster; {{ fig.speedupp("staged", "fused") }}.',
    '{{ fig.on("no-such-gpu").speedup("staged", "fused") }} and {{ fig.at(n=3).speedup("staged", "fused") }}',
    '{{ fig.speedup("staged", "fused") }} {{ fig.speedup("staged", "fused") }}\n{{ fig.speedup("nope", "fused") }}',
    '{{ nofig("1000x") }} {{ cite("3.35 TB/s", %r) }} {{ cite("1 ms", "no-such-source") }}' % SHEET,
    '{%% call cite_table(%r) %%}\n| a | b (GB/s) |\n|---|---|\n| x | 3.35 |\n{%% endcall %%}\nAfter.' % SHEET,
    '{% call cite_table("no-such-source") %}\n| a |\n|---|\n| 1 |\n{% endcall %}',
    '{{- fig.speedup("staged", "fused") -}}   \n\n  {{ fig.speedup("staged") }}',
    'Too many: {{ fig.speedup("staged", "fused", "x", "y", "z") }}',
    'Text {# a comment with {{ fig.speedup("a", "b") }} #} then {{ fig.speedup("staged", "fused") }}.',
    '{% raw %}{{ fig.speedup("a", "b") }}{% endraw %} {{ fig.speedup("staged", "fused") }}',
    '{{ fig.__class__ }} {{ fig._fig }}',
    '{{ fig.speedup("staged", "fused"}}',
    'Ends with a newline {{ fig.speedup("staged", "fused") }}\n',
    '{{ fig }}',
    '`{{ code }}` and {{ fig.speedup("staged", "fused") }}',
]


def _render(body: str):
    cited: list[str] = []
    try:
        text, problems = bind.render_body(body, DEVICES, {v.name: v.bytes_per_elem for v in SPEC.variants},
                                          SPEC.variants, first_line=body_first_line(ENTRY), spec=SPEC,
                                          sources=ENTRY.meta.sources, cited=cited)
    except Exception as err:  # what the compiled template raised, the evaluation raises too
        return type(err).__name__, str(err)
    return text, [(str(p), getattr(p, "line", None), getattr(p, "figure", None)) for p in problems], cited


@pytest.mark.parametrize("body", BODIES)
def test_a_body_evaluated_as_parsed_renders_as_the_compiled_template(body, monkeypatch):
    evaluated = _render(body)
    monkeypatch.setattr(bind, "_figure_nodes", lambda nodes: [None] * 10**6)  # the count never agrees: compiled
    assert evaluated == _render(body)


def test_every_body_of_figures_alone_is_evaluated_and_nothing_compiled(monkeypatch):
    evaluated = []
    real = bind._evaluate
    monkeypatch.setattr(bind, "_evaluate", lambda *a: evaluated.append(1) or real(*a))
    monkeypatch.setattr(bind.SandboxedEnvironment, "from_string", None)  # compiling would fail
    for body in [ENTRY.body, *BODIES[1:7]]:
        _render(body)
    assert len(evaluated) >= 7  # a cited table evaluates its caller too


def test_a_raw_block_is_shown_as_typed():
    text, problems, _ = _render('{% raw %}{{ fig.speedup("a", "b") }}{% endraw %} and {{ fig.speedup("staged", "fused") }}')
    assert text.startswith('{{ fig.speedup("a", "b") }} and <span class="glossary-figure"'), text
    assert problems == []
