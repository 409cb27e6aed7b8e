"""Code in an entry's Markdown, masked: the functions of ``glossary.entries.masking``, where they live
(the entry stage, so the entry model can read image links outside code too), under the name the
figures and the checks have always imported."""

from __future__ import annotations

from glossary.entries.masking import code_regions, mask_code, unmask_code

__all__ = ["code_regions", "mask_code", "unmask_code"]
