"""Checks of a dataset folder that `leaderboard export` wrote, for what pushes it: each
file as its release.json lists it (:func:`checked_export`), only files an export writes
(:func:`export_layout_problems`), and, for the job that holds the Hub's token and exports
nothing itself, the release this checkout would write (:func:`handed_export_problems`);
and what a push removes from the Hub's copy (:func:`stale_files`).

Kept apart from :mod:`leaderboard.publish.export`, which writes the folder: these read
one, and the job that pushes parses no Parquet.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from leaderboard.benchmarks import declared
from leaderboard.core.checksums import sha256_file
from leaderboard.core.report import plural
from leaderboard.publish.export import (
    CARD_FILE,
    EXPORT_FORMAT,
    EXPORT_MARKER,
    PER_QUERY,
    SCHEMAS_DIR,
    TABLES,
    ExportError,
    card_tables,
    dataset_card,
    per_query_path,
    schema_path,
    table_path,
)
from leaderboard.publish.output_folder import recover_folder
from leaderboard.publish.release import RELEASE_FILE, release_manifest
from leaderboard.publish.site.repository import repository_ref


def export_folders() -> tuple[str, ...]:
    """The folders of the dataset an export writes and owns whole: its tables' and the
    schemas'."""
    return tuple(sorted({t.folder for t in TABLES} | {SCHEMAS_DIR}))


def stale_files(held: Iterable[str], exported: Iterable[str]) -> list[str]:
    """Of the files a dataset repository ``held``, those in the export's folders that this
    export does not have: an earlier release's, which a push of this one removes (a
    per-query file of a benchmark no verified submission covers any more would otherwise
    stay in the card's ``per-query/*.parquet``). Files outside them (the Hub's
    ``.gitattributes``, a page the maintainers added) are not the export's and stay."""
    keep = set(exported)
    prefixes = tuple(f"{folder}/" for folder in export_folders())
    return sorted(p for p in held if p.startswith(prefixes) and p not in keep)


def checked_export(out_dir: Path) -> tuple[dict, list[str]]:
    """An earlier export's release manifest and files, each data file checked against the
    SHA-256 the manifest lists (and nothing else in the folder): what a push uploads.
    Raises :class:`ExportError` naming the first problem and how many more there are
    (:func:`export_file_problems` lists each)."""
    release = listed_release(out_dir)
    problems, files = export_file_problems(out_dir, release)
    if problems:
        more = len(problems) - 1
        raise ExportError(problems[0] + (f" (and {plural(more, 'more problem')}; "
                                         "`leaderboard ci check-export` lists each)"
                                         if more else ""))
    return release, files


def listed_release(out_dir: Path) -> dict:
    """The release manifest of a folder `leaderboard export` wrote. An export killed
    between its folder's two renames (where the system could not swap the folders in one
    step) left it aside: it is put back first, as the next export would
    (:func:`~leaderboard.publish.output_folder.recover_folder`)."""
    recover_folder(out_dir)
    manifest_path = out_dir / RELEASE_FILE
    if not (out_dir / EXPORT_MARKER).is_file() or not manifest_path.is_file():
        raise ExportError(f"{out_dir}: not a folder written by `leaderboard export`")
    try:
        release = json.loads(manifest_path.read_text(encoding="utf-8"))
        dict(release["export"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ExportError(f"{manifest_path}: not a release manifest ({exc})") from None
    return release


def export_file_problems(out_dir: Path, release: dict) -> tuple[list[str], list[str]]:
    """(each problem, the files a push uploads) of an export's folder against its
    release manifest: a file it does not list, a listed file missing, a listed file whose
    SHA-256 differs. Every one is named, so one look at the folder finds them all."""
    listed = dict(release["export"])
    extra = {CARD_FILE, RELEASE_FILE, EXPORT_MARKER}
    present = {p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*")
               if p.is_file() or p.is_symlink()}
    problems = [f"{out_dir}: {path} is not in its release.json"
                for path in sorted(present - set(listed) - extra)]
    for path, sha in sorted(listed.items()):
        file = out_dir / path
        if file.is_symlink() or not file.is_file():
            problems.append(f"{file}: listed in release.json but missing")
        elif sha256_file(file) != sha:
            problems.append(f"{file}: differs from the SHA-256 release.json lists")
    return problems, sorted(present - {EXPORT_MARKER})


def export_layout_problems(exported: Iterable[str]) -> list[str]:
    """What in a release's list of export files (paths in the folder) no export writes:
    a path that is no table's file nor schema (a per-query file is named by a benchmark),
    a table without its schema, a schema without its table."""
    benchmarks = {b.id for b in declared()} | {"other"}
    allowed = ({table_path(t) for t in TABLES if t.config != PER_QUERY}
               | {per_query_path(b) for b in benchmarks} | {schema_path(t) for t in TABLES})
    present = set(exported)
    problems = [f"{path}: no file `leaderboard export` writes"
                for path in sorted(present - allowed)]
    with_files = {table.config for table, _ in card_tables(present & allowed)}
    for table in TABLES:
        if (schema_path(table) in present) != (table.config in with_files):
            problems.append(f"{schema_path(table)}: " + (
                "missing, where the export holds the table" if table.config in with_files
                else "the schema of a table the export does not hold"))
    return problems


def handed_export_problems(out_dir: Path, results_root: Path) -> list[str]:
    """What is wrong with an export of ``results_root`` that another job wrote, for the
    job that pushes it (its own checkout's code; it exports nothing and parses no Parquet).

    Beyond :func:`export_file_problems` (each file as its release.json lists it, nothing
    unlisted), the release must be the one this checkout writes for those files: its
    results the SHA-256 of the results files here, its commit this checkout's, its name,
    version, repository and formats those an export here gives; the files only those an
    export writes (:func:`export_layout_problems`); and the card the one an export here
    writes for them. What the Parquet files and schemas hold is the exporting job's
    (checked by digest only)."""
    release = listed_release(out_dir)
    problems, _ = export_file_problems(out_dir, release)
    listed = dict(release["export"])
    problems += [f"{out_dir}: {p}" for p in export_layout_problems(listed)]
    expected = release_manifest(results_root, repository_ref(results_root), export=listed,
                                export_format=EXPORT_FORMAT)
    for key in sorted(set(expected) | set(release)):
        want, have = expected.get(key), release.get(key)
        if want == have:
            continue
        if isinstance(want, dict) and isinstance(have, dict):
            differ = sorted(k for k in set(want) | set(have) if want.get(k) != have.get(k))
            detail = (f"{key}: {plural(len(differ), 'entry')} "
                      f"{'differs' if len(differ) == 1 else 'differ'} from this checkout's "
                      f"(first: {differ[0]})")
        else:
            detail = (f"{key} is {json.dumps(have)[:100]}; an export of this checkout gives "
                      f"{json.dumps(want)[:100]}")
        problems.append(f"{out_dir / RELEASE_FILE}: {detail}")
    card = out_dir / CARD_FILE
    if not card.is_file() or card.is_symlink():
        problems.append(f"{card}: missing")
    elif not problems and card.read_bytes() != \
            dataset_card(card_tables(listed), release).encode("utf-8"):
        problems.append(f"{card}: not the card an export of this release writes")
    return problems
