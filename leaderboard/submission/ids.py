"""Submission ids, and the one rule from an id to the name of its page.

A submission's id is its folder's name (``submissions/<id>/``), its branch and file names
in CI, and its page on the site (``submissions/<id>.html``, the explorer's
``explore/data/<id>/``). The page name *is* the id: no normalisation that could map two
ids to one page. So an id may not be one that two spellings would share: it starts and
ends with a letter or digit (``bm25s-`` and ``bm25s.`` were published as ``bm25s``'s page,
after the trailing ``-`` or ``.`` was stripped), and it may not be a page the site writes
itself (``index``: the list of submissions) nor a name Windows cannot hold as a file or
folder (a clone there could not check the submission out). The validator
(``metadata.yaml``'s ``id``), the pull-request check (the folder's name), the dispatched
baselines workflow and the site all use :func:`id_problem` and :func:`page_name`.

Nor may a new id differ from one the board has (a submission's, a reference model's) only
by case or by its separators (``all_minilm-l6-v2`` beside ``all-minilm-l6-v2``): its page
and rows would pass for the other's. :func:`lookalike_problem` says so, in `ci pr-check`
and in `validate` of a submission not merged yet.

A model's name (``metadata.yaml``'s ``model: name:``) is what the board, the pull
request's comment and the downloads show, and what folds rows into one model line
(:func:`leaderboard.publish.models.resolve_model`). The same text from another submitter
is the same model and joins its line, as the rows of one model from several sources do
(a reproduction, a rerun with other settings; the registry gives a listed model's type
and size whoever submits it, and a submission of a model it does not list states that
model's: :mod:`leaderboard.app.model_facts`). A name that *reads* as another's but is another text
(``аll-MiniLM-L6-v2`` with a Cyrillic ``а``, a joiner between Latin letters, full-width
letters, ``All-MiniLM-L6-v2``) would show as that model while being its own line, with a
type and size of its submitter's choosing: :func:`name_lookalike_problem` refuses it, in
`ci pr-check` and in `validate` of a submission not merged yet, as the ids' check is.

No package FollowBoard depends on ships Unicode's confusables data (UTS #39), so names are
compared by a skeleton of the module's own (:func:`folded_name`), after UTS #39's: NFKC;
each Greek, Cyrillic and Cherokee letter that the standard's confusables.txt maps to one
Latin letter, that letter (a table copied by hand and partial: :data:`_LATIN_LOOKALIKES`
says what it leaves out), a small kappa, ka or kra a k, and a capital I a small l (sans-serif type draws them alike);
the pairs 'rn', 'vv' and 'cl' of small letters an m, a w and a d (:data:`_LATIN_PAIRS`);
then case folded, without the default-ignorable characters (a joiner stays beside the
letters of a script written with it, Persian and Indic words, but not beside a Latin
one), each dash a hyphen and white space one space. The mapping comes before case
folding, as a capital Cyrillic 'М' looks like an M and a small 'м' like no Latin letter,
so names are also compared folded without it and without that I
(:func:`case_folded_name`): ``ALL-MINILM`` reads as ``all-MiniLM``, ``МОДЕЛЬ`` as
``модель``. A word (letters, marks and digits) mixing Latin, Greek, Cyrillic or Cherokee
letters is refused whatever the board holds (:func:`mixed_script_problem`: UTS #39's
"moderately restrictive" rule for these scripts, applied to each word rather than the
whole name): no table lists every look-alike. A name whose words are each in one script ('ruBERT (русский)', 'β-VAE')
passes unless it reads as a name the board holds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

# Used with fullmatch only: with match, '$' also matches before a final newline.
SUBMISSION_ID_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,61}[a-z0-9]")
ID_RULE = ("2-63 characters: lower-case letters, digits, '.', '_' or '-', starting and "
           "ending with a letter or digit")
# The page under submissions/ the site writes itself (index.md: the list of submissions).
SITE_PAGES = frozenset({"index"})
# Names Windows reserves for devices, with any extension ("con.v2" too).
DEVICE_NAMES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                          *(f"lpt{i}" for i in range(1, 10))})


def id_problem(text: str) -> str | None:
    """Why ``text`` cannot be a submission id (None when it can), a sentence naming it."""
    if not SUBMISSION_ID_RE.fullmatch(text):
        return f"{text!r} is not a submission id: it must be {ID_RULE}"
    if text in SITE_PAGES:
        return (f"{text!r} is reserved: the site's page submissions/{text}.html is the list "
                "of submissions; choose another id")
    if text.split(".")[0] in DEVICE_NAMES:
        return (f"{text!r} is reserved: Windows cannot hold a folder of that name; choose "
                "another id")
    return None


def page_name(sub_id: str) -> str:
    """The name of a submission's page and explorer folder: the id itself, which
    :func:`id_problem` accepts (a ValueError otherwise)."""
    problem = id_problem(sub_id)
    if problem:
        raise ValueError(problem)
    return sub_id


# Whose a declared reference model's id is, as lookalike_problem names it.
REFERENCE_MODEL = "a reference model's (reference_models/models.yaml)"
# What an id may hold besides letters and digits: ids that differ only in these (or in
# case) read as one.
ID_SEPARATORS = "._-"


def folded_id(sub_id: str) -> str:
    """``sub_id`` as a reader takes it: lower case, without its separators."""
    return sub_id.lower().translate({ord(c): None for c in ID_SEPARATORS})


def lookalike_problem(sub_id: str, taken: Mapping[str, str]) -> str | None:
    """Why ``sub_id`` may not be a new submission's id (None: it may): it differs from an
    id of ``taken`` (each with whose it is, e.g. "a reference model's") only by case or
    by '.', '_' and '-'. ``sub_id`` itself in ``taken`` is no look-alike."""
    folded = folded_id(sub_id)
    for other, whose in sorted(taken.items()):
        if other != sub_id and folded_id(other) == folded:
            return (f"the id {sub_id!r} differs from {other!r}, {whose}, only in its "
                    "separators ('.', '_', '-'): its page would pass for the other's; choose "
                    "another id")
    return None


# The default-ignorable code points (Unicode's Default_Ignorable_Code_Point): they show as
# nothing, so a name does not read otherwise for holding them. metadata.NOT_SHOWN_AS_TEXT
# refuses most; the joiners and the variation selectors are written in words and emoji.
_IGNORABLE = re.compile(
    "[\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
_JOINERS = "\u200c\u200d"
# Scripts whose letters are the Latin letters' look-alikes (and each other's): a word may
# hold the letters of one of them, not of two. Named as Unicode's character names name them.
LOOKALIKE_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC", "CHEROKEE")
# A blank that is no white space: the Braille pattern without dots.
_BLANKS = "\u2800"
# The Greek, Cyrillic and Cherokee letters that Unicode's confusables.txt (UTS #39,
# Version 17.0.0, 2025-07-22) maps to one Latin letter, by that letter, written out by
# hand from its lines (e.g. "0430 ;\t0061 ;\tMA # CYRILLIC SMALL LETTER A → LATIN SMALL
# LETTER A"). Partial: the file's other sources (mathematical and full-width letters,
# which NFKC folds already; Armenian, Lisu, Coptic...), its targets of two letters ('м' is
# 'rn') or not in a-z ('н' is 'ʜ'; 'κ' and 'к' are 'ĸ', taken for a 'k' below) and the
# letters NFKC changes first ('ϲ', 'ϱ') are left out.
_LATIN_LOOKALIKES = {
    "a": "αа",  # 03B1 0430
    "b": "ЬᏏ",  # 042C 13CF
    "c": "сꮯ",  # 0441 ABAF
    "d": "ԁᏧ",  # 0501 13E7
    "e": "еҽ",  # 0435 04BD
    "h": "һᏂ",  # 04BB 13C2
    "i": "ιіꙇꭵᎥ",  # 03B9 0456 A647 AB75 13A5
    "j": "ϳј",  # 03F3 0458
    "l": "ΙІӏӀ",  # 0399 0406 04CF 04C0
    "o": "οσо",  # 03BF 03C3 043E
    "p": "ρр",  # 03C1 0440
    "q": "ԛ",  # 051B
    "r": "гꮁ",  # 0433 AB81
    "s": "ѕꮪ",  # 0455 ABAA
    "u": "υ",  # 03C5
    "v": "νѵꮩ",  # 03BD 0475 ABA9
    "w": "ѡшԝꮃ",  # 0461 0448 051D AB83
    "x": "х",  # 0445
    "y": "γуү",  # 03B3 0443 04AF
    "z": "ꮓ",  # AB93
    "A": "ΑАᎪ",  # 0391 0410 13AA
    "B": "ΒВᏴ",  # 0392 0412 13F4
    "C": "СᏟ",  # 0421 13DF
    "D": "Ꭰ",  # 13A0
    "E": "ΕЕᎬ",  # 0395 0415 13AC
    "F": "Ϝ",  # 03DC
    "G": "ԌᏀᏳ",  # 050C 13C0 13F3
    "H": "ΗНᎻ",  # 0397 041D 13BB
    "J": "ͿЈᎫ",  # 037F 0408 13AB
    "K": "ΚКᏦ",  # 039A 041A 13E6
    "L": "Ꮮ",  # 13DE
    "M": "ΜϺМᎷ",  # 039C 03FA 041C 13B7
    "N": "Ν",  # 039D
    "O": "ΟО",  # 039F 041E
    "P": "ΡРᏢ",  # 03A1 0420 13E2
    "R": "ᎡᏒ",  # 13A1 13D2
    "S": "ЅᏕᏚ",  # 0405 13D5 13DA
    "T": "ΤТᎢ",  # 03A4 0422 13A2
    "V": "ѴᏙ",  # 0474 13D9
    "W": "ԜᎳᏔ",  # 051C 13B3 13D4
    "X": "ΧХ",  # 03A7 0425
    "Y": "ΥУҮᎩᎽ",  # 03A5 0423 04AE 13A9 13BD
    "Z": "ΖᏃ",  # 0396 13C3
}
_TO_LATIN = {ord(char): latin for latin, chars in _LATIN_LOOKALIKES.items() for char in chars}
# The digits confusables.txt maps to letters ("0030 ;\t004F ;\tMA # DIGIT ZERO → LATIN
# CAPITAL LETTER O", "0031 ;\t006C ;\tMA # DIGIT ONE → LATIN SMALL LETTER L"): a version
# number never tells two names apart by them alone ('multi1ingual-e5-small', 'k1=O.9').
_TO_LATIN |= {ord("0"): "O", ord("1"): "l"}
# The small kappa and ka, which confusables.txt makes the Latin kra ("03BA ;\t0138 ;\tMA #
# GREEK SMALL LETTER KAPPA → LATIN SMALL LETTER KRA"), a 'k' drawn without its ascender, and
# the kra itself, as a 'k': a word of them and digits mixes no script, and a reader takes
# 'к1=0.9' for the board's 'k1=0.9' (the Greek kappa symbol 'ϰ' is a 'κ' by NFKC).
_TO_LATIN |= {ord(char): "k" for char in "κкĸ"}
# The pairs of small Latin letters drawn like one letter, as that letter: the one such line
# of confusables.txt among the Latin letters ("006D ;\t0072 006E ;\tMA # LATIN SMALL
# LETTER M → LATIN SMALL LETTER R, LATIN SMALL LETTER N"), and those its lines leave out
# that a reader takes as readily in sans-serif type, 'vv' for a 'w' (and 'VV' for a 'W')
# and 'cl' for a 'd' (a 'cI' or 'c1' too, the l's look-alikes being an l by then):
# 'rnultilingual-e5' reads as 'multilingual-e5'. The pair becomes the letter, not the
# letter the pair as the file writes it, so that capitals folded afterwards make no pair:
# 'RN' is drawn unlike an 'm'. Applied after _TO_LATIN (a Cyrillic 'ш' is a 'w').
_LATIN_PAIRS = {"rn": "m", "vv": "w", "VV": "W", "cl": "d"}
_LATIN_PAIR = re.compile("|".join(_LATIN_PAIRS))


def _script(char: str) -> str | None:
    """The script of a letter or mark as the first word of its Unicode name
    (``DEVANAGARI SIGN VIRAMA``: DEVANAGARI); None for other characters."""
    if unicodedata.category(char)[0] not in "LM":
        return None
    return unicodedata.name(char, "").split(" ", 1)[0] or None


def _joined(text: str, i: int) -> bool:
    """Whether the joiner at ``text[i]`` is one of a script written with joiners: beside
    a letter or mark of such a script (a Persian word's ZWNJ, an Indic conjunct's ZWJ, a
    Malayalam chillu's closing one) and beside no Latin, Greek, Cyrillic or Cherokee
    letter, which show nothing of it."""
    sides = [_script(text[j]) for j in (i - 1, i + 1) if 0 <= j < len(text)]
    return (any(s is not None and s not in LOOKALIKE_SCRIPTS for s in sides)
            and not any(s in LOOKALIKE_SCRIPTS for s in sides))


def folded_name(name: str) -> str:
    """A model's ``name`` as a reader takes it (the module docstring's skeleton): names
    that fold alike read alike."""
    return _folded(name, skeleton=True)


def case_folded_name(name: str) -> str:
    """``name`` folded as :func:`folded_name` does but for its look-alike letters (a
    capital I stays an I): names that differ only in case fold alike, a capital I
    against a small one too ('ALL-MINILM' against 'all-MiniLM', whose skeletons differ:
    'all-mlnllm' and 'all-minilm')."""
    return _folded(name, skeleton=False)


def _folded(name: str, *, skeleton: bool) -> str:
    """``name`` NFKC, case folded, without what shows as nothing, each dash a hyphen and
    its white space one space; with ``skeleton``, each letter of :data:`_LATIN_LOOKALIKES`
    the Latin letter it looks like, a 0 an O, a 1 and a capital I an l, and then each pair
    of :data:`_LATIN_PAIRS` its letter, first (before case folding: a capital Cyrillic 'М'
    is an 'M', a small 'м' none; a small 'rn' an 'm', a capital 'RN' none)."""
    text = unicodedata.normalize("NFKC", name)
    # What shows as nothing goes first: it parts no pair ('r\u200bn' is an 'rn').
    text = "".join(c for i, c in enumerate(text)
                   if not _IGNORABLE.fullmatch(c) or (c in _JOINERS and _joined(text, i)))
    if skeleton:
        text = text.translate(_TO_LATIN).replace("I", "l")
        text = _LATIN_PAIR.sub(lambda pair: _LATIN_PAIRS[pair[0]], text)
    text = unicodedata.normalize("NFKC", text.casefold())
    text = "".join("-" if unicodedata.category(c) == "Pd" or c == "\u2212"
                   else " " if c in _BLANKS else c for c in text)
    return " ".join(text.split())


def _letter_script(char: str) -> str | None:
    """Which of :data:`LOOKALIKE_SCRIPTS` a letter is written in: the one its Unicode name
    names (``FULLWIDTH LATIN SMALL LETTER A``: LATIN), else that of the letter NFKC makes
    of it (``MATHEMATICAL BOLD SMALL ALPHA``: GREEK); None for a unit's sign, whose name
    names no script (``MICRO SIGN``, ``OHM SIGN``), and for other characters."""
    if unicodedata.category(char)[0] != "L":
        return None
    name = unicodedata.name(char, "")
    if script := next((word for word in name.split() if word in LOOKALIKE_SCRIPTS), None):
        return script
    folded = unicodedata.normalize("NFKC", char)
    if name.endswith(" SIGN") or folded == char:
        return None
    return next((script for c in folded if (script := _letter_script(c))), None)


def _words(name: str) -> list[str]:
    """The words of ``name``: its maximal runs of letters, marks and digits ('ν2' and 'L6'
    in 'all-MiniLM-L6-ν2'), what shows as nothing left out (it splits no word a reader
    sees)."""
    words: list[str] = []
    word = ""
    for char in _IGNORABLE.sub("", name) + " ":
        if unicodedata.category(char)[0] in "LMN":
            word += char
        elif word:
            words.append(word)
            word = ""
    return words


def mixed_script_problem(name: str) -> str | None:
    """Why ``name`` may not be a new model's name for a word mixing the letters of two of
    :data:`LOOKALIKE_SCRIPTS` (``МiniLM``, its M Cyrillic): no table of look-alikes lists
    every name one may copy, so such a word is refused whatever the board holds. Words in
    different scripts ('ruBERT (русский)') are fine. None: it may."""
    for word in _words(name):
        first: dict[str, str] = {}
        for char in word:
            if script := _letter_script(char):
                first.setdefault(script, char)
        if len(first) < 2:
            continue
        shown = [f"{script.title()} ({char!r}, U+{ord(char):04X})"
                 for script, char in first.items()]
        return (f"the model name {name!r} mixes {', '.join(shown[:-1])} and {shown[-1]} "
                f"letters in the word {word!r}: a word mixing Latin, Greek, Cyrillic or "
                "Cherokee letters can read as another model's name while being another "
                "text; write each word in one script (words in different scripts are "
                "fine)")
    return None


def name_lookalike_problem(name: str, taken: Mapping[str, str]) -> str | None:
    """Why ``name`` may not be a new model's name (None: it may): it mixes look-alike
    scripts (:func:`mixed_script_problem`), or it folds (:func:`folded_name`, or
    :func:`case_folded_name`) as a name of ``taken`` does (each with whose it is, e.g.
    "the name of the reference model bm25s"; the first such name named) but is another
    text. A name of ``taken`` itself is the same model, and no look-alike."""
    if name in taken:
        return None
    if problem := mixed_script_problem(name):
        return problem
    folded, case_folded = folded_name(name), case_folded_name(name)
    for other, whose in taken.items():
        if folded_name(other) == folded or case_folded_name(other) == case_folded:
            return (f"the model name {name!r} reads as {other!r}, {whose}, but is another "
                    "text (it differs only in case, width, white space, dashes, an I or a "
                    "1 for an l, a 0 for an O, 'rn' for an 'm', 'vv' for a 'w', 'cl' for a "
                    "'d', invisible characters or Greek, Cyrillic or Cherokee letters that "
                    f"look like Latin ones): write {other!r} exactly "
                    "if it is that model, else a name of its own")
    return None
