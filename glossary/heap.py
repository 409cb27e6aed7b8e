"""What a build keeps until its process ends, and the cycle collector (issue 34).

A build makes most of what it holds once and keeps it to the end: the entries, their judgements and
page models, MkDocs' config and pages.  Python's cycle collector walks every object it tracks on each
full collection, and once more while the interpreter shuts down: over a 1,000-entry build that was
1.2 s of collections that found nothing, and 1.1 s at exit.  ``keep_to_the_end`` moves what is alive
now out of the collector's sight (``gc.freeze``); ``release`` gives it back, for a process that goes
on to build again (a program that calls MkDocs' build more than once).  `mkdocs serve` keeps nothing
this way: its rebuilds leave garbage that must still be collected.
"""

from __future__ import annotations

import gc

_kept = False  # whether this module froze the heap (and nobody has released it since)


def keep_to_the_end() -> None:
    """Everything alive now lives until the process ends: the collector no longer walks it."""
    global _kept
    gc.freeze()
    _kept = True


def release() -> None:
    """What ``keep_to_the_end`` kept is the collector's again, and what of it died since is collected
    (a new build in the same process).  A freeze of someone else's is left as it is."""
    global _kept
    if _kept:
        gc.unfreeze()
        gc.collect()  # now, before this build keeps its own: what died since is not kept with it
        _kept = False
