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
"""

from __future__ import annotations

import re
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
