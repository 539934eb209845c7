"""What a reader says of a file it refused: a version newer than it reads
(:func:`newer_version`), and one of pydantic's validation errors in the file's own terms
(:func:`validation_problem`: the key's path, what was given, what the field takes and how
to write it), never the names pydantic gives of Python's types.

Every reader of the project's JSON and YAML files words its refusals here, so a
submitter's metadata.yaml, a results file and a registry are told of the same mistake in
the same words.
"""

from __future__ import annotations

import re
import types
from collections.abc import Mapping, Sequence
from typing import Annotated, Literal, Union, get_args, get_origin

# A version as a file names it: a number (``"schema_version": 2``) or a format's name and
# number (``"format": "followboard-texts/2"``), at most nine digits (int() of a longer run
# of digits may be refused, and no version gets there).
_FORMAT_VERSION = re.compile(r"(.{1,80})/([0-9]{1,9})")
# The fields that hold a file's version in the models this project reads.
_VERSION_FIELDS = ("schema_version", "format")


def _version_parts(value: object) -> tuple[str, int] | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return "", value
    match = _FORMAT_VERSION.fullmatch(value) if isinstance(value, str) else None
    return (match[1], int(match[2])) if match else None


def newer_version(field: str, found: object, known: Sequence[object]) -> str | None:
    """What a reader says of a file whose ``field`` holds ``found``, a version newer than
    every one of ``known`` (those this version of FollowBoard reads, of the same format),
    as the end of a sentence naming the file: the version it found, those it reads, and to
    update FollowBoard. None when ``found`` is no such version (an older one, another
    format, not a version at all: the reader's own message says what is wrong)."""
    parts = _version_parts(found)
    same = [k[1] for k in map(_version_parts, known) if k is not None and parts is not None
            and k[0] == parts[0]]
    if parts is None or not same or parts[1] <= max(same):
        return None
    reads = " or ".join(str(k) for k in known)
    return (f"{field} {found} is newer than this version of FollowBoard reads ({field} "
            f"{reads}); update FollowBoard to read it")


def newer_model_version(errors: Sequence[Mapping[str, object]], model: type) -> str | None:
    """:func:`newer_version` of a file that pydantic refused as ``model`` (``errors``: its
    validation errors), whose version field (``schema_version`` or ``format``, a
    ``Literal`` of the versions it reads) holds a newer one; None otherwise. A file of a
    newer version may break the model anywhere (a key it added, one it renamed), so this
    is said before any of that."""
    fields = getattr(model, "model_fields", {})
    for error in errors:
        loc = error.get("loc")
        if error.get("type") == "literal_error" and isinstance(loc, tuple) and len(loc) == 1 \
                and loc[0] in _VERSION_FIELDS and loc[0] in fields:
            known = [value for kind in _unwrapped([fields[loc[0]].annotation])
                     if get_origin(kind) is Literal for value in get_args(kind)]
            return newer_version(str(loc[0]), error.get("input"), known)
    return None


def _key_text(part: object) -> str:
    """A part of a field's path as a message names it: a key is the file's own text, so
    one that is not plain printable text (a line end, a terminal escape, a text-direction
    mark) is quoted with its escapes. A message stays one line: a log line starting
    ``::`` is a command to a GitHub runner, and an escape sequence one to a terminal."""
    text = str(part)
    return text if text.isprintable() else repr(text)


def validation_problem(error: Mapping[str, object], model: type) -> str:
    """One of pydantic's validation errors as a reader sees it: the dotted path to the
    field ("(top level)" for the document itself), then pydantic's message, without the
    names it gives of Python (a check of ours raised as its own text, not "Value error,
    ...", a value of the wrong kind as what it is and what its field takes, with how to
    write one, not "Input should be a valid string" or "... instance of SubmittedModel":
    :func:`_given_where_expected`); for a key
    the file's model does not have, the known key of its mapping closest to it
    ("model.license: ...; did you mean 'licence'?")."""
    loc = error["loc"]
    where = ".".join(_key_text(p) for p in loc) if isinstance(loc, (list, tuple)) else ""
    message = error["msg"]
    context = error.get("ctx")
    expected = _EXPECTED.get(str(error.get("type")))
    if error.get("type") == "value_error" and isinstance(context, Mapping):
        message = str(context.get("error", message))
    elif expected is not None:
        if expected == "a mapping of keys" and isinstance(loc, (list, tuple)):
            keys = _keys_at(model, loc)
            if keys:
                expected += f" ({', '.join(keys[:4])}{', ...' if len(keys) > 4 else ''})"
        message = _given_where_expected(error.get("input"), expected)
    hint = ""
    if error.get("type") == "extra_forbidden" and where and isinstance(loc[-1], str):
        import difflib  # here: only a refused file's message needs it

        close = difflib.get_close_matches(loc[-1], _keys_at(model, loc[:-1]), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"{where or '(top level)'}: {message}{hint}"


# What a field of each of pydantic's type errors takes, as a file's reader words it: not
# "Input should be a valid string", "... valid integer, unable to parse string as an
# integer" or "... valid dictionary", Python's names, which say nothing of what to write.
_EXPECTED = {
    "string_type": "text",
    "int_type": "a whole number", "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number", "float_parsing": "a number",
    "bool_type": "true or false", "bool_parsing": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping of keys", "model_type": "a mapping of keys",
}
# How to write a value of each kind where the file has another.
_HOW_TO_WRITE = {
    "a whole number": "write it in digits alone (no units, commas or spaces)",
    "a number": "write it in digits alone (no units, commas or spaces)",
    "true or false": "write true or false",
    "a list": "write its items in [ ], separated by commas",
}


def _given_where_expected(value: object, expected: str) -> str:
    """A value of the wrong kind, named by what it is (``'7B' is text``, ``2.0 is a
    number``, ``a list is given``), then what its field takes and how to write one."""
    how = _HOW_TO_WRITE.get(expected.split(" (")[0])
    if value is None:
        given = "no value is given"
    elif isinstance(value, bool):
        given = "a yes/no value (true, yes or on) is given"
        how = "put the text in quotes" if expected == "text" else how
    elif isinstance(value, (int, float)):
        given = f"{value!r} is a number"
        if expected == "a whole number":  # 1.5
            given, how = f"{value!r} is a number with a fraction", None
        elif expected == "text":  # YAML reads `revision: 1234` as a number
            how = "put it in quotes"
    elif isinstance(value, str):
        given = f"{value if len(value) <= 40 else value[:37] + '...'!r} is text"
    elif isinstance(value, Mapping):
        given = "a mapping of keys is given"
    elif isinstance(value, (list, tuple)):
        given = "a list is given"
    else:
        given = "another kind of value is given"
    return f"{given}, where {expected} is expected{': ' + how if how else ''}"


def _keys_at(model: type, loc: Sequence[object]) -> list[str]:
    """The keys the mapping at ``loc``, a location in a file of the pydantic ``model``,
    may hold (its models' fields, by the name a file writes, in the order they are
    declared); empty where the path leads to no model."""
    kinds: list[object] = [model]
    for part in loc:
        following: list[object] = []
        for kind in _unwrapped(kinds):
            fields = getattr(kind, "model_fields", None)
            origin = get_origin(kind)
            if isinstance(fields, dict):
                following += [f.annotation for name, f in fields.items()
                              if part in (name, f.alias)]
            elif origin is dict:
                following.append(get_args(kind)[1])
            elif origin in (list, tuple, set, frozenset) and isinstance(part, int):
                following += [a for a in get_args(kind) if a is not Ellipsis]
        kinds = following
    return list(dict.fromkeys(f.alias or name for kind in _unwrapped(kinds)
                              for name, f in (getattr(kind, "model_fields", None) or {}).items()))


def _unwrapped(kinds: list[object]) -> list[object]:
    """The types of ``kinds`` with ``Annotated`` and unions (``X | None``) taken apart."""
    out: list[object] = []
    for kind in kinds:
        origin = get_origin(kind)
        if origin is Annotated:
            out += _unwrapped([get_args(kind)[0]])
        elif origin is Union or origin is types.UnionType:
            out += _unwrapped(list(get_args(kind)))
        else:
            out.append(kind)
    return out
