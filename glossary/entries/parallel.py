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
"""

from __future__ import annotations

from typing import Any, Callable, Sequence, TypeVar

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
                             initializer=_enter, initargs=(context,)) as pool:
        return list(pool.map(_call, [task] * len(items), items, chunksize=chunk))


def _start_method():
    import multiprocessing

    # fork shares the context without pickling it; where the platform has none, spawn pickles it
    # once per worker.  Both run the same module-level tasks.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _enter(context: Any) -> None:
    global _context
    _context = context


def _call(task: Callable[[Any, T], R], item: T) -> R:
    return task(_context, item)
