"""``metadata.yaml``: what a submitter tells us about the model and how its runs were made.

Read from strangers' pull requests: safe YAML that refuses a key given twice, at most
:data:`leaderboard.submission.layout.MAX_METADATA_BYTES`, and every problem reported with
the line of the key it is about.
"""

from __future__ import annotations

import datetime
import os
import re
import unicodedata
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

import yaml
from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field,
                      ValidationError, field_validator)

from leaderboard.benchmarks.registry import all_tasks
from leaderboard.core.fileio import file_kind, refusal_text, size_text, utf16_text
from leaderboard.core.refusals import validation_problem
from leaderboard.core.report import Report
from leaderboard.submission.ids import id_problem
from leaderboard.submission.layout import MAX_METADATA_BYTES, METADATA_NAME, NO_LINKS
from leaderboard.submission.results import ModelInfo

# A GitHub login: 1-39 letters, digits or single hyphens, not starting or ending with one.
GITHUB_LOGIN_RE = re.compile(r"[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}")


# What a link may not hold unescaped: white space, controls, and the characters that end
# or break out of a quoted attribute or a Markdown link (RFC 3986 allows none of them).
_NOT_IN_A_LINK = re.compile("[\\s\x00-\x1f\x7f\"<>\\\\^`{|}]")


def web_link_problem(link: str) -> str | None:
    """Why ``link`` is not a web address a page can link to; None when it is one."""
    if not re.match(r"^https?://", link):
        return f"link {link!r} must start with http:// or https://"
    found = _NOT_IN_A_LINK.search(link)
    if found:
        return (f"link {link!r} holds {found.group()!r}: escape it (%{ord(found.group()):02X}) "
                "or leave it out")
    try:
        host = urlsplit(link).hostname
    except ValueError as exc:  # a malformed [IPv6] host or port
        return f"link {link!r} is not a web address: {exc}"
    if not host:
        return f"link {link!r} names no host"
    return None


def _web_link(link: str) -> str:
    problem = web_link_problem(link)
    if problem:
        raise ValueError(problem)
    return link


# What text shown on the board may not hold: control characters (a terminal's escape
# sequences, a bell, a line end, Unicode's line and paragraph separators), the marks and
# controls of bidirectional text, which show the characters after them in another order
# than they are stored, so that a name could read on the board as another model's;
# characters that show as nothing (a zero-width space, a word joiner, a byte-order mark,
# a soft hyphen, tag characters, fillers), with which a name reads as another's while it
# is another text and so another model; and halves of UTF-16 surrogate pairs (JSON's
# \uD800 escapes), which UTF-8 cannot write. The joiners U+200C and U+200D, and the
# variation selectors, stay: Persian and Indic words and emoji are written with them.
NOT_SHOWN_AS_TEXT = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b"
    "\u200e\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\ud800-\udfff\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f]")
# Nonspacing and enclosing marks (Mn, Me) one character may carry in a row: Unicode's
# UTS #39 (section 5.4) advises forbidding more than four. More are "Zalgo" text, drawn
# over the lines above and below, so a name hid the names of the rows around it on every
# table (Vietnamese writes two on a letter).
MAX_MARKS_IN_A_ROW = 4
MAX_NAME_CHARS = 200
# More parameters than any model has: a count beyond is no count (pages divide it into
# "7.1B", which a 400-digit integer overflows).
MAX_PARAMETERS = 10**15


def character_problem(text: str, what: str, *, lines: bool = False) -> str | None:
    """Why ``text`` cannot be shown as plain text (``what`` names it, e.g. "a model's
    name"): the first character :data:`NOT_SHOWN_AS_TEXT` refuses, line ends and tabs
    aside when the text is of several ``lines``, or more combining marks on one character
    than :data:`MAX_MARKS_IN_A_ROW`; None when it can."""
    for found in NOT_SHOWN_AS_TEXT.finditer(text):
        char = found.group()
        if lines and char in "\n\t":
            continue
        shape = ("plain text, line ends and tabs aside" if lines
                 else "one line of plain text")
        return (f"holds U+{ord(char):04X}, a control, invisible, text-direction or "
                f"surrogate character: {what} is {shape}")
    return _stacked_marks_problem(text)


def _stacked_marks_problem(text: str) -> str | None:
    """Why ``text`` piles too many combining marks on one character
    (:data:`MAX_MARKS_IN_A_ROW`); None when it does not."""
    run = longest = 0
    for char in text:
        run = run + 1 if unicodedata.category(char) in ("Mn", "Me") else 0
        longest = max(longest, run)
    if longest <= MAX_MARKS_IN_A_ROW:
        return None
    return (f"holds {longest} combining marks in a row: at most {MAX_MARKS_IN_A_ROW} stack "
            "on one character (Unicode's UTS #39); more are drawn over the lines around it")


def shown_text_problem(text: str, what: str) -> str | None:
    """Why ``text`` cannot be shown as one line of plain text (``what`` names it, e.g.
    "a model's name"); None when it can."""
    if not text.strip():
        return f"{what} must not be blank"
    return character_problem(text, what)


def _plain(what: str, *, lines: bool = False) -> AfterValidator:
    """The check of a text pages show (a licence, the hardware's names): plain text, as
    a model's name is, of one line unless ``lines``."""
    def check(text: str) -> str:
        problem = character_problem(text, what, lines=lines)
        if problem:
            raise ValueError(problem)
        return text
    return AfterValidator(check)


def model_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a model's name on the board; None when it can."""
    if len(name) > MAX_NAME_CHARS:
        return f"a model's name is at most {MAX_NAME_CHARS} characters, not {len(name)}"
    return shown_text_problem(name, "a model's name")


def _shown_name(name: str) -> str:
    problem = model_name_problem(name)
    if problem:
        raise ValueError(problem)
    return name


def _shown_contact(contact: str) -> str:
    problem = shown_text_problem(contact, "the contact")
    if problem:
        raise ValueError(problem)
    return contact


class SubmittedModel(ModelInfo):
    """:class:`ModelInfo` as a submitter writes it: a name of plain text, and every link
    a web link.

    Links are checked per list item, so an error's location is ``model.links.<i>`` and
    the message points at that item's line of metadata.yaml rather than at ``model:``.
    """

    name: Annotated[str, AfterValidator(_shown_name)]
    parameters: Annotated[int, Number] | None = Field(default=None, ge=1, lt=MAX_PARAMETERS)
    links: list[Annotated[str, AfterValidator(_web_link)]] = Field(default_factory=list)
    licence: Annotated[str, _plain("the licence")] | None = None
    revision: Annotated[str, _plain("the revision")] | None = None


def _not_yes_or_no(value: object) -> object:
    """A number as YAML read it, refused when it is a yes/no (``true``, ``yes``, ``on``),
    which pydantic takes for 1 (and ``false`` for 0): the board showed ``parameters: true``
    as a model of 1 parameter."""
    if isinstance(value, bool):
        raise ValueError("a yes/no value (YAML reads true, yes and on so), not a number: "
                         "write the number")
    return value


# Each number of metadata.yaml: written as one, not as a yes/no.
Number = BeforeValidator(_not_yes_or_no)


ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _as_iso_text(value: object) -> str:
    """A YAML date (``date: 2025-01-31`` reads as one) as its ISO text; anything else but
    text (``date: 2025``, which YAML reads as a number) is refused as no date, in the
    words of :func:`_past_iso_date`, not as pydantic's 'Input should be a valid string'."""
    if isinstance(value, datetime.date):
        return value.isoformat()
    if not isinstance(value, str):
        shown = "a yes/no value" if isinstance(value, bool) else repr(value)
        raise ValueError(f"{shown} is not a date written YYYY-MM-DD")
    return value


def _past_iso_date(text: str) -> str:
    """A calendar date, YYYY-MM-DD, not after today (a day's grace for time zones): pages
    show it as the day the runs were made."""
    try:
        day = datetime.date.fromisoformat(text) if ISO_DATE.fullmatch(text) else None
    except ValueError:
        day = None
    if day is None:
        raise ValueError(f"{text!r} is not a date written YYYY-MM-DD")
    if day > datetime.date.today() + datetime.timedelta(days=1):
        raise ValueError(f"{text} is in the future")
    return text


# metadata.yaml's dates: written YYYY-MM-DD, quoted or not.
Day = Annotated[str, BeforeValidator(_as_iso_text), AfterValidator(_past_iso_date)]


def _task_or_family(key: str) -> str:
    """An efficiency entry's key: a task id, or ``<family>/*`` for the tasks whose ids
    are ``<family>/<last part>`` (how `baselines run` records PI-Indic's T2 pairs)."""
    if key in all_tasks():
        return key
    if key.endswith("/*") and any(t.rsplit("/", 1)[0] == key[:-2] for t in all_tasks()):
        return key
    raise ValueError(f"{key!r} is neither a task id (`leaderboard tasks` lists them) nor "
                     "<family>/* for a family of tasks")


class EfficiencyHardware(BaseModel):
    """The machine an efficiency figure was measured on: cost is only comparable on the
    same hardware, so every figure names it."""

    model_config = ConfigDict(extra="forbid")

    cpu: Annotated[str, Field(min_length=1, max_length=200), _plain("the CPU")]
    cpu_cores: Annotated[int, Number] | None = Field(default=None, ge=1)
    gpu: Annotated[str, Field(max_length=200), _plain("the GPU")] | None = None
    gpu_count: Annotated[int, Number] = Field(default=0, ge=0)
    precision: Annotated[str, Field(min_length=1, max_length=200), _plain("the precision")]


# A non-negative finite number of seconds, bytes, texts or tokens.
Amount = Annotated[float, Field(ge=0, allow_inf_nan=False), Number]


class TaskEfficiency(BaseModel):
    """What running a model over one task (or a family of tasks, ``<family>/*``) cost:
    model time (``encode``: encoding texts, scoring pairs, BM25 indexing) apart from
    ``search`` (scoring and ranking the corpus), throughput, and peak memory."""

    model_config = ConfigDict(extra="forbid")

    encode_seconds: Amount
    search_seconds: Amount
    # Texts the model encoded (documents, queries; query-document pairs for rerankers)
    # and their tokens after truncation; texts a cache answered are not counted.
    texts: Annotated[int, Number] = Field(ge=0)
    tokens: Annotated[int, Number] | None = Field(default=None, ge=0)
    texts_per_second: Amount | None = None
    tokens_per_second: Amount | None = None
    peak_cpu_memory_bytes: Annotated[int, Number] | None = Field(default=None, ge=0)
    peak_gpu_memory_bytes: Annotated[int, Number] | None = Field(default=None, ge=0)
    # The machine's 1-minute load average when the task ended: other work beside the
    # measurement slows it down, and this says how much there was.
    load_average: Amount | None = None
    # What was measured when it was not the whole task (a seeded sample of its texts).
    sample: Annotated[str, Field(max_length=500), _plain("the sample")] | None = None


class Efficiency(BaseModel):
    """``efficiency:`` of metadata.yaml: what the model cost to run, task by task, on the
    hardware named. ``measured`` blocks are written by `leaderboard baselines run` or
    `baselines measure`; a submitter may declare the same block (``declared``), which
    pages show as declared."""

    model_config = ConfigDict(extra="forbid")

    source: Literal["measured", "declared"]
    measured_by: Annotated[str, Field(max_length=2000), _plain("the command")] | None = None
    date: Day | None = None
    hardware: EfficiencyHardware
    # Whether an embedding cache could answer some texts (their time is then not counted).
    embedding_cache: bool | None = None
    tasks: dict[Annotated[str, Field(min_length=1, max_length=200),
                          AfterValidator(_task_or_family)], TaskEfficiency] = Field(min_length=1)


class Metadata(BaseModel):
    """What a submitter tells us about the model and how its runs were produced."""

    model_config = ConfigDict(extra="forbid")

    id: str
    # The GitHub login allowed to change this submission after it is merged (besides the
    # maintainers); without one, only maintainers may change it.
    owner: str | None = None
    model: SubmittedModel
    contact: Annotated[str, Field(max_length=500), AfterValidator(_shown_contact)]
    produced_by: Annotated[str, Field(min_length=1, description="how the runs were produced"),
                           _plain("how the runs were produced", lines=True)]
    date: Day | None = None
    hardware: Annotated[str, _plain("the hardware")] | None = None
    efficiency: Efficiency | None = None

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        problem = id_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("owner")
    @classmethod
    def _owner_shape(cls, value: str | None) -> str | None:
        if value is not None and not GITHUB_LOGIN_RE.fullmatch(value):
            raise ValueError("must be a GitHub login (letters, digits and single hyphens, "
                             "at most 39 characters), without '@'")
        return value


# Half of a UTF-16 surrogate pair, which a YAML \u escape can write.
_SURROGATE = re.compile("[\ud800-\udfff]")


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses an alias (:meth:`compose_node`), a key given twice in one
    mapping (PyYAML keeps the last), a string that is not text (:meth:`construct_scalar`),
    a set (:meth:`construct_yaml_set`), and a value Python cannot make of what YAML reads
    it as (:meth:`construct_object`)."""

    def compose_node(self, parent, index):  # noqa: ANN001, ANN201 - PyYAML's API
        """The next node; an alias (``*u``) is refused at its line. An alias repeats a
        value without writing it again, so a metadata.yaml within its size limit named a
        25,000-character link 9,000 times and `score` wrote a results.json of 225 MB
        (billion laughs); nothing a submitter writes needs one."""
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, f"an alias (*{event.anchor}) is not read in metadata.yaml: "
                "write its value out", event.start_mark)
        return super().compose_node(parent, index)

    def construct_object(self, node, deep=False):  # noqa: ANN001, ANN201 - PyYAML's API
        """``node``'s value; a scalar that YAML types but Python refuses (``2025-02-30``,
        ``0000-01-01``, an offset past 24 hours, an integer of over 4,300 digits) is a
        :class:`yaml.constructor.ConstructorError` at its line, not the ``ValueError``
        that stopped every command with an internal error."""
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as exc:
            written = node.value if isinstance(node, yaml.ScalarNode) else ""
            shown = repr(written if len(written) <= 40 else written[:37] + "...")
            raise yaml.constructor.ConstructorError(
                None, None, f"{shown} cannot be read: {refusal_text(exc)}",
                node.start_mark) from None

    def construct_scalar(self, node):  # noqa: ANN001, ANN201 - PyYAML's API
        """A scalar's value, with each ``\\uD83D\\uDE00`` escape pair made the one
        character it encodes, as JSON reads it (PyYAML keeps the two halves).

        A half alone is no character: UTF-8 cannot encode it, and a name holding one
        passed every check, then stopped `score` with an internal error as it wrote
        results.json. It is refused at its line."""
        value = super().construct_scalar(node)
        if isinstance(value, str) and _SURROGATE.search(value):
            try:
                value = value.encode("utf-16", "surrogatepass").decode("utf-16")
            except UnicodeDecodeError:
                raise yaml.constructor.ConstructorError(
                    None, None, "a \\uD800-\\uDFFF escape without its other half is half "
                    "of a UTF-16 surrogate pair, not a character: write the character "
                    "itself, or its \\U escape", node.start_mark) from None
        return value

    def construct_yaml_set(self, node):  # noqa: ANN001, ANN201 - PyYAML's API
        """``!!set`` is refused at its line: a Python set's order changes from one process
        to the next (string hashing is salted), so links given as one were written into
        results.json in another order by every `score`."""
        raise yaml.constructor.ConstructorError(
            None, None, "a set (!!set) is not read in metadata.yaml: it keeps no order; "
            "write a list", node.start_mark)

    def construct_mapping(self, node, deep=False):  # noqa: ANN001, ANN201 - PyYAML's API
        seen: dict[object, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                # Merged keys may override or be overridden without a trace, which would
                # hide a key given twice: each is written out instead.
                raise yaml.constructor.ConstructorError(
                    None, None, "a merge key (<<) is not read in metadata.yaml: write its "
                    "keys out", key_node.start_mark)
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.setdefault(key, key_node.start_mark.line + 1)
            except TypeError:  # an unhashable key: SafeLoader reports it itself
                continue
            if first != key_node.start_mark.line + 1:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first given on line {first})",
                    key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


_StrictLoader.add_constructor("tag:yaml.org,2002:set", _StrictLoader.construct_yaml_set)


def parse_metadata_yaml(text: str) -> object:
    """YAML as metadata.yaml is read everywhere: safe, no duplicate keys.

    Raises :class:`yaml.YAMLError`, or :class:`RecursionError` for absurd nesting (PyYAML
    composes recursively; 30,000 nested ``[`` exhaust Python's stack)."""
    return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass


def _value_of(text: str, key: str) -> object:
    """The value of a metadata.yaml text's top-level ``key`` as parsed, whatever it is
    (None when the text has none or is unreadable): what the readers below check."""
    try:
        data = parse_metadata_yaml(text)
    except (yaml.YAMLError, RecursionError):
        return None
    return data.get(key) if isinstance(data, dict) else None


def owner_of(text: str) -> str | None:
    """The ``owner`` of a metadata.yaml's text, or None when it has none or is unreadable."""
    owner = _value_of(text, "owner")
    return owner if isinstance(owner, str) and GITHUB_LOGIN_RE.fullmatch(owner) else None


def model_name_of(text: str) -> str | None:
    """The model's ``name`` in a metadata.yaml's text, or None when it has none or is
    unreadable."""
    model = _value_of(text, "model")
    name = model.get("name") if isinstance(model, dict) else None
    return name if isinstance(name, str) else None


def model_of(text: str) -> SubmittedModel | None:
    """The ``model`` of a metadata.yaml's text, or None when it has none, is unreadable or
    is not a valid one."""
    try:
        return SubmittedModel.model_validate(_value_of(text, "model"))
    except ValidationError:
        return None


def yaml_line(text: str, loc: tuple) -> int | None:
    """Best-effort line of a YAML key path, for error messages that point at the key."""
    try:
        node = yaml.compose(text)
    except (yaml.YAMLError, RecursionError):
        return None
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == part:
                    line = key.start_mark.line + 1
                    node = value
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _read_metadata(path: Path, display: str, report: Report) -> tuple[str, dict] | None:
    """``metadata.yaml``'s text and its mapping (None after reporting why it has none)."""
    if path.is_symlink():
        # CI refuses links before reading anything; a local check must not follow one.
        report.add(display, None, f"{NO_LINKS}; commit the file itself")
        return None
    if not os.path.lexists(path):
        report.add(display, None, f"{METADATA_NAME} is missing")
        return None
    if not path.is_file():  # a FIFO would block the reader
        report.add(display, None, f"not a regular file ({file_kind(path)}): {METADATA_NAME} "
                                  "is a text file")
        return None
    with path.open("rb") as stream:  # no more than the limit and a byte
        raw = stream.read(MAX_METADATA_BYTES + 1)
    if len(raw) > MAX_METADATA_BYTES:
        report.add(display, None, f"metadata.yaml is over {size_text(MAX_METADATA_BYTES)}")
        return None
    if utf16 := utf16_text(raw, display):  # without its mark, it decodes as UTF-8 with NULs
        report.add(display, None, utf16)
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        report.add(display, None, "metadata.yaml is not valid UTF-8")
        return None
    try:
        data = parse_metadata_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None)
        if problem and problem.startswith("found character '\\t'"):  # "... cannot start any token"
            problem = ("found a tab, which YAML takes neither to indent nor after a key's "
                       "colon: write spaces instead")
        message = f"invalid YAML: {problem}" if problem else f"invalid YAML: {exc}"
        report.add(display, mark.line + 1 if mark else None, message.splitlines()[0])
        return None
    except RecursionError:
        report.add(display, None, "invalid YAML: nested too deeply (metadata.yaml needs two "
                                  "or three levels)")
        return None
    if not isinstance(data, dict):
        report.add(display, 1, "metadata.yaml must be a mapping of keys to values")
        return None
    return text, data


def _check_folder_name(text: str, data: dict, display: str, folder_name: str,
                       report: Report) -> None:
    given = data.get("id")
    if isinstance(given, str) and given != folder_name:
        report.add(display, yaml_line(text, ("id",)),
                   f"id: {given!r} must equal the folder name {folder_name!r}")


def load_metadata(path: Path, display: str, report: Report, *,
                  folder_name: str | None = None) -> Metadata | None:
    """``metadata.yaml`` read and checked, every problem reported at once with its line
    (None when any but a mismatched id): ``folder_name`` is the name its ``id`` must
    equal, checked whatever else is wrong, so a submitter fixes all in one go."""
    read = _read_metadata(path, display, report)
    if read is None:
        return None
    text, data = read
    metadata = None
    try:
        metadata = Metadata.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            report.add(display, yaml_line(text, err["loc"]), validation_problem(err, Metadata))
    if folder_name is not None:
        _check_folder_name(text, data, display, folder_name, report)
    return metadata


def key_line(path: Path, loc: tuple) -> int | None:
    """The line of a key path (``("model", "name")``) in the metadata.yaml at ``path``,
    for a message about a file :func:`load_metadata` read; None when it cannot be told."""
    read = _read_metadata(path, str(path), Report())
    return None if read is None else yaml_line(read[0], loc)


def check_folder_id(folder: Path, report: Report) -> None:
    """Report ``folder``'s ``metadata.yaml`` whose ``id`` is not the folder's name, as
    :func:`load_metadata` does for `score` and `validate`: the commands that move a
    submission's files by the folder's name (`runs pull`, `push`, `verify`) hold it to
    its id too. A metadata.yaml that cannot be read is not this check's to report (those
    commands read nothing else of it; `validate` says why)."""
    read = _read_metadata(folder / METADATA_NAME, f"{folder.name}/{METADATA_NAME}", Report())
    if read is not None:
        _check_folder_name(*read, f"{folder.name}/{METADATA_NAME}", folder.name, report)
