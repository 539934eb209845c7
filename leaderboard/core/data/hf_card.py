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

import fnmatch
import re
from pathlib import Path
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
    """The paths (relative, with ``/``) that one of ``patterns`` matches, sorted."""
    return sorted(p for p in paths if any(fnmatch.fnmatchcase(p, pat) for pat in patterns))
