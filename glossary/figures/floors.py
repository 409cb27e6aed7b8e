"""The floors a page shows once, and why a claim at another size may quote another (issue 32, item 4):
the copy and link floors are measured again beside every size of the sweep, with the same copies,
and each size's claims are judged against the floor measured beside it (pure)."""

from __future__ import annotations

from glossary.figures import fmt


def floor_note(sizes, copy_floor: bool = True) -> str:
    """Why a claim at another size may quote another floor than the one the page shows (the
    headline's; the copy floor only where ``copy_floor``): where the floors measured beside the
    sizes of ``sizes`` differ, their span in words, else ''."""
    parts = []
    copy = [s.copy_floor_gbps for s in sizes if s.copy_floor_gbps and copy_floor]
    if len(set(copy)) > 1:
        parts.append(f"the copy floor spans {fmt.significant(min(copy))} to {fmt.rate(max(copy))}")
    for way, name in (("h2d_gbps", "host to device"), ("d2h_gbps", "device to host")):
        link = [getattr(s.link_floor, way) for s in sizes if s.link_floor]
        if len(set(link)) > 1:
            parts.append(f"the link floor {name} spans {fmt.significant(min(link))} to {fmt.rate(max(link))}")
    if not parts:
        return ""
    moved = sorted({s.copy_floor_bytes for s in sizes if s.copy_floor_bytes and copy_floor})
    copies = (f" (the copy floor's copies move {fmt.fmt_bytes(moved[0])} to {fmt.fmt_bytes(moved[-1])} each)"
              if len(moved) > 1 else "")
    return ("Each floor is measured again beside every size of the sweep" + copies + f"; over the sweep "
            f"{' and '.join(parts)}, and a claim at a size is judged against the floor measured beside it, so "
            "a claim at another size may quote a floor a little off the one shown here.")
