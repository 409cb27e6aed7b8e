"""What the recorded results give an entry's page: device views, bound figures and claim verdicts.

``glossary.verdicts.assess`` turns these into the reasons and warnings that the build and
`glossary check` share."""

from __future__ import annotations

from dataclasses import dataclass

from glossary.figures import bind, views
from glossary.verdicts import claims
from glossary.verdicts.claims import ClaimVerdict
from glossary.entries.model import Entry
from measure.results import Result
from glossary.figures.views import DeviceView


@dataclass(frozen=True)
class Measured:
    """What an entry's recorded results give its page: device views, the body with its
    figures bound, the figures that found no data, and every claim's verdict."""

    devices: tuple[DeviceView, ...]
    body: str
    figure_problems: tuple[str, ...]
    claims: tuple[ClaimVerdict, ...]
    cited: tuple[str, ...] = ()  # the source URL of each cited figure in the body (glossary.figures.cite)


def collect(entry: Entry, results: dict[str, Result]) -> Measured:
    """Derive everything the results say about ``entry`` (the build and `glossary check` share this)."""
    devices = tuple(views.device_views(entry, results))
    spec = entry.meta.measure
    predicted = {v.name: v.bytes_per_elem for v in spec.variants} if spec else {}
    cited: list[str] = []
    body, problems = bind.render_body(entry.body, devices, predicted, spec.variants if spec else (),
                                      first_line=body_first_line(entry), spec=spec,
                                      sources=entry.meta.sources, cited=cited)
    verdicts = tuple(v for d in devices for v in claims.evaluate(spec, d)) if spec else ()
    return Measured(devices, body, tuple(problems), verdicts, tuple(cited))


def body_first_line(entry: Entry) -> int:
    """The file's line number of the body's first line (the body is the file's tail)."""
    try:
        text = entry.path.read_text(encoding="utf-8").lstrip("\ufeff")
    except (OSError, UnicodeDecodeError):
        return 1
    if not text.endswith(entry.body):
        return 1
    return text.count("\n", 0, len(text) - len(entry.body)) + 1
