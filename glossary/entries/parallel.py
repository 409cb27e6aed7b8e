"""Per-entry work of one build on every core: parse, assess, render and draw each entry apart.

``each(task, items, context)`` returns ``[task(context, item) for item in items]``, in the
order of ``items`` whatever order the workers finish in, so a build's output does not depend
on how many cores did it.  ``task`` is a module-level function (a worker imports it by name);
``context`` is what every item shares (the trust policy, the page models): it reaches each
worker once, inherited where the pool forks and pickled where it spawns, never once per item.

A pool is worth its start (a process per core, each item's result pickled back) only for
many items on more than one core: for fewer than ``MIN_ITEMS`` items, on one core, or with
``workers`` 1 (``GLOSSARY_WORKERS=1``) the items run here, one after the other.  An exception
an item raises reaches the caller as the same exception, raised by the first failing item in
order, as the loop would; what the task logs is not seen by MkDocs' logger, so tasks return
what is to be said and the caller says it.

``Ahead(task, items, context)`` gives the same results one at a time, worked out ahead in the
background while the caller goes on (the build's entry pages, while MkDocs renders the pages before).
"""

from __future__ import annotations

import contextlib
import gc
from typing import Any, Callable, Generic, Sequence, TypeVar

from measure import tools

T = TypeVar("T")
R = TypeVar("R")
C = TypeVar("C")

MIN_ITEMS = 48  # below it a pool's start (about 0.1 s a worker) is more than it saves

_context: Any = None  # in a worker: the context its pool was started with


def workers_for(n_items: int, workers: int | None = None) -> int:
    """How many processes run ``n_items`` items: 1 (here) where a pool is not worth it, else up
    to ``workers`` (None: one per core), never more than the items in chunks of ``MIN_ITEMS / 2``."""
    limit = tools.cores() if workers is None else workers
    if limit <= 1 or n_items < MIN_ITEMS:
        return 1
    return max(1, min(limit, n_items // (MIN_ITEMS // 2)))


def each(task: Callable[[C, T], R], items: Sequence[T], context: C, workers: int | None = None) -> list[R]:
    """``[task(context, item) for item in items]``, on a process pool where it is worth it."""
    count = workers_for(len(items), workers)
    if count == 1:
        return [task(context, item) for item in items]
    from concurrent.futures import ProcessPoolExecutor  # here: a command that never pools never loads it

    # Chunks of a few items keep both the pickling per call and the idle tail short.
    chunk = max(1, len(items) // (count * 8))
    with ProcessPoolExecutor(max_workers=count, mp_context=_start_method(),
                             initializer=_enter, initargs=(context,)) as pool, _collector_paused():
        return list(pool.map(_call, [task] * len(items), items, chunksize=chunk))


@contextlib.contextmanager
def _collector_paused():
    """The cycle collector off here while a pool's results arrive: they are the caller's to keep, and
    walking the heap they grow, again and again, found nothing to collect (0.5 s of a 1,000-entry load)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Ahead(Generic[R]):
    """``task(context, item)`` for each of ``items``, worked out ahead, in the items' order, by a pool of one
    process fewer than the cores, while the caller goes on with work of its own on the last core:
    ``get(i)`` waits for the i-th result alone.  Where the pool has not started the chunk of items the
    caller asks for, the caller works those items out itself, so a caller with nothing else to do keeps
    every core busy too.  Where a pool is not worth it (``workers_for``; one core, two with too few items)
    every item is worked out by its ``get``.  An exception an item raises is raised by its ``get``.  The
    pool ends once every result has been taken, or at ``close``.  ``here``: what the caller's ``get`` does
    for an item the pool did not take (default: ``task``), for work the caller does another way.
    ``backwards``: the pool begins at the last item, so a caller that works as fast as the pool is never
    kept waiting: it works the items out from the first, the pool from the last, and they meet once.
    ``start`` False: the pool forks at the first ``get``, for results wanted only later (a process that
    forks while another pool's threads run may deadlock in the child; Python 3.12 warns of it)."""

    def __init__(self, task: Callable[[C, T], R], items: Sequence[T], context: C, workers: int | None = None,
                 here: Callable[[C, T], R] | None = None, backwards: bool = False, start: bool = True) -> None:
        self.task, self.items, self.context = task, list(items), context
        self._here = here or task
        self._left = len(self.items)
        self._pool = None
        self._chunks: list = []  # a future per chunk of items; None where the caller works the chunk out
        self._count = workers_for(len(self.items), workers) - 1
        # Small chunks: the first results are back soon, and the caller seldom waits for one (where the two
        # meet, backwards, the caller waits for at most the chunk the pool has begun).
        self._chunk = max(1, min(4 if backwards else 16, len(self.items) // max(1, self._count * 8)))
        self._backwards = backwards
        self._waiting = not start and self._count >= 1  # the pool forks at the first get
        if start:
            self._start()

    def _start(self) -> None:
        self._waiting = False
        if self._count < 1:
            return
        from concurrent.futures import ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(max_workers=self._count, mp_context=_start_method(), initializer=_enter,
                                         initargs=(self.context,))
        starts = range(0, len(self.items), self._chunk)
        self._chunks = [None] * len(starts)
        for k in (reversed(range(len(starts))) if self._backwards else range(len(starts))):
            self._chunks[k] = self._pool.submit(_call_chunk, self.task, self.items[starts[k]:starts[k] + self._chunk])

    def get(self, index: int) -> R:
        """The ``index``-th item's result; each is meant to be taken once, and the pool ends with the last."""
        if self._waiting:
            self._start()
        self._left -= 1
        try:
            k = index // self._chunk
            future = self._chunks[k] if k < len(self._chunks) else None
            if future is not None and (future.cancel() or future.cancelled()):  # not started (or closed)
                self._chunks[k] = future = None
            if future is None:
                return self._here(self.context, self.items[index])
            ok, value = future.result()[index % self._chunk]
            if not ok:
                raise value
            return value
        finally:
            if self._left <= 0:  # nothing is left running: the pool's processes and threads end before the
                self.close(wait=True)  # caller goes on, so a pool forked next forks a process of one thread

    def close(self, wait: bool = False) -> None:
        """The pool ended; whatever it had not begun is dropped, and worked out here if asked for."""
        self._waiting = False
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)
            self._pool = None


def _call_chunk(task: Callable[[Any, T], R], items: list[T]) -> list[tuple[bool, Any]]:
    """(True, result) or (False, the exception raised) for each item: one item's error is its own."""
    out: list[tuple[bool, Any]] = []
    for item in items:
        try:
            out.append((True, task(_context, item)))
        except Exception as err:  # noqa: BLE001 - handed back to the caller, which raises it
            out.append((False, err))
    return out


def forks() -> bool:
    """Whether a pool's workers fork, so inherit the context (and all else) without pickling it."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _start_method():
    import multiprocessing

    # fork shares the context without pickling it; where the platform has none, spawn pickles it
    # once per worker.  Both run the same module-level tasks.
    return multiprocessing.get_context("fork" if forks() else "spawn")


def _enter(context: Any) -> None:
    global _context
    _context = context
    # What the worker inherits (MkDocs, its config and pages so far, the context) outlives every
    # task: the cycle collector leaves it alone, and its pages are not copied for the collector
    # to write its marks in.  The collector is on for the tasks' own garbage, whatever the caller's
    # was when the pool forked (``_collector_paused``).
    gc.freeze()
    gc.enable()


def _call(task: Callable[[Any, T], R], item: T) -> R:
    return task(_context, item)
