"""The per-entry work on every core (glossary.entries.parallel): the same results, in the same order, as one process."""

from __future__ import annotations

import logging
import multiprocessing
import pickle

import pytest

from conftest import ROOT
from glossary.entries import parallel
from glossary.build import GlossaryBuild
from glossary.entries.errors import EntryError, EntryErrors
from glossary.settings import GlossaryError, Settings


def _square_or_fail(offset: int, item: int) -> int:
    if item == 13:
        raise ValueError(f"item {item} fails")
    return item * item + offset


def test_a_pool_returns_what_the_loop_returns_in_order():
    items = list(range(200))
    assert [i for i in items if i != 13] and parallel.workers_for(len(items), 2) == 2
    kept = [i for i in items if i != 13]
    assert parallel.each(_square_or_fail, kept, 5, workers=2) == [i * i + 5 for i in kept]
    assert parallel.each(_square_or_fail, kept, 5, workers=1) == [i * i + 5 for i in kept]


def test_an_items_error_reaches_the_caller_as_raised():
    with pytest.raises(ValueError, match="item 13 fails"):
        parallel.each(_square_or_fail, list(range(200)), 0, workers=2)


def _collector_state(_context, item: int) -> tuple[int, bool, bool]:
    """In a worker: whether what it inherited is frozen, and the collector on for its tasks."""
    import gc

    return item, gc.get_freeze_count() > 0, gc.isenabled()


@pytest.mark.parametrize("enabled", [True, False])
def test_workers_leave_what_they_inherit_to_the_end_and_the_caller_s_collector_is_as_it_was(enabled):
    # Issue 34: a worker's cycle collector walked the whole heap it forked with on every full
    # collection, and the caller's walked its heap again and again as the results grew it.
    import gc

    (gc.enable if enabled else gc.disable)()
    try:
        got = parallel.each(_collector_state, list(range(100)), None, workers=2)
        assert gc.isenabled() is enabled and gc.get_freeze_count() == 0  # the caller's own, as it was
    finally:
        gc.enable()
    assert [item for item, _, _ in got] == list(range(100))
    assert all(frozen and on for _, frozen, on in got)
    with pytest.raises(ValueError, match="item 13 fails"):  # an error does not leave the collector off
        parallel.each(_square_or_fail, list(range(200)), 0, workers=2)
    assert gc.isenabled()


def test_few_items_or_one_worker_run_here():
    assert parallel.workers_for(parallel.MIN_ITEMS - 1, 8) == 1
    assert parallel.workers_for(10_000, 1) == 1
    assert parallel.workers_for(parallel.MIN_ITEMS, 8) == 2  # never more workers than chunks of items


@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.parametrize("order", ["forward", "backward", "shuffled"])
def test_results_ahead_are_what_the_loop_returns_whatever_order_they_are_taken_in(workers, order):
    import random

    items = [i for i in range(300) if i != 13]
    ahead = parallel.Ahead(_square_or_fail, items, 7, workers=workers)
    assert (ahead._pool is not None) == (workers > 1)
    taken = list(range(len(items)))
    if order == "backward":  # the caller takes the last first: it works out every chunk the pool has not begun
        taken.reverse()
    elif order == "shuffled":
        random.Random(34).shuffle(taken)
    assert {i: ahead.get(i) for i in taken} == {i: items[i] * items[i] + 7 for i in taken}
    assert ahead._pool is None  # ended with the last result taken


def test_an_items_error_ahead_is_raised_by_its_own_get():
    ahead = parallel.Ahead(_square_or_fail, list(range(200)), 0, workers=2)
    got = {}
    for i in range(200):
        if i == 13:
            with pytest.raises(ValueError, match="item 13 fails"):
                ahead.get(i)
        else:
            got[i] = ahead.get(i)
    assert got == {i: i * i for i in range(200) if i != 13} and ahead._pool is None


def test_a_closed_ahead_still_gives_every_result():
    ahead = parallel.Ahead(_square_or_fail, list(range(14, 200)), 1, workers=3)
    first = ahead.get(0)
    ahead.close()
    assert [first] + [ahead.get(i) for i in range(1, 186)] == [i * i + 1 for i in range(14, 200)]


@pytest.mark.skipif("spawn" not in multiprocessing.get_all_start_methods(), reason="no spawn here")
def test_a_spawned_pool_gives_the_same(monkeypatch):
    monkeypatch.setattr(parallel, "_start_method", lambda: multiprocessing.get_context("spawn"))
    kept = [i for i in range(100) if i != 13]
    assert parallel.each(_square_or_fail, kept, 1, workers=2) == [i * i + 1 for i in kept]


def test_an_entry_error_crosses_a_process_with_its_file_and_key():
    err = pickle.loads(pickle.dumps(EntryError("entries/x.md", "tags[0]", "expected a tag, found 3")))
    assert (type(err), str(err), err.path, err.key, err.message) == (
        EntryError, "entries/x.md, key 'tags[0]': expected a tag, found 3", "entries/x.md", "tags[0]",
        "expected a tag, found 3")
    both = pickle.loads(pickle.dumps(EntryErrors([EntryError("a.md", "k", "m"), EntryError("b.md", "", "n")])))
    assert str(both) == "a.md, key 'k': m\nb.md: n" and [e.key for e in both.errors] == ["k", ""]


def test_the_setting_reads_auto_or_a_count():
    assert Settings.resolve(ROOT / "entries", ROOT, {}, serving=False, environ={}).workers is None
    assert Settings.resolve(ROOT / "entries", ROOT, {}, serving=False, environ={"GLOSSARY_WORKERS": "3"}).workers == 3
    with pytest.raises(GlossaryError, match="GLOSSARY_WORKERS / extra.glossary.workers: expected auto or a number"):
        Settings.resolve(ROOT / "entries", ROOT, {}, serving=False, environ={"GLOSSARY_WORKERS": "0"})


def _real_build(workers: str) -> tuple[GlossaryBuild, dict[str, str]]:
    build = GlossaryBuild(Settings.for_project(ROOT / "entries", environ={
        "GLOSSARY_PREVIEW": "1", "GLOSSARY_MEASURE": "never", "GLOSSARY_WORKERS": workers}), logging.getLogger("t"))
    build.load()
    pages = {slug: build.render_page(f"{slug}.md") for slug in build.entries}
    return build, pages


def test_the_real_glossary_judged_and_rendered_by_a_pool_is_the_same(monkeypatch):
    one, one_pages = _real_build("1")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 2)  # the real glossary is small: pool it anyway
    two, two_pages = _real_build("2")
    made = two.site_files()
    assert two._ahead._pages == {} and two._ahead._plots == {} and two._ahead.work._pool is None
    assert made == one.site_files()  # every page and plot handed out once, and the pool ended with the last
    assert list(two.entries) == list(one.entries) and two_pages == one_pages
    assert {s: v.reasons for s, v in two.verdicts.items()} == {s: v.reasons for s, v in one.verdicts.items()}
    assert two._figure_lint == one._figure_lint
    assert all(two.assessments[s].entry is two.entries[s] for s in two.entries)  # one object per entry


def test_rendering_the_pages_alone_ends_the_pool_with_the_last_page(monkeypatch):
    # A caller that renders pages and never asks for the site's files (a test's fixture, a script) must not
    # leave a forked worker waiting: it holds this process's pipes (Playwright's driver) open, and the
    # process then never ends.
    monkeypatch.setattr(parallel, "MIN_ITEMS", 2)
    build, _ = _real_build("2")
    assert build._ahead._pages == {} and build._ahead.work._pool is None


def test_a_build_that_stops_early_ends_the_work_ahead(monkeypatch):
    # MkDocs fails on a page (on_build_error) or finishes: the pages and plots not yet asked for are
    # dropped, and the interpreter does not wait for a pool to work them out before it exits.
    monkeypatch.setattr(parallel, "MIN_ITEMS", 2)
    build, _ = _real_build("2")
    build._ahead = None
    first = next(s for s in build.entries if build.shown(s))
    assert build.render_page(f"{first}.md")
    work = build._ahead.work
    build.done()
    assert build._ahead is None and work._pool is None


def test_a_plot_handed_out_later_is_the_plot_drawn_now(tmp_path, monkeypatch):
    # The hook gives MkDocs each plot as a file whose content is made when MkDocs first reads it.
    from mkdocs.config.defaults import MkDocsConfig
    import importlib.util
    spec = importlib.util.spec_from_file_location("hooks_under_test", ROOT / "hooks" / "glossary_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    monkeypatch.setattr(parallel, "MIN_ITEMS", 2)
    build, _ = _real_build("2")
    later, now = build.site_files(later=True), build.site_files()
    plots = sorted(p for p in later if p.endswith(".svg") and callable(later[p]))
    assert plots and all(not callable(now[p]) for p in plots)
    (tmp_path / "docs").mkdir()
    config = MkDocsConfig(config_file_path=str(tmp_path / "mkdocs.yml"))
    config.load_dict({"site_name": "t", "docs_dir": str(tmp_path / "docs"), "site_dir": str(tmp_path / "site")})
    assert config.validate() == ([], [])
    config.plugins._current_plugin = "glossary"  # as MkDocs sets it while it runs a hook's event
    calls = []
    file = hooks._LaterFile.generated(config, plots[0], content=lambda: calls.append(1) or now[plots[0]])
    assert not calls  # nothing made until it is read
    file.copy_file()
    assert (tmp_path / "site" / file.dest_uri).read_bytes() == now[plots[0]] == file.content_bytes and calls == [1]
