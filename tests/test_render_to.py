"""The render stage's writer (glossary.site.publish.render_to): it makes the render folder hold exactly the
files given, writes only what changed, and never writes outside the folder, whatever links are in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from glossary.site import publish


def _files(n: int = 30) -> dict[str, str | bytes]:
    out: dict[str, str | bytes] = {"index.md": "# Glossary\n"}
    for i in range(n):
        out[f"term-{i:02d}.md"] = f"# Term {i}\n"
        out[f"term-{i:02d}/kernel.cu"] = f"// kernel {i}\n"
        out[f"term-{i:02d}/plots/gpu.svg"] = b"<svg/>"
    return out


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and p.name != publish.MANIFEST}


def test_a_render_writes_what_changed_keeps_the_rest_and_removes_what_is_gone(tmp_path):
    out = tmp_path / "docs"
    files = _files()
    first = publish.render_to(out, files, {}, "publish")
    assert (first.written, first.kept, first.removed) == (len(files), 0, 0)
    assert _tree(out) == {k: v.encode() if isinstance(v, str) else v for k, v in files.items()}
    files["term-03.md"] = "# Term three, edited\n"
    del files["term-07/kernel.cu"]
    second = publish.render_to(out, files, {}, "publish")
    assert (second.written, second.kept, second.removed) == (1, len(files) - 1, 1)
    assert not (out / "term-07" / "kernel.cu").exists() and (out / "term-03.md").read_text() == "# Term three, edited\n"


@pytest.mark.parametrize("rel", ["../escape.md", "term/../../escape.md", "/abs.md"])
def test_a_path_out_of_the_folder_is_refused(tmp_path, rel):
    with pytest.raises(publish.RenderError, match="outside"):
        publish.render_to(tmp_path / "docs", {rel: "x"}, {}, "publish")
    assert not (tmp_path / "escape.md").exists()


def test_a_linked_folder_in_the_render_folder_is_never_written_through(tmp_path):
    out, elsewhere = tmp_path / "docs", tmp_path / "elsewhere"
    elsewhere.mkdir()
    publish.render_to(out, _files(2), {}, "publish")
    (out / "term-01").rename(tmp_path / "moved")
    (out / "term-01").symlink_to(elsewhere, target_is_directory=True)  # planted between two renders
    with pytest.raises(publish.RenderError, match="outside"):
        publish.render_to(out, _files(2), {}, "publish")
    assert list(elsewhere.iterdir()) == []


def test_a_linked_file_pointing_out_is_refused_and_one_pointing_in_is_replaced(tmp_path):
    out, secret = tmp_path / "docs", tmp_path / "secret.txt"
    secret.write_text("the node's secret\n")
    publish.render_to(out, _files(2), {}, "publish")
    (out / "term-00.md").unlink()
    (out / "term-00.md").symlink_to(secret)
    with pytest.raises(publish.RenderError, match="outside"):
        publish.render_to(out, _files(2), {}, "publish")
    assert secret.read_text() == "the node's secret\n"
    (out / "term-00.md").unlink()
    (out / "term-00.md").symlink_to(out / "index.md")  # a link inside: the file takes its place
    publish.render_to(out, _files(2), {}, "publish")
    assert not (out / "term-00.md").is_symlink() and (out / "term-00.md").read_text() == "# Term 0\n"
    assert (out / "index.md").read_text() == "# Glossary\n"
