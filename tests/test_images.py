"""An entry's images (issue 21): where they live, light/dark pairs, publishing, signing and checking.

Images live in entries/assets/images/ and the body links them as assets/images/NAME.EXT;
NAME.dark.EXT beside one is shown in dark mode.  Small fixture projects and images made here.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from conftest import ROOT, mkdocs, write_project
from gate_fixture import COPY, Keys, make_project, sign_review
from glossary.build import GlossaryBuild
from glossary.checks import inspect
from glossary.entries import images
from glossary.entries.model import parse_entry
from glossary.settings import Settings
from glossary.site import images as light_dark
from glossary.site import leaks
from glossary.verdicts import review

PNG = b"\x89PNG\r\n\x1a\n" + b"light pixels"
DARK_PNG = b"\x89PNG\r\n\x1a\n" + b"dark pixels"


def _entry(title: str, body: str, reviewer: str = "Charles Babbage") -> str:
    return (f"---\ntitle: {title}\nsummary: A term of the fixture glossary, used to test its images.\n"
            f"author: Ada Lovelace\nwritten_on: 2026-10-01\nreviewer: {reviewer}\nreviewed_on: 2026-10-02\n"
            f"---\n{body}")


# -- the links -------------------------------------------------------------------------------------


def test_links_are_found_outside_code_in_every_form():
    body = ("Inline ![Tile](assets/images/tile.png \"T\") and `![code](assets/images/code.png)`.\n"
            "\n"
            "By reference ![Ref][r] and <img src=\"assets/images/html.svg\" alt=\"h\">.\n"
            "![remote](https://example.org/x.png) ![outside](pic.png)\n"
            "```\n![fenced](assets/images/fenced.png)\n```\n"
            "\n"
            "[r]: ./assets/images/sub/ref.webp\n")
    found = [(link.target, link.line) for link in images.links(body)]
    assert ("assets/images/tile.png", 1) in found
    assert ("./assets/images/sub/ref.webp", 3) in found
    assert ("assets/images/html.svg", 3) in found
    assert ("pic.png", 4) in found
    assert not any("code.png" in t or "fenced" in t or "example.org" in t for t, _ in found)
    assert images.asset_images(body) == ["assets/images/html.svg", "assets/images/sub/ref.webp",
                                         "assets/images/tile.png"]


def test_dark_partner_is_beside_the_image():
    assert images.dark_partner("assets/images/a/b.png") == "assets/images/a/b.dark.png"
    assert images.dark_partner("assets/images/b.dark.png") is None
    assert images.dark_partner("assets/style.css") is None


def test_the_entry_reads_its_images_and_their_partners_only(tmp_path):
    entries = tmp_path / "entries"
    (entries / "assets" / "images").mkdir(parents=True)
    for name, data in (("hand.png", PNG), ("hand.dark.png", DARK_PNG), ("paired.png", PNG),
                       ("paired.dark.png", DARK_PNG), ("unlinked.png", PNG)):
        (entries / "assets" / "images" / name).write_bytes(data)
    (entries / "assets" / "images" / "link.png").symlink_to(entries / "assets" / "images" / "paired.png")
    body = ("![h](assets/images/hand.png#only-light)![h](assets/images/hand.dark.png#only-dark)\n"
            "![p](assets/images/paired.png) ![l](assets/images/link.png) ![m](assets/images/missing.png)\n")
    assert images.read_images(body, entries) == {
        "assets/images/hand.png": PNG, "assets/images/hand.dark.png": DARK_PNG,
        "assets/images/paired.png": PNG, "assets/images/paired.dark.png": DARK_PNG}


# -- light and dark on the page --------------------------------------------------------------------

PAIRED = {"assets/images/tile.png", "assets/images/tile.dark.png"}


def test_an_image_with_a_dark_partner_shows_each_in_its_mode():
    out = light_dark.pair('See ![A tile](assets/images/tile.png "The tile"){ width=300 } here.', PAIRED)
    assert out == ('See ![A tile](assets/images/tile.png#only-light "The tile"){ width=300 }'
                   '![A tile](assets/images/tile.dark.png#only-dark "The tile"){ width=300 } here.')


def test_reference_images_and_a_leading_dot_slash_are_paired():
    body = "![A tile][t] and ![t]\n\n[t]: ./assets/images/tile.png\n"
    out = light_dark.pair(body, PAIRED)
    light, dark = "./assets/images/tile.png#only-light", "./assets/images/tile.dark.png#only-dark"
    assert out.startswith(f"![A tile]({light})![A tile]({dark}) and ")
    assert f"![t]({light})![t]({dark})\n" in out
    assert out.endswith("[t]: ./assets/images/tile.png\n")


@pytest.mark.parametrize("body", [
    "![A tile](assets/images/tile.png#only-light)\n![A tile](assets/images/tile.dark.png#only-dark)\n",
    "`![A tile](assets/images/tile.png)`\n",
    "```markdown\n![A tile](assets/images/tile.png)\n```\n",
    "![Other](assets/images/other.png)\n",
    '<img src="assets/images/tile.png#only-light" alt="a fragment of the author\'s own">\n',
])
def test_what_is_left_alone(body):
    assert light_dark.pair(body, PAIRED | {"assets/images/other.png"}) == body


# -- the site: published only for published entries ------------------------------------------------


def _project(tmp_path: Path) -> Path:
    shown = _entry("Alpha", "Alpha's own diagram ![Alpha diagram](assets/images/alpha.png) and the shared "
                            "one ![Shared](assets/images/shared.png).\n\nShown as code, not linked: "
                            "`![x](assets/images/code-only.png)`.\n\n<img src=\"assets/images/raw.svg\" alt=\"Raw\">\n")
    refused = _entry("Beta", "Beta's own diagram ![Beta diagram](assets/images/beta/diagram.png) and the "
                             "shared one ![Shared](assets/images/shared.png).\n", reviewer="pending")
    files = {"assets/images/alpha.png": PNG, "assets/images/alpha.dark.png": DARK_PNG,
             "assets/images/shared.png": PNG + b"shared", "assets/images/raw.svg": b"<svg/>",
             "assets/images/code-only.png": PNG + b"code",
             "assets/images/beta/diagram.png": PNG + b"beta", "assets/images/beta/diagram.dark.png": DARK_PNG}
    return write_project(tmp_path, {"alpha": shown, "beta": refused}, files)


def test_a_plain_build_publishes_the_images_of_published_entries_only(tmp_path):
    project = _project(tmp_path)
    run = mkdocs(project, "build")
    assert run.returncode == 0, run.stderr
    site = project / "site"
    published = sorted(p.relative_to(site).as_posix() for p in (site / "assets" / "images").rglob("*")
                       if p.is_file() and p.name != "favicon.png")  # the theme's own
    assert published == ["assets/images/alpha.dark.png", "assets/images/alpha.png", "assets/images/raw.svg",
                         "assets/images/shared.png"]
    assert (site / "assets/images/alpha.dark.png").read_bytes() == DARK_PNG
    page = (site / "alpha" / "index.html").read_text()
    assert 'src="../assets/images/alpha.png#only-light"' in page
    assert 'src="../assets/images/alpha.dark.png#only-dark"' in page
    assert page.count('alt="Alpha diagram"') == 2
    assert 'src="../assets/images/shared.png"' in page  # no dark partner: one image, as written
    assert "refused, left out of the site" in run.stderr


def test_a_preview_shows_the_drafts_images_too(tmp_path):
    project = _project(tmp_path)
    run = mkdocs(project, "build", env={"GLOSSARY_PREVIEW": "1"})
    assert run.returncode == 0, run.stderr
    site = project / "site"
    assert (site / "assets/images/beta/diagram.dark.png").read_bytes() == DARK_PNG
    assert 'src="../assets/images/beta/diagram.dark.png#only-dark"' in (site / "beta" / "index.html").read_text()


def test_the_leak_check_reports_a_refused_entrys_own_images(tmp_path):
    project = _project(tmp_path)
    entries = project / "entries"
    alpha, beta = parse_entry(entries / "alpha.md", entries), parse_entry(entries / "beta.md", entries)
    site = tmp_path / "site"
    for rel in ("assets/images/shared.png", "assets/images/beta/diagram.dark.png"):
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_bytes(PNG)
    found = leaks.find(site, [beta], [alpha])
    assert found == ["assets/images/beta/diagram.dark.png: an image only refused entry 'beta' links"]


# -- signed -----------------------------------------------------------------------------------------

WITH_IMAGE = COPY.replace("```ptx", "![The copy](assets/images/copy.png)\n\n```ptx")


def _published(project: Path) -> GlossaryBuild:
    options = Settings.for_project(project / "entries")
    built = GlossaryBuild(options.replace(templates_dir=ROOT / "templates"), logging.getLogger("test-images"))
    built.load()
    return built


def _signed(tmp_path: Path, keys: Keys) -> Path:
    project = make_project(tmp_path, WITH_IMAGE, keys=keys, sign=False)
    folder = project / "entries" / "assets" / "images"
    folder.mkdir(parents=True)
    (folder / "copy.png").write_bytes(PNG)
    sign_review(project, "Charles Babbage", keys.reviewer, author=keys.author)
    return project


def test_an_entry_without_images_keeps_its_four_part_fingerprint(tmp_path):
    project = make_project(tmp_path, sign=False)
    entry = parse_entry(project / "entries" / "copy.md", project / "entries")
    fingerprint = review.compute_review_fingerprint(entry, {})
    assert ",images=" not in fingerprint
    assert review.parse_fingerprint(fingerprint)[1].keys() == {"fm", "body", "kernels", "results"}


def test_a_signed_image_cannot_be_swapped(tmp_path):
    keys = Keys.make()
    project = _signed(tmp_path, keys)
    entry = parse_entry(project / "entries" / "copy.md", project / "entries")
    assert ",images=" in entry.meta.review_fingerprint
    assert _published(project).verdicts["copy"].publishable
    (project / "entries" / "assets" / "images" / "copy.png").write_bytes(PNG + b"swapped")
    verdict = _published(project).verdicts["copy"]
    assert not verdict.publishable
    assert any("review is stale" in r and "assets/images/copy.png" in r for r in verdict.reasons), verdict.reasons


def test_a_dark_partner_added_after_signing_voids_the_review(tmp_path):
    keys = Keys.make()
    project = _signed(tmp_path, keys)
    (project / "entries" / "assets" / "images" / "copy.dark.png").write_bytes(DARK_PNG)
    verdict = _published(project).verdicts["copy"]
    assert any("assets/images/copy.dark.png" in r for r in verdict.reasons), verdict.reasons


# -- glossary check ---------------------------------------------------------------------------------


def test_check_warns_of_a_missing_image_and_one_outside_assets(tmp_path):
    body = "First line.\n\n![Missing](assets/images/missing.png)\n\n![Outside](alpha/pic.png)\n"
    project = write_project(tmp_path, {"alpha": _entry("Alpha", body)}, {"alpha/pic.png": PNG})
    reports, _ = inspect(project / "entries")
    problems = [p for p in reports[0].problems if "image" in p.message]
    assert [(p.check, p.severity, p.line) for p in problems] == [("content", "warning", 11), ("content", "warning", 13)]
    missing, outside = (p.message for p in problems)
    assert missing.startswith(f"{project / 'entries' / 'alpha.md'}:11: the image assets/images/missing.png")
    assert "points to no file" in missing
    assert "alpha/pic.png" in outside and "does not publish it" in outside
    assert reports[0].publishable  # a warning, as a link to no entry is


def test_check_warns_of_an_image_on_the_themes_favicon_path(tmp_path):
    body = "![Icon](assets/images/favicon.png)\n"
    project = write_project(tmp_path, {"alpha": _entry("Alpha", body)}, {"assets/images/favicon.png": PNG})
    reports, _ = inspect(project / "entries")
    assert [p.message for p in reports[0].problems if "theme" in p.message]


def test_an_image_no_entry_links_is_named_as_not_published(tmp_path):
    """Like any other file the site leaves out, an image in assets/images/ that no entry links
    (published or not) is named; a linked one and its dark partner are not."""
    from glossary.entries.model import load_entries
    from glossary.site import strays
    folder = tmp_path / "assets" / "images"
    folder.mkdir(parents=True)
    for name in ("used.svg", "used.dark.svg", "orphan.png", "notes.txt"):
        (folder / name).write_bytes(b"<svg/>")
    (tmp_path / "t.md").write_text("---\ntitle: T\nsummary: S.\n---\n![Used](assets/images/used.svg)\n")
    stray = strays.stray_files(tmp_path, load_entries(tmp_path))
    assert len(stray) == 1 and "orphan.png: is an image no entry links" in stray[0], stray


def test_the_walk_names_every_stray_file_and_link_in_a_messy_tree(tmp_path):
    """What the build and `glossary check` say of the entries folder: each stray file and each link
    (to a file, a folder, nothing, at any depth) once; dotfiles, dot folders and __pycache__ never;
    an entry's declared files, results and reproductions never.  The links list sees inside dot folders."""
    import os
    from glossary.entries.model import load_entries
    from glossary.site import strays
    (tmp_path / "t.md").write_text("---\ntitle: T\nsummary: S.\n---\nBody.\n")
    for rel in ("t/results/dev.json", "t/reproductions/r.json", "t/notes.txt", "t/results/deep/x.json",
                "orphan/a.txt", ".git/objects/x", "__pycache__/m.pyc", "t/__pycache__/k.pyc", ".hidden.txt",
                "assets/style.css", "assets/page.md", "README.rst", "z.markdown"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    (tmp_path / "t" / "link.cu").symlink_to("/etc/hostname")
    (tmp_path / "t" / "gone").symlink_to(tmp_path / "nowhere")
    (tmp_path / "t" / "up").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / ".git" / "link").symlink_to("/etc/hostname")
    stray = strays.stray_files(tmp_path, load_entries(tmp_path))
    named = sorted(line.split(":")[0][len(str(tmp_path)) + 1:] for line in stray)
    assert named == ["README.rst", "assets/page.md", "orphan/a.txt", "t/gone", "t/link.cu", "t/notes.txt",
                     "t/results/deep/x.json", "t/up", "z.markdown"], stray
    assert all(": is a symbolic link" in line for line in stray if "/gone:" in line or "/up:" in line)
    walked = sorted(Path(folder, name) for folder, dirs, files in os.walk(tmp_path)
                    for name in dirs + files if Path(folder, name).is_symlink())
    assert strays.symlinks(tmp_path) == walked and len(walked) == 4


def test_a_raw_html_image_is_paired_as_two_tags():
    out = light_dark.pair('<p><img src="assets/images/tile.png" alt="A tile" width="300"></p>\n', PAIRED)
    assert out == ('<p><img src="assets/images/tile.png#only-light" alt="A tile" width="300">'
                   '<img src="assets/images/tile.dark.png#only-dark" alt="A tile" width="300"></p>\n')
