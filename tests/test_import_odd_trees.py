"""`glossary import` on odd source trees (issue 29, item 5): never a traceback, never a hang.

Each case builds a small tree beside a good term, runs the real CLI in a subprocess under a
timeout, and checks the exit status the docs give (0: every term imported, 1: one could not be),
that the JSON report names the odd path and why, and that the good term was imported.  Cases
that need a patched bound or a race run in-process under ``signal.alarm``.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from glossary.importer import files, import_glossary

ROOT = Path(__file__).resolve().parents[1]
GOOD = "---\ntitle: Good\n---\nGood is a term that stays.\n"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n'
TIMEOUT_S = 60


@pytest.fixture(autouse=True)
def deadline():
    """Fail, never hang, if anything in-process blocks (a FIFO opened for reading would)."""
    def expired(signum, frame):
        raise TimeoutError(f"the test ran past {TIMEOUT_S} s: something blocked")
    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(TIMEOUT_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.fixture
def tree(tmp_path) -> tuple[Path, Path]:
    """(a source folder holding s/good.md, an empty entries folder)."""
    src, entries = tmp_path / "src", tmp_path / "entries"
    (src / "s").mkdir(parents=True)
    (src / "s" / "good.md").write_text(GOOD)
    entries.mkdir()
    return src, entries


def glossary_import(src: Path, entries: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "glossary.cli", "--entries", str(entries), "import", str(src), *args],
                          capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "300"})


def run_import(src: Path, entries: Path, *args: str, report_name: str = "report.json") -> tuple[int, dict | str, str]:
    """(exit status, the report: JSON read, Markdown as text, the printed output) of `glossary
    import`, in a subprocess."""
    report = entries.parent / report_name
    report.unlink(missing_ok=True)
    proc = glossary_import(src, entries, "--report", str(report), *args)
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out
    text = report.read_text(encoding="utf-8")
    return proc.returncode, json.loads(text) if report_name.endswith(".json") else text, out


def said(report: dict, source: str | None = None) -> str:
    """Every message of the report about ``source`` (None: the folder-wide ones), one per line."""
    if source is None:
        return "\n".join(n["message"] for n in report["general"])
    file = next(f for f in report["files"] if f["source"] == source)
    return "\n".join(f"{n['severity']}: {n['message']}" for n in file["notes"])


def good_imported(report: dict, entries: Path) -> bool:
    file = next(f for f in report["files"] if f["source"] == "s/good.md")
    return file["imported"] and (entries / "good.md").is_file()


# -- symbolic links ------------------------------------------------------------------------------


def test_a_loop_of_linked_folders_is_reported_and_not_followed(tree):
    src, entries = tree
    os.symlink("..", src / "s" / "up")
    os.symlink("b", src / "s" / "a")
    os.symlink("a", src / "s" / "b")
    code, report, _ = run_import(src, entries)
    assert code == 0 and good_imported(report, entries)
    general = said(report)
    assert "s/up/ is a symbolic link to a folder; it is not followed" in general
    assert "s/a is a symbolic link in a loop" in general and "s/b is a symbolic link in a loop" in general


def test_a_loop_of_linked_term_files_is_reported(tree):
    src, entries = tree
    os.symlink("b.md", src / "s" / "a.md")
    os.symlink("a.md", src / "s" / "b.md")
    code, report, _ = run_import(src, entries)
    assert code == 1 and good_imported(report, entries)
    assert "error: is a symbolic link in a loop" in said(report, "s/a.md")


def test_a_link_to_a_file_outside_is_refused(tree, tmp_path):
    src, entries = tree
    (tmp_path / "secret.md").write_text("---\ntitle: Secret\n---\nSecret text.\n")
    os.symlink(tmp_path / "secret.md", src / "s" / "secret.md")
    code, report, _ = run_import(src, entries)
    assert code == 1 and good_imported(report, entries)
    assert f"is a symbolic link that leads to {tmp_path / 'secret.md'}, outside" in said(report, "s/secret.md")
    assert not (entries / "secret.md").exists()


def test_a_link_to_a_folder_outside_is_not_followed(tree, tmp_path):
    src, entries = tree
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "secret.md").write_text("---\ntitle: Secret\n---\nSecret text.\n")
    os.symlink(tmp_path / "elsewhere", src / "linked")
    code, report, _ = run_import(src, entries)
    assert code == 0 and good_imported(report, entries)
    assert "linked/ is a symbolic link to a folder; it is not followed" in said(report)
    assert not (entries / "secret.md").exists()


def test_a_link_inside_the_folder_is_read_where_it_leads(tree):
    src, entries = tree
    (src / "s" / "target.md").write_text("---\ntitle: Target\n---\nTarget is a term.\n")
    os.symlink("target.md", src / "s" / "alias.md")
    code, report, _ = run_import(src, entries)
    assert code == 0 and good_imported(report, entries) and (entries / "alias.md").is_file()


# -- depth, names, special files -----------------------------------------------------------------


def _nest(top: Path, depth: int) -> None:
    """``depth`` folders 'd' inside one another under ``top``, made and later removed without
    recursion (os.makedirs and shutil.rmtree both recurse, and 1,400 levels overflow them)."""
    fd = os.open(top, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with open("deep.md", "w", opener=lambda p, f: os.open(p, f, 0o644, dir_fd=fd)) as fh:
        fh.write(GOOD.replace("Good", "Deep"))
    os.close(fd)


def _unnest(top: Path) -> None:
    fds = [os.open(top, os.O_RDONLY)]
    while "d" in os.listdir(fds[-1]):
        fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
    for parent, child in zip(reversed(fds[:-1]), reversed(fds[1:])):
        for name in os.listdir(child):
            os.unlink(name, dir_fd=child)
        os.close(child)
        os.rmdir("d", dir_fd=parent)
    os.close(fds[0])


def test_folders_1400_deep_are_reported_and_the_rest_imported(tree):
    src, entries = tree
    (src / "t").mkdir()
    try:
        _nest(src / "t", 1400)
        (src / "t" / "d" / "d" / "shallow.md").write_text(GOOD.replace("Good", "Shallow"))
        code, report, _ = run_import(src, entries)
    finally:
        _unnest(src / "t")
    assert code == 1 and good_imported(report, entries) and (entries / "shallow.md").is_file()
    assert f"folder(s) lie more than {files.MAX_DEPTH} folders deep and were not read (t/d/d/" in said(report)
    assert not (entries / "deep.md").exists()


def test_a_term_file_name_that_is_not_utf8_is_reported_printably(tree):
    src, entries = tree
    (src / "s" / os.fsdecode(b"caf\xe9.md")).write_text(GOOD.replace("Good", "Cafe"))
    code, report, out = run_import(src, entries)
    assert code == 1 and good_imported(report, entries)
    assert "its path is not UTF-8 text" in said(report, "s/caf\\xe9.md")
    assert "s/caf\\xe9.md" in out
    code, markdown, _ = run_import(src, entries, "--overwrite", report_name="report.md")
    assert code == 1 and "## s/caf\\xe9.md → not imported" in markdown


def test_an_image_file_name_that_is_not_utf8_is_copied_under_a_safe_name(tree):
    src, entries = tree
    (src / "s" / os.fsdecode(b"plot\xe9.svg")).write_bytes(SVG)
    (src / "s" / "good.md").write_text(GOOD + "\n![A plot](plot%E9.svg)\n")
    code, report, _ = run_import(src, entries)
    assert code == 0 and good_imported(report, entries), report
    assert (entries / "assets" / "images" / "plot-.svg").read_bytes() == SVG
    assert "assets/images/plot-.svg" in (entries / "good.md").read_text()


def test_a_fifo_named_like_a_term_is_reported_not_opened(tree):
    src, entries = tree
    os.mkfifo(src / "s" / "x.md")
    code, report, _ = run_import(src, entries)
    assert code == 1 and good_imported(report, entries)
    assert "error: is a FIFO (named pipe), not a regular file" in said(report, "s/x.md")


def test_a_fifo_image_is_reported_and_its_alt_text_kept(tree):
    src, entries = tree
    os.mkfifo(src / "s" / "pipe.png")
    (src / "s" / "good.md").write_text(GOOD + "\n![A pipe](pipe.png)\n")
    code, report, _ = run_import(src, entries)
    assert code == 0 and good_imported(report, entries)
    assert "pipe.png is a FIFO (named pipe), not a regular file; not copied" in said(report, "s/good.md")
    assert "A pipe" in (entries / "good.md").read_text() and not (entries / "assets").exists()


def test_links_to_a_device_are_refused_as_outside(tree):
    src, entries = tree
    os.symlink("/dev/zero", src / "s" / "zero.md")
    os.symlink("/dev/zero", src / "s" / "zero.png")
    (src / "s" / "good.md").write_text(GOOD + "\n![Zeros](zero.png)\n")
    code, report, _ = run_import(src, entries)
    assert code == 1 and good_imported(report, entries)
    assert "is a symbolic link that leads to /dev/zero, outside" in said(report, "s/zero.md")
    assert "zero.png is outside the imported folder; not copied" in said(report, "s/good.md")


@pytest.mark.skipif(os.geteuid() != 0, reason="os.mknod of a character device needs root")
def test_a_character_device_is_reported_not_opened(tree):
    src, entries = tree
    os.mknod(src / "s" / "dev.md", stat.S_IFCHR | 0o644, os.makedev(1, 5))  # /dev/zero: it never ends
    os.mknod(src / "s" / "dev.png", stat.S_IFCHR | 0o644, os.makedev(1, 5))
    (src / "s" / "good.md").write_text(GOOD + "\n![Dev](dev.png)\n")
    code, report, _ = run_import(src, entries)
    assert code == 1 and good_imported(report, entries)
    assert "error: is a character device, not a regular file" in said(report, "s/dev.md")
    assert "dev.png is a character device, not a regular file; not copied" in said(report, "s/good.md")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file of mode 000")
def test_an_unreadable_file_is_reported(tree):
    src, entries = tree
    (src / "s" / "locked.md").write_text(GOOD)
    (src / "s" / "locked.md").chmod(0)
    code, report, _ = run_import(src, entries)
    assert code == 1 and good_imported(report, entries)
    assert "cannot be read: Permission denied" in said(report, "s/locked.md")


def test_a_file_refused_at_open_is_reported_even_as_root(tree, monkeypatch):
    """The mode-000 case where root would read it anyway: the open itself fails with EACCES."""
    src, entries = tree
    (src / "s" / "locked.md").write_text(GOOD)
    real_open = os.open

    def refusing(path, *args, **kwargs):
        if Path(path).name == "locked.md":
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr(os, "open", refusing)
    report = import_glossary(src, entries)
    assert not report.ok and (entries / "good.md").is_file()
    locked = next(f for f in report.files if f.source == "s/locked.md")
    assert [n.message for n in locked.notes] == ["cannot be read: Permission denied"]


def test_huge_files_are_refused_unread(tree):
    src, entries = tree
    with open(src / "s" / "huge.md", "wb") as fh:
        fh.truncate(8 * 1024 ** 3)  # sparse: 8 GiB that take no disk
    with open(src / "s" / "huge.png", "wb") as fh:
        fh.truncate(200 * 1024 ** 2)
    (src / "s" / "good.md").write_text(GOOD + "\n![Huge](huge.png)\n")
    code, report, _ = run_import(src, entries)
    assert code == 1 and good_imported(report, entries)
    assert "error: is 8,388,608 KB; an entry may be at most 256 KB" in said(report, "s/huge.md")
    assert "huge.png is 209.7 MB; images of at most 10 MB are copied" in said(report, "s/good.md")


# -- bounds and races, in-process ------------------------------------------------------------------


def test_the_walk_is_bounded_in_names(tree, monkeypatch):
    src, entries = tree
    for i in range(30):
        (src / "s" / f"other-{i:02}.txt").write_text("")
    monkeypatch.setattr(files, "MAX_WALKED", 10)
    report = import_glossary(src, entries)
    assert not report.ok
    assert any("more than 10 files and folders; the rest were not read" in n.message for n in report.general)


def test_a_file_swapped_for_a_fifo_after_its_lstat_is_refused_without_blocking(tmp_path, monkeypatch):
    regular, fifo = tmp_path / "plain.md", tmp_path / "x.md"
    regular.write_text(GOOD)
    os.mkfifo(fifo)
    real_lstat = os.lstat
    monkeypatch.setattr(os, "lstat", lambda p, *a, **k: real_lstat(regular if Path(p) == fifo else p, *a, **k))
    with pytest.raises(files.Unreadable, match="is a FIFO"):
        files.read_regular(fifo, 1024)
    assert files.read_regular(regular, 1024) == GOOD.encode()


# -- the output side -------------------------------------------------------------------------------


def test_a_link_or_fifo_where_an_entry_would_be_written_is_never_written_through(tree, tmp_path):
    src, entries = tree
    (src / "s" / "linked.md").write_text(GOOD.replace("Good", "Linked"))
    (src / "s" / "piped.md").write_text(GOOD.replace("Good", "Piped"))
    victim = tmp_path / "victim.md"
    victim.write_text("---\n# imported by `glossary import` from \"s/linked.md\"\ntitle: V\n---\nKeep me.\n")
    os.symlink(victim, entries / "linked.md")
    os.mkfifo(entries / "piped.md")
    code, report, _ = run_import(src, entries, "--overwrite")
    assert code == 1 and good_imported(report, entries)
    assert "linked.md is a symbolic link, not an entry file; nothing is written over it" in said(report, "s/linked.md")
    assert "piped.md is a FIFO (named pipe), not an entry file" in said(report, "s/piped.md")
    assert "Keep me." in victim.read_text() and (entries / "linked.md").is_symlink()


def test_a_linked_images_folder_is_never_written_into(tree, tmp_path):
    src, entries = tree
    (src / "s" / "plot.svg").write_bytes(SVG)
    (src / "s" / "good.md").write_text(GOOD + "\n![A plot](plot.svg)\n")
    (tmp_path / "elsewhere").mkdir()
    (entries / "assets").mkdir()
    os.symlink(tmp_path / "elsewhere", entries / "assets" / "images")
    code, report, _ = run_import(src, entries)
    assert code == 0 and good_imported(report, entries)
    assert "is a symbolic link, not a folder, so a copy would land elsewhere" in said(report, "s/good.md")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_fifo_given_as_the_report_file_is_refused_before_the_import(tree, tmp_path):
    src, entries = tree
    os.mkfifo(tmp_path / "pipe.json")
    proc = glossary_import(src, entries, "--report", str(tmp_path / "pipe.json"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "pipe.json is a FIFO (named pipe), not a report file" in proc.stderr
    assert not (entries / "good.md").exists()


def test_image_paths_no_file_can_have_are_reported(tree):
    src, entries = tree
    (src / "s" / "dir.png").mkdir()
    (src / "s" / "good.md").write_text(GOOD + "\n![nul](a%00.png) ![long](" + "x" * 5000 + ".png) ![dir](dir.png)\n")
    report = import_glossary(src, entries)
    said_here = [n.message for n in report.files[0].notes]
    assert report.ok and (entries / "good.md").is_file()
    assert "a%00.png is missing (its path holds a NUL character, which no file name can)" in said_here[0]
    assert "cannot be read: File name too long" in said_here[1]
    assert said_here[2] == "dir.png is a folder, not a regular file; not copied"
