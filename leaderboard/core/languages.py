"""The languages of the benchmarks' texts: each ISO 639-3 code the task declarations and
the data use (``hin``, ``urd``, ``zho``), its English name, the BCP 47 tag a web page marks
text in it with (``lang="hi"``: what a screen reader picks its voice by) and the direction
its script is written in (``dir="rtl"`` for the Arabic script's Persian and Urdu).

A task declares the language of its queries and of its documents by code
(:class:`leaderboard.core.tasks.Task`, which refuses a code missing here); readers, the
reference models and the site's query explorer take them from the task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Direction = Literal["ltr", "rtl"]


@dataclass(frozen=True)
class Language:
    code: str            # ISO 639-3, as the data and the task ids name it
    name: str            # in English, as titles name it
    tag: str             # BCP 47 (the ISO 639-1 code where there is one)
    direction: Direction  # of the script the benchmark's texts are written in


LANGUAGES: dict[str, Language] = {lang.code: lang for lang in (
    Language("eng", "English", "en", "ltr"),
    # mFollowIR (TREC NeuCLIR): Persian in the Arabic script, Chinese in simplified
    # characters, Russian in Cyrillic.
    Language("fas", "Persian", "fa", "rtl"),
    Language("rus", "Russian", "ru", "ltr"),
    Language("zho", "Chinese", "zh", "ltr"),
    # PI-Indic-Align: each language in its usual script (Punjabi in Gurmukhi, Urdu in the
    # Arabic script's Nastaliq).
    Language("asm", "Assamese", "as", "ltr"),
    Language("ben", "Bengali", "bn", "ltr"),
    Language("guj", "Gujarati", "gu", "ltr"),
    Language("hin", "Hindi", "hi", "ltr"),
    Language("kan", "Kannada", "kn", "ltr"),
    Language("mal", "Malayalam", "ml", "ltr"),
    Language("mar", "Marathi", "mr", "ltr"),
    Language("ory", "Odia", "or", "ltr"),
    Language("pan", "Punjabi", "pa", "ltr"),
    Language("tam", "Tamil", "ta", "ltr"),
    Language("tel", "Telugu", "te", "ltr"),
    Language("urd", "Urdu", "ur", "rtl"),
)}


def language_names(codes: tuple[str, ...]) -> dict[str, str]:
    """{code: English name} of ``codes``, in their order."""
    return {code: LANGUAGES[code].name for code in codes}
