"""Where a text may be cut without splitting a character as its reader sees it: a small,
plain rule set for the boundaries of extended grapheme clusters (Unicode UAX #29) in the
scripts the board's texts are written in.

The standard library has no grapheme segmentation (:mod:`unicodedata` gives neither the
Grapheme_Cluster_Break nor the Indic_Conjunct_Break property), and the explorer's
snippets need only one question answered: the last boundary at or before a length. So
these rules join what UAX #29 (Unicode 15.1) joins in those texts, from the general
category and a few code point lists:

* CR LF (GB3);
* a combining mark (Mn, Mc, Me: a vowel sign, a virama, a nukta, an anusvara, an accent,
  a variation selector), ZWNJ, ZWJ, an emoji skin-tone modifier or a tag character with
  what precedes it (GB9, GB9a);
* a prepended concatenation mark or Malayalam's dot reph with what follows it (GB9b);
* anything after ZWJ (GB11 joins a pictograph after ZWJ; in Indic text a ZWJ after a
  virama asks for a half form, which GB9c keeps with the next consonant);
* a letter after a virama (and any marks after it but ZWNJ) in the scripts whose virama
  forms conjuncts with the consonant after it: Devanagari (Hindi, Marathi), Bengali (Bengali, Assamese), Gujarati,
  Oriya, Telugu and Malayalam (GB9c), and Kannada and Gurmukhi, whose conjuncts and
  subjoined letters (ಕ್ಷ, ਪ੍ਰ) UAX #29 leaves split, showing a visible virama where the
  text has none. Tamil's virama (pulli) is written visibly, as UAX #29 has it;
* regional indicators in pairs, a flag each (GB12, GB13).

They never split what UAX #29 keeps together: every boundary they leave is one of its
boundaries (they join a little more: around a control character, before the few spacing
marks it does not join (Myanmar's), after a ZWJ, and a virama with a letter after it that
is no consonant), so a text cut at one of them is cut between two of its clusters, at
worst a character or two earlier than needed. A character this Python's Unicode data
(:data:`unicodedata.unidata_version`) does not know yet is taken for no mark.
``tests/test_explain.py`` holds them to the PI-Indic texts.
"""

from __future__ import annotations

import unicodedata

_CR, _LF, _ZWNJ, _ZWJ = "\r", "\n", "\u200c", "\u200d"
# The viramas whose script joins the next consonant into a conjunct (see above).
_VIRAMAS = frozenset("\u094d\u09cd\u0a4d\u0acd\u0b4d\u0c4d\u0ccd\u0d4d")
# Their scripts' blocks: Devanagari to Malayalam, Tamil's left out.
_CONJUNCT_BLOCKS = ((0x0900, 0x0B7F), (0x0C00, 0x0D7F))
# Grapheme_Cluster_Break=Prepend (Unicode 15.1).
_PREPEND = frozenset(map(chr, (
    *range(0x0600, 0x0606), 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x0D4E, 0x110BD,
    0x110CD, 0x111C2, 0x111C3, 0x1193F, 0x11941, 0x11A3A, *range(0x11A84, 0x11A8A),
    0x11D46, 0x11F02)))


def _extends(char: str) -> bool:
    """Whether ``char`` joins what precedes it (GB9, GB9a)."""
    if unicodedata.category(char) in ("Mn", "Mc", "Me") or char in (_ZWNJ, _ZWJ):
        return True
    code = ord(char)
    return 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F


def _conjunct_consonant(char: str) -> bool:
    code = ord(char)
    return (unicodedata.category(char) == "Lo"
            and any(lo <= code <= hi for lo, hi in _CONJUNCT_BLOCKS))


def _regional(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def boundaries(text: str, upto: int | None = None) -> list[int]:
    """The offsets (in code points, 0 and the end included) between ``text``'s clusters,
    those up to ``upto`` when given."""
    end = len(text) if upto is None else min(upto, len(text))
    out = [0] if text else []
    linked = False  # after a conjunct-forming virama, and the marks after it
    regional = 0  # regional indicators in a row before this position
    for i in range(1, end + 1):
        before = text[i - 1]
        linked = (before in _VIRAMAS or (linked and _extends(before) and before != _ZWNJ))
        regional = regional + 1 if _regional(before) else 0
        if i == len(text):
            out.append(i)
            break
        after = text[i]
        if (_extends(after) or before in _PREPEND or before == _ZWJ
                or (before == _CR and after == _LF)
                or (linked and _conjunct_consonant(after))
                or (regional % 2 == 1 and _regional(after))):
            continue
        out.append(i)
    return out


def _resets(char: str) -> bool:
    """Whether the position after ``char`` starts with no rule carried over: ``char``
    joins nothing after it (no prepended mark, ZWJ or CR) and is no mark (a virama is
    one) or regional indicator that a run before it could reach past it."""
    return not (char in _PREPEND or char in (_ZWJ, _CR) or _extends(char)
                or _regional(char))


# How far before the cut :func:`last_boundary` starts reading: a few clusters.
_WINDOW = 24


def last_boundary(text: str, limit: int) -> int:
    """``boundaries(text, limit)[-1]``, reading only the characters before ``limit`` back
    to one after which no rule carries over (:func:`_resets`), a few clusters: a snippet
    of a long text is cut in microseconds, where reading it from its start cost 90 us a
    PI-Indic text (0.3 s for its 3,600, paid by every task that shows them on a process
    with no task-data cache, as `ci pr-check`'s workers). ``tests/test_explain.py`` holds
    it to :func:`boundaries`."""
    end = min(limit, len(text))
    if end == len(text):
        return end  # the text's end is a boundary
    start = max(0, end - _WINDOW)
    while start > 0 and not _resets(text[start - 1]):
        start -= 1
    last = start + boundaries(text[start:], end - start)[-1]
    # After a resetting character the window's start is a boundary unless what follows
    # joins it (a mark after a space): then one cluster reaches back further.
    if last == start and start > 0 and _extends(text[start]):
        return boundaries(text, end)[-1]
    return last


def cut_between_clusters(text: str, limit: int) -> str:
    """``text`` itself when it has at most ``limit`` code points; else its longest start
    of at most ``limit`` that ends between two clusters (empty when the first cluster is
    longer than ``limit``)."""
    if len(text) <= limit:
        return text
    return text[:last_boundary(text, limit)]
