"""A glossary signed off part by part (issue 31, class 1): eight entries, any subset of them signed.

Built with the repository's mkdocs.yml in render mode (docs_dir the render stage's folder) and
`trust: signed`, with keys made here (a node, four people), never written outside the project.
What makes a leak check stumble is here on purpose:

- a draft whose slug equals a tag's slug (``device-software``, a section landing page, while
  ``cuda``, ``warp`` and ``stream-triad`` carry the tag ``device-software``);
- a sentence two entries share ("CUDA stands for ..."), and one shared by two Chinese entries;
- links from entries to others that may be refused (``A [warp](warp.md) is ...``), whose text
  then stands alone in the shown page and reads exactly as a sentence of the refused entry, and
  links in every other form (a title, an anchor, a reference, ``../slug/``, an HTML anchor);
- a measured entry (kernel, reference, signed results, plots) and one with a light/dark image pair;
- entries in Chinese.

Each entry carries a word of its own (``MARKS``), so a test can look for any trace of it.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import yaml

from conftest import ROOT, current_result
from gate_fixture import sign_review_file, write_trust_files
from site_fixture import KERNEL, REFERENCE, TRIAD, _size, fixture_config, result
from glossary.verdicts import trust
from measure import attest

SHARED = "CUDA stands for Compute Unified Device Architecture."
# warp's own sentence, which cuda writes with a link to warp: with warp refused, the link's text
# stands alone in cuda's page and reads exactly as warp's sentence
LINKED = "A warp is a group of thirty-two threads that execute one instruction together."
SHARED_ZH = "线程束是调度的基本单位，每个线程束有三十二个线程。"
PNG = b"\x89PNG\r\n\x1a\n" + b"light banks"
DARK_PNG = b"\x89PNG\r\n\x1a\n" + b"dark banks"

PEOPLE = ("Ada Lovelace", "Charles Babbage", "Grace Hopper", "Alan Turing")

MARKS = {  # slug -> a word only that entry's text has
    "stream-triad": "Zorbatriad", "cuda": "Quaffleware", "warp": "Snargleweft",
    "device-software": "Plonkmenu", "occupancy": "Wibbleslot", "bank-conflict": "Frobnibank",
    "warp-zh": "Gnarzhwarp", "shared-memory-zh": "Blorzhshare",
}


def _front(title: str, summary: str, author: str, reviewer: str, extra: str = "") -> str:
    return (f"---\ntitle: {title}\nsummary: {summary}\n{extra}author: {author}\nwritten_on: 2026-01-01\n"
            f"reviewer: {reviewer}\nreviewed_on: 2026-01-03\n---\n")


# the stream triad's measurement, as the small fixture glossary declares it
TRIAD_SPEC = yaml.safe_dump({"measure": yaml.safe_load(TRIAD.split("---")[1])["measure"]}, sort_keys=False)

ENTRIES = {
    "stream-triad": _front("Stream triad", "A kernel computing a = b + s * c over long arrays, the Zorbatriad "
                           "yardstick of memory bandwidth.", "Ada Lovelace", "Charles Babbage",
                           "tags: [memory-bound, device-software]\n" + TRIAD_SPEC) +
    "The triad reads two arrays and writes a third. The Zorbatriad run streams arrays far larger than any "
    "cache, so each warp waits on memory.\n",
    "cuda": _front("CUDA", "The Quaffleware platform and programming model for running general code on "
                   "NVIDIA GPUs.", "Grace Hopper", "Ada Lovelace", "tags: [device-software]\n") +
    f"{SHARED} Quaffleware kernels are written in a dialect of C++ and launched from the host.\n\n"
    "A kernel runs as a grid of blocks; each block is split into a warp or more.\n\n"
    "A [warp](warp.md) is a group of thirty-two threads that execute one instruction together.\n\n"
    "Its neighbours: [the warp page](./warp.md#top \"Warp\"), [the section][ds], [the triad](../stream-triad/) "
    'and <a href="occupancy.md">occupancy</a>.\n\n[ds]: device-software.md\n',
    "warp": _front("Warp", "A group of thirty-two Snargleweft threads that the hardware schedules together.",
                   "Alan Turing", "Grace Hopper", "tags: [device-software, scheduling]\n") +
    f"{SHARED}\n\n{LINKED}\n\nIn [CUDA](cuda.md) a warp is the unit the scheduler issues; Snargleweft threads of a warp "
    "run in lockstep. The [device software](device-software.md) page lists its neighbours.\n",
    "device-software": _front("Device software", "The Plonkmenu section of terms about software that runs on "
                              "the device.", "Ada Lovelace", "Alan Turing", "tags: [overview]\n") +
    "- [CUDA](cuda.md)\n- [Warp](warp.md)\n- [Stream triad](stream-triad.md)\n\n"
    "Plonkmenu lists the terms of this section, one line each, as a landing page would.\n",
    "occupancy": _front("Occupancy", "The Wibbleslot share of a multiprocessor's warp slots that resident warps "
                        "fill.", "Grace Hopper", "Charles Babbage",
                        "tags: [scheduling]\nrelated: [warp, stream-triad, cuda, bank-conflict]\n") +
    "High occupancy hides latency, but a stream triad saturates memory long before every warp slot is full. "
    "Compare a bank conflict, which serialises Wibbleslot accesses to shared memory.\n",
    "bank-conflict": _front("Bank conflict", "Frobnibank accesses by one warp to the same shared-memory bank, "
                            "served one after another.", "Charles Babbage", "Ada Lovelace",
                            "tags: [memory-bound]\n") +
    "![Thirty-two banks](assets/images/bank-conflict/banks.png)\n\n"
    "When two threads of a warp touch one Frobnibank bank at different addresses, the accesses serialise.\n",
    "warp-zh": _front("线程束", "线程束（Gnarzhwarp）是硬件一起调度的三十二个线程。", "Alan Turing", "Charles Babbage",
                      "tags: [scheduling]\n") +
    f"{SHARED_ZH}Gnarzhwarp 的线程同步执行。请参阅[共享内存](shared-memory-zh.md)。\n",
    "shared-memory-zh": _front("共享内存", "共享内存（Blorzhshare）是一个线程块内所有线程共用的片上存储。",
                               "Grace Hopper", "Alan Turing", "tags: [scheduling, memory-bound]\n") +
    f"{SHARED_ZH}Blorzhshare 分成三十二个存储体。\n",
}


def write_unsigned(where: Path) -> tuple[Path, dict[str, attest.Signer]]:
    """The fixture project with nothing signed yet (results signed by the fixture node), and its
    people's keys (test keys of this fixture alone, in memory: a copy of the project trusts them too)."""
    project = where
    entries = project / "entries"
    entries.mkdir(parents=True)
    for slug, text in ENTRIES.items():
        (entries / f"{slug}.md").write_text(text, encoding="utf-8")
    (entries / "stream-triad").mkdir()
    (entries / "stream-triad" / "triad.cu").write_text(KERNEL)
    (entries / "stream-triad" / "reference.py").write_text(REFERENCE)
    images = entries / "assets" / "images" / "bank-conflict"
    images.mkdir(parents=True)
    (images / "banks.png").write_bytes(PNG)
    (images / "banks.dark.png").write_bytes(DARK_PNG)
    shutil.copy(ROOT / "entries" / "assets" / "glossary.css", entries / "assets" / "glossary.css")
    node = attest.Signer.generate()
    measured = current_result(entries, "stream-triad", result(
        "fixture-gpu-a", "Fixture GPU A",
        [_size(1 << 20, 2900.0, 0.003, 0.0045), _size(1 << 24, 3300.0, 0.0425, 0.064)], l2_bytes=50 << 20))
    (entries / "stream-triad" / "results").mkdir()
    (entries / "stream-triad" / "results" / "fixture-gpu-a.json").write_text(
        json.dumps(attest.sign_result(measured, node)))
    people = {name: attest.Signer.generate() for name in PEOPLE}
    write_trust_files(project, [trust.allowed_signers_line("fixture-node", node.public, trust.RESULT_NAMESPACE)],
                      [trust.allowed_signers_line(n, k.public, trust.REVIEW_NAMESPACE) for n, k in people.items()])
    config = fixture_config(project)
    config["extra"]["glossary"].update(entries="entries", trust="signed")
    config["docs_dir"] = "build/docs"
    (project / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    (project / "build" / "docs").mkdir(parents=True)
    return project, people


def sign(project: Path, keys: dict[str, attest.Signer], slugs: list[str]) -> None:
    """Sign ``slugs`` as `glossary sign` does: the author, then the reviewer, with the fixture's keys."""
    for slug in slugs:
        meta = yaml.safe_load(ENTRIES[slug].split("---")[1])
        sign_review_file(project / "entries" / f"{slug}.md", meta["reviewer"], keys[meta["reviewer"]],
                         dt.date(2026, 1, 4), author=keys[meta["author"]])
