"""A Hugging Face dataset card's ``configs`` section: which files make up each split of
each config.

The card (``README.md`` at the top of a dataset repository) opens with YAML metadata whose
``configs`` list gives each config's ``data_files``, in one of the forms ``datasets``
accepts (``datasets.data_files.sanitize_patterns``): a pattern or a list of patterns (the
split ``train``), or a list of ``{split, path}`` items, ``path`` a pattern or a list of
them, matched against paths relative to the repository's top. `leaderboard data pull`
reads the upstream card to choose what to download and keeps each file at its path in the
repository, next to the card, so the local folder is read by the same card, with the same
patterns, as ``datasets.load_dataset`` (and so mteb) reads the repository.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Iterable, Sequence

import yaml

from leaderboard.core.data.base import DataFormatError

CARD_NAME = "README.md"
# The split of data_files given without one (datasets' SANITIZED_DEFAULT_SPLIT).
DEFAULT_SPLIT = "train"

# Config name -> split name -> the patterns of its files.
CardConfigs = dict[str, dict[str, list[str]]]

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(\r?\n|\Z)", re.S)
# The C parser where PyYAML has it: a card's metadata runs to tens of KB (dataset_info),
# which the pure-Python one takes tens of milliseconds to read.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def card_configs(text: str, where: str) -> CardConfigs:
    """The ``configs`` of a dataset card's metadata; empty when it has none. A config
    whose ``data_files`` are in none of the forms ``datasets`` reads, or metadata that is
    not YAML, raises a :class:`DataFormatError` naming ``where`` (and the line)."""
    m = _FRONT_MATTER.match(text)
    if not m:
        return {}
    try:
        meta = yaml.load(m.group(1), Loader=_LOADER) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 2}" if mark is not None else ""  # + the opening '---'
        raise DataFormatError(f"{where}{line}: the dataset card's metadata is not valid "
                              f"YAML: {getattr(exc, 'problem', None) or exc}") from None
    configs = meta.get("configs") if isinstance(meta, dict) else None
    out: CardConfigs = {}
    for config in configs if isinstance(configs, list) else []:
        if not isinstance(config, dict) or "config_name" not in config:
            continue
        name = str(config["config_name"])
        if config.get("data_files") is None:
            continue  # its files are found otherwise (data_dir): none that we read
        splits = _splits(config["data_files"])
        if splits is None:
            raise DataFormatError(
                f"{where}: config {name!r} gives its data_files as "
                f"{config.get('data_files')!r}: neither a pattern, a list of patterns nor "
                "a list of {split, path} items")
        for pattern in (p for patterns in splits.values() for p in patterns):
            try:
                _glob_regex(pattern)
            except ValueError as exc:
                raise DataFormatError(f"{where}: config {name!r}: the pattern {pattern!r} "
                                      f"{exc}, which datasets refuses") from None
        out[name] = splits
    return out


def _splits(files: object) -> dict[str, list[str]] | None:
    """``data_files`` as split -> patterns, as ``datasets`` reads it; None: unreadable."""
    if isinstance(files, str):
        return {DEFAULT_SPLIT: [files]}
    if not isinstance(files, list):
        return None
    if all(isinstance(item, str) for item in files):
        return {DEFAULT_SPLIT: list(files)} if files else None
    out: dict[str, list[str]] = {}
    for item in files:
        if not isinstance(item, dict) or not isinstance(item.get("split"), str):
            return None
        path = item.get("path")
        patterns = [path] if isinstance(path, str) else path
        if (not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns)
                or item["split"] in out):
            return None
        out[item["split"]] = list(patterns)
    return out


def read_card_configs(root: Path) -> CardConfigs:
    """The configs of the dataset card at the top of ``root``; empty without a card."""
    path = Path(root) / CARD_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise DataFormatError(f"{path}: cannot read the dataset card: "
                              f"{getattr(exc, 'strerror', None) or exc}") from None
    return card_configs(text, str(path))


def matching(paths: Iterable[str], patterns: Sequence[str]) -> list[str]:
    """The paths (relative, with ``/``) that one of ``patterns`` matches, sorted, as
    ``datasets`` resolves a card's data_files (``datasets.data_files.resolve_pattern``):
    by fsspec's glob, whose ``*``, ``?`` and ``[...]`` stay within one part of a path and
    whose ``**``, a whole part, spans any number of them (none included), leaving out a
    path with more hidden parts (".x") or special folders ("__x") than the pattern names.
    """
    return sorted(p for p in paths if any(_glob_matches(p, pat) for pat in patterns))


def _glob_matches(path: str, pattern: str) -> bool:
    if not _glob_regex(pattern).match(path):
        return False
    parts, pattern_parts = PurePosixPath(path).parts, PurePosixPath(pattern).parts

    def hidden(names: tuple[str, ...]) -> int:
        return sum(1 for n in names if n.startswith(".") and set(n) != {"."})

    def special(names: tuple[str, ...]) -> int:
        return sum(1 for n in names if n.startswith("__"))

    return (hidden(parts) == hidden(pattern_parts)
            and special(parts[:-1]) == special(pattern_parts[:-1]))


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """fsspec's glob of ``pattern`` as a regular expression (``fsspec.utils.glob_translate``,
    which ``datasets`` resolves data_files by): a ValueError where ``**`` is not a whole
    part of the pattern, as fsspec refuses it."""
    out = []
    parts = pattern.split("/")
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:.+/)?")
            continue
        if "**" in part:
            raise ValueError("has '**' inside a part of a path ('a/**/b' is read, 'a**b' "
                             "is not)")
        if part == "*":
            out.append("[^/]+" if last else "[^/]+/")
            continue
        out.append(_part_regex(part))
        if not last:
            out.append("/")
    try:
        return re.compile(rf"(?s:{''.join(out)})\Z")
    except re.error as exc:  # a set such as [z-a]
        raise ValueError(f"is not a pattern ({exc})") from None


def _part_regex(part: str) -> str:
    """One part of a glob pattern: ``*`` any run of characters but ``/``, ``?`` one of
    them, ``[...]`` a set (``[!...]`` its complement), anything else itself."""
    out: list[str] = []
    i, n = 0, len(part)
    while i < n:
        c = part[i]
        i += 1
        if c == "*":
            if not out or out[-1] != "[^/]*":
                out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + (i < n and part[i] == "!")
            j += j < n and part[j] == "]"
            while j < n and part[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
                continue
            chars = part[i:j].replace("\\", "\\\\")
            chars = re.sub(r"([&~|])", r"\\\1", chars)
            i = j + 1
            if not chars:
                out.append("(?!)")
            elif chars == "!":
                out.append(".")
            elif chars[0] == "!":
                out.append(f"[^{chars[1:]}]")
            else:
                out.append(f"[{chars}]" if chars[0] not in "^[" else f"[\\{chars}]")
        else:
            out.append(re.escape(c))
    return "".join(out)
