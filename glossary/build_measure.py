"""What a build measures stale entries with, on the verification node (``measurer``): the measuring
stage (``glossary.measuring``) under the project's settings, its trust policy deciding which counters
a new measurement may carry."""

from __future__ import annotations

import logging
from typing import Callable

from glossary.entries.model import Entry
from glossary.settings import OPTIONS, GlossaryError, Settings


def measurer(settings: Settings, log: logging.Logger) -> Callable[[list[Entry]], None] | None:
    """What a build's ``load`` measures with, by ``options.measure``: nothing under ``never``; under
    ``auto`` a machine without a GPU is a note, under ``always`` a WARNING (so --strict fails)."""
    if settings.measure == "never":
        return None
    from glossary.measuring.plan import NoGPU, NoSandbox, measure_entries
    from glossary.measuring.pool import PoolError
    from glossary.measuring.progress import ConfigsLog
    from glossary.verdicts import trust

    def run(entries: list[Entry]) -> None:
        policy = settings.load_trust()
        try:
            measure_entries(entries, log, gpus=settings.gpus, deadline_s=settings.deadline_s,
                            carry=lambda entry, device: trust.counters_to_carry(entry, device, policy),
                            on_configs=ConfigsLog(log))
        except NoGPU as why:
            if settings.measure == "always":
                # Survive it: recorded results still build, stale ones are flagged, and --strict fails.
                log.warning("measuring was required (measure: always) but this machine cannot: %s; "
                            "the build uses recorded results", why)
            else:
                log.info("no GPU here (%s); using recorded results", why)
        except NoSandbox as why:  # a GPU, but author code could not be confined: a WARNING, so --strict fails
            log.warning("%s; the build uses recorded results", why)
        except PoolError as err:
            raise GlossaryError(f"{OPTIONS['gpus'].env} / extra.glossary.gpus: {err}") from None

    return run
