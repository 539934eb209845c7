"""Text preparation shared by the runners: table linearisation, how an instruction meets
its query, and BM25 tokenisation.

FollowTable's corpus mixes markdown tables (WQT, WTR) and HTML tables (TArX, IndusTR).
Markup is noise to every model: HTML attributes eat a short context window and tag names
become BM25 terms. :func:`linearise_table` turns both into the same plain layout -- the
caption or title, then one line per row with cells separated by " | " -- so truncation
keeps the caption, header and first rows.

:class:`Bm25Tokenizer` splits text into maximal runs of letters, digits and combining
marks. Python's ``\\w`` does not match combining marks, so a plain ``\\w+`` tokeniser cuts
Devanagari, Tamil, Bengali ... words apart at every vowel sign; PI-Indic needs whole words.

:class:`InstructionFormat` is how a query and its instruction become one text. By default
a model reads each benchmark's own text: FollowIR and mFollowIR append the instruction to
the query ("query instruction", as MTEB joins them), FollowTable's export puts it first
("instruction [SEP] query"). A model trained on another convention names it instead: the
instruction after the query, before it, or a template of its own with ``{query}`` and
``{instruction}`` (e5-mistral's "Instruct: {instruction}\\nQuery: {query}", for instance).
"""

from __future__ import annotations

import html
import re
import string
import sys
import unicodedata
from dataclasses import dataclass
from functools import cache
from html.parser import HTMLParser

_MARKDOWN_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_SPACES = re.compile(r"[ \t\u00a0]+")
_TABLE_TAG = re.compile(r"<\s*(table|tr|td|th)\b", re.IGNORECASE)
# "[SEP]"-style markers joining instruction and query in BEIR exports are not words.
_SPECIAL_MARKER = re.compile(r"\[(?:SEP|CLS|MASK|PAD|UNK)\]")


class _TableText(HTMLParser):
    """Collects caption and rows of HTML tables; text outside tables is kept as is."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._caption: list[str] | None = None
        self._loose: list[str] = []

    def _flush_loose(self) -> None:
        text = _SPACES.sub(" ", "".join(self._loose)).strip()
        if text:
            self.lines.append(text)
        self._loose = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "caption":
            self._flush_loose()
            self._caption = []
        elif tag == "tr":
            self._flush_loose()
            self._row = []
        elif tag in ("td", "th"):
            if self._row is None:  # a cell outside any row still belongs to a row
                self._row = []
            self._cell = []
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "caption" and self._caption is not None:
            text = _SPACES.sub(" ", "".join(self._caption)).strip()
            if text:
                self.lines.append(text)
            self._caption = None
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(_SPACES.sub(" ", "".join(self._cell)).strip())
            self._cell = None
        elif tag == "tr":
            self._end_row()

    def _end_row(self) -> None:
        if self._cell is not None and self._row is not None:
            self._row.append(_SPACES.sub(" ", "".join(self._cell)).strip())
            self._cell = None
        if self._row is not None:
            if any(self._row):
                self.lines.append(" | ".join(self._row))
            self._row = None

    def handle_data(self, data: str) -> None:
        data = data.replace("\n", " ")
        if self._caption is not None:
            self._caption.append(data)
        elif self._cell is not None:
            self._cell.append(data)
        elif self._row is None:
            self._loose.append(data)

    def text(self) -> str:
        self._end_row()
        self._flush_loose()
        return "\n".join(self.lines)


def linearise_table(text: str) -> str:
    """Plain-text form of a markdown or HTML table: title/caption, then one row per line."""
    if _TABLE_TAG.search(text):
        parser = _TableText()
        parser.feed(text)
        parser.close()
        return parser.text()
    lines = []
    for line in text.splitlines():
        if _MARKDOWN_RULE.match(line):
            continue  # the "| --- | --- |" rule under a markdown header carries no content
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1:
            stripped = " | ".join(c.strip() for c in stripped[1:-1].split("|"))
        elif stripped.startswith("#"):
            stripped = stripped.lstrip("#").strip()
        stripped = _SPACES.sub(" ", html.unescape(stripped)).strip()
        if stripped:
            lines.append(stripped)
    return "\n".join(lines)


# --instruction-format names and the template each stands for; "benchmark" keeps the text
# each benchmark ships (RoleData.query_text).
BENCHMARK_FORMAT = "benchmark"
NAMED_INSTRUCTION_FORMATS = {
    "query-instruction": "{query} {instruction}",   # FollowIR's convention, on every benchmark
    "instruction-query": "{instruction} {query}",   # FollowTable's order, without its [SEP]
}


@dataclass(frozen=True)
class InstructionFormat:
    """How an instruction meets its query: ``benchmark``, a named convention, or a template."""

    name: str                # as given: "benchmark", "query-instruction", or the template
    template: str | None     # None: the benchmark's own text

    @classmethod
    def parse(cls, text: str) -> "InstructionFormat":
        """A name of :data:`NAMED_INSTRUCTION_FORMATS`, ``benchmark``, or a template that
        uses exactly the fields ``{query}`` and ``{instruction}`` (literal braces doubled)."""
        if text == BENCHMARK_FORMAT:
            return cls(text, None)
        if text in NAMED_INSTRUCTION_FORMATS:
            return cls(text, NAMED_INSTRUCTION_FORMATS[text])
        names = ", ".join([BENCHMARK_FORMAT, *NAMED_INSTRUCTION_FORMATS])
        try:
            fields = {name for _, name, _, _ in string.Formatter().parse(text)
                      if name is not None}
        except ValueError as exc:  # an unmatched brace
            raise ValueError(f"instruction format {text!r} is not a valid template ({exc}); "
                             f"give one of {names}, or a template with {{query}} and "
                             "{instruction}") from None
        if fields != {"query", "instruction"}:
            raise ValueError(f"instruction format {text!r} is neither one of {names} nor a "
                             "template with exactly the fields {query} and {instruction} "
                             f"(it has {sorted(fields) or 'none'}; write literal braces as "
                             "{{ and }})")
        return cls(text, text)

    def join(self, query: str, instruction: str) -> str:
        assert self.template is not None
        return self.template.format(query=query, instruction=instruction)

    def describe(self) -> str:
        if self.template is None:
            return ("each benchmark's own text (FollowIR/mFollowIR: query then instruction; "
                    "FollowTable: instruction [SEP] query)")
        return f"{self.template!r} on every benchmark; a query without an instruction alone"


@cache
def _word_pattern() -> re.Pattern[str]:
    # Letters and digits (Python's \w without "_") plus every combining mark (Mn, Mc, Me).
    marks: list[str] = []
    start = prev = None
    for cp in range(sys.maxunicode + 1):
        if unicodedata.category(chr(cp)).startswith("M"):
            if prev is not None and cp == prev + 1:
                prev = cp
                continue
            if start is not None:
                marks.append(_range(start, prev))
            start = prev = cp
    if start is not None:
        marks.append(_range(start, prev))
    return re.compile(r"(?:[^\W_]|[" + "".join(marks) + r"])+")


def _range(start: int, end: int | None) -> str:
    end = start if end is None else end
    return re.escape(chr(start)) if start == end else f"{re.escape(chr(start))}-{re.escape(chr(end))}"


def words(text: str) -> list[str]:
    """Case-folded words: maximal runs of letters, digits and combining marks."""
    text = unicodedata.normalize("NFC", _SPECIAL_MARKER.sub(" ", text))
    return [w.casefold() for w in _word_pattern().findall(text)]


class Bm25Tokenizer:
    """Words, minus stop words, stemmed -- for one language's settings."""

    def __init__(self, stemmer: str | None = None, stopwords: str | None = None) -> None:
        self.stemmer_name = stemmer
        self.stopwords_name = stopwords
        self._stemmer = None
        if stemmer:
            try:
                import Stemmer  # PyStemmer: Snowball stemmers compiled to C
            except ImportError as exc:
                raise ImportError("BM25 stemming needs PyStemmer: pip install PyStemmer") from exc
            if stemmer not in Stemmer.algorithms():
                raise ValueError(f"unknown Snowball stemmer {stemmer!r}; "
                                 f"available: {', '.join(Stemmer.algorithms())}")
            self._stemmer = Stemmer.Stemmer(stemmer)
        self._stopwords: frozenset[str] = frozenset()
        if stopwords:
            import bm25s.stopwords as lists

            name = "STOPWORDS_" + stopwords.upper()
            if not hasattr(lists, name):
                raise ValueError(f"unknown bm25s stop-word list {stopwords!r}")
            self._stopwords = frozenset(getattr(lists, name))
        self._stems: dict[str, str] = {}

    def __call__(self, text: str) -> list[str]:
        tokens = [w for w in words(text) if w not in self._stopwords]
        if self._stemmer is None:
            return tokens
        stems = self._stems
        unknown = [t for t in set(tokens) if t not in stems]
        if unknown:
            stems.update(zip(unknown, self._stemmer.stemWords(unknown)))
        return [stems[t] for t in tokens]
