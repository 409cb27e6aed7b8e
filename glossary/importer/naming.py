"""Whether a link text names the term it links to, so that it may become that term's alias (issue 31).

A link text is an alias only where it *names* the term: it is the title or a variant of it
("Streaming Multiprocessor" for "Streaming Multiprocessor (SM)", "roofline" for "Roofline model",
"thread-block" for "Thread block"), an abbreviation of it (the title's initials or capitals, "SM",
"PTX"), or a phrase that several files link the term with ("smem").  A common word alone never
qualifies ("instructions", "shared", "performance", "grid"): prose uses it for other things, and
as an alias it would put the term's tooltip on all of them.  Which words are common is read from
wordfreq's lists (English, and Chinese for CJK text), not typed here.  Lengths count per script:
Latin words are separated by spaces, CJK characters are not, so two of them count as one word.
"""

from __future__ import annotations

import functools
import math
import re

# Zipf frequency (log10 of occurrences per billion words) at or above which one word is common:
# 3 is once per million words ("compile" 3.4, "grid" 4.2, "cache" 3.6); technical words sit below
# ("multiprocessor" 2.0, "roofline" 2.1, "scheduler" 2.7).
COMMON_ZIPF = 3.0
SEVERAL_FILES = 2  # a phrase that names no spelling of the term still names it when this many files link it so,
SEVERAL_LINKS = 3  # or this many links
MAX_ALIAS_WORDS = 4
# Scripts written without spaces between words: Han, kana, bopomofo (Korean's Hangul has spaces).
CJK = re.compile(r"[\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
                 r"\uf900-\ufaff\uff66-\uff9f]")
# Title words dropped from the end where prose names the thing by what is left ("the roofline").
GENERIC_HEADS = frozenset("model models unit units law effect technique method pattern concept problem "
                          "operation operations api library toolkit".split())
_STOP = frozenset("of the a an and or for in on to with by at as from".split())
_PAREN = re.compile(r"\s*[(\uff08]([^()\uff08\uff09]*)[)\uff09]\s*")  # ASCII or full-width parentheses
_SPLIT = re.compile(r"[\s\-_/]+")


def words(text: str) -> int:
    """The length of ``text`` in words, per script: space-separated words of other scripts, and
    each two CJK characters (Chinese writes no spaces; its words are mostly two characters long)."""
    cjk = len(CJK.findall(text))
    rest = CJK.sub(" ", text).split()
    return len(rest) + math.ceil(cjk / 2)


def has_cjk(text: str) -> bool:
    return bool(CJK.search(text))


def singular(word: str) -> str:
    """'caches' -> 'cache', 'latencies' -> 'latency', 'buses' -> 'bus' (English, the last word only)."""
    low = word.lower()
    if low.endswith("ches") and low[-5:-4] not in ("t", "n", "r"):
        return word[:-1]  # 'caches', 'niches' (but 'batches', 'branches', 'marches')
    for plural, one in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"), ("s", "")):
        if low.endswith(plural) and not low.endswith("ss") and len(low) > len(plural) + 1:
            return word[:len(word) - len(plural)] + one
    return word


def key(text: str) -> str:
    """``text`` compared as a name: case folded, hyphens, underscores and slashes as spaces, each
    word singular, punctuation at the ends of words gone."""
    parts = [p.strip(".,;:!?\"'()[]") for p in _SPLIT.split(text.casefold())]
    return " ".join(singular(p) for p in parts if p)


@functools.lru_cache(maxsize=1)
def _chinese() -> dict[str, float]:
    import wordfreq  # on first use: it takes half a second to import, and most commands never ask

    return wordfreq.get_frequency_dict("zh")


def _zipf(word: str) -> float:
    import wordfreq

    return wordfreq.zipf_frequency(word, "en")


@functools.lru_cache(maxsize=8192)
def is_common_word(text: str) -> bool:
    """Whether ``text`` is one common word of English (in any of its forms: 'caches', 'stalled',
    'overlaps') or of Chinese ('共享', '内存'); a phrase of several words never is."""
    text = text.strip()
    if not text or len(text.split()) != 1:
        return False
    if has_cjk(text):
        freq = _chinese().get(text, 0.0)
        return freq > 0 and math.log10(freq * 1e9) >= COMMON_ZIPF
    low = text.lower()
    forms = {low, singular(low)}
    for ending in ("ed", "ing", "d"):
        if low.endswith(ending) and len(low) > len(ending) + 2:
            stem = low[:-len(ending)]
            forms |= {stem, stem + "e"} | ({stem[:-1]} if len(stem) > 2 and stem[-1] == stem[-2] else set())
    return max(_zipf(f) for f in forms) >= COMMON_ZIPF


def initials(title: str) -> set[str]:
    """Abbreviations a title gives: its words' first letters ('Streaming Multiprocessor' -> 'SM'),
    its capitals ('Parallel Thread eXecution' -> 'PTX') and what it holds in parentheses."""
    out = {m.group(1).strip() for m in _PAREN.finditer(title) if m.group(1).strip()}
    bare = _PAREN.sub(" ", title)
    ws = [w for w in _SPLIT.split(bare) if w]
    first = "".join(w[0] for w in ws if w.lower() not in _STOP and w[0].isalnum()).upper()
    capitals = "".join(c for c in bare if c.isupper() or c.isdigit())
    out |= {x for x in (first, capitals) if len(x) >= 2}
    return out


def variants(title: str, slug: str) -> set[str]:
    """The keys of what names the term besides its spellings: the title without its parenthesis,
    the slug in words, the title without a generic last word ('Roofline model' -> 'roofline'),
    and the title's last words where they are not one common word ('multiprocessor')."""
    bare = _PAREN.sub(" ", title).strip().rstrip("?？")
    out = {key(title), key(bare), key(slug)}
    ws = key(bare).split()
    if len(ws) > 1 and ws[-1] in GENERIC_HEADS:
        out.add(" ".join(ws[:-1]))
    for i in range(1, len(ws)):
        tail = " ".join(ws[i:])
        if not (i == len(ws) - 1 and is_common_word(tail)):
            out.add(tail)
    return {v for v in out if v}


def names(text: str, title: str, slug: str, files: int, links: int = 0) -> str | None:
    """Why ``text`` names the term (a short phrase for the report), or None where it does not.
    ``files`` is how many files link the term with it, ``links`` how many links."""
    bare = text[:-1] if text.endswith("s") and len(text) > 2 and text[:-1].isupper() else text
    if any(c.isalpha() for c in bare) and all(c.isupper() or not c.isalpha() for c in bare) \
            and bare.replace(" ", "") in {i.replace(" ", "") for i in initials(title)}:
        return "an abbreviation of the title"
    if key(text) in variants(title, slug):
        return "a variant of the title"
    if files >= SEVERAL_FILES or links >= SEVERAL_LINKS:
        return f"the text {links} links from {files} files give it"
    return None


def is_inflection(text: str, spellings: tuple[str, ...]) -> bool:
    """Whether ``text`` is a verb form ('-ed', '-ing') of one of the term's spellings ('overlapped',
    'compiling' for 'overlap', 'compile'): a noun term is named only as the noun."""
    low = text.casefold()
    for spelling in spellings:
        s = spelling.casefold()
        stems = {s, s[:-1] if s.endswith("e") else s, s + s[-1:]}
        if any(low == stem + ending for stem in stems for ending in ("ed", "ing", "d")) and low != s:
            return True
    return False


def near_key(slug: str) -> str:
    """What two slugs of one term share: each part singular, a generic last part dropped
    ('bank-conflicts' and 'bank-conflict', 'roofline-model' and 'roofline', 'cuda-graphs' and
    'cuda-graph' have one key)."""
    parts = [singular(p) for p in slug.lower().split("-") if p]
    if len(parts) > 1 and parts[-1] in GENERIC_HEADS:
        parts = parts[:-1]
    return "-".join(parts)


def near_duplicates(slugs: dict[str, str]) -> dict[str, list[str]]:
    """For each slug of ``slugs`` (slug -> where it is), the other slugs with its ``near_key``."""
    by_key: dict[str, list[str]] = {}
    for slug in slugs:
        by_key.setdefault(near_key(slug), []).append(slug)
    return {slug: [o for o in by_key[near_key(slug)] if o != slug] for slug in slugs}
