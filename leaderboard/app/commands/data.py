"""`leaderboard data`: fetch benchmark data from upstream (pull) and check it (status)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from leaderboard.app.commands import add_data_dir, new_command
from leaderboard.core.config import data_dir_option
from leaderboard.core.data import (DataFormatError, data_files, load_task_data,
                                   resolve_data_dir)
from leaderboard.core.data.notes import DataNote, notes_brief, source_note_lines
from leaderboard.core.data.revision import MANIFEST_NAME, data_revision, read_manifest
from leaderboard.core.errors import UsageError
from leaderboard.app.datapull.common import (
    BENCHMARKS,
    BENCHMARK_ALIASES,
    PullError,
    SourceTasks,
)
from leaderboard.app.datapull.github import HttpClient
from leaderboard.app.datapull.pull import (
    DataPuller,
    manifest_problems,
    narrow_to_tasks,
    pull_sources,
    select_sources,
    source_missing_files,
    source_unlisted_files,
    unlisted_problem,
)

BENCHMARK_HELP = ", ".join(("all", *BENCHMARKS, *BENCHMARK_ALIASES)) + ", or a task id"


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "data", "download benchmark data from upstream, or check what is present",
        "`pull` downloads each benchmark's files from its upstream (GitHub or the Hugging "
        "Face Hub) at the revision pinned in the registry, verifies every file's checksum, "
        "and writes files atomically. `status` says, per data source, whether the files "
        "the readers need are present.",
        "  leaderboard data pull followtable pi-indic --data-dir data\n"
        "  leaderboard data status --data-dir data")
    actions = p.add_subparsers(dest="data_action", metavar="ACTION")
    actions.required = True

    pull = new_command(
        actions, "pull", "download benchmark files at their pinned revisions",
        "Download the files of each BENCHMARK into DIR/<source folder>/, verifying size and "
        "git blob SHA-1 (or LFS SHA-256) of every file. A failed or interrupted pull keeps "
        "no partial file; a re-run skips files already present and verified. FollowIR and "
        "mFollowIR come from the Hugging Face Hub through huggingface_hub (so $HF_HUB_OFFLINE "
        "stops them). Base URLs: $LEADERBOARD_GITHUB_API, $LEADERBOARD_GITHUB_RAW, "
        "$LEADERBOARD_HF_ENDPOINT (else $HF_ENDPOINT); tokens: $GITHUB_TOKEN, $HF_TOKEN.",
        "  leaderboard data pull all --data-dir data")
    pull.add_argument("benchmarks", nargs="+", metavar="BENCHMARK", help=BENCHMARK_HELP)
    add_data_dir(pull)
    pull.add_argument("--force", action="store_true",
                      help="download every file again, even when present and verified")
    pull.add_argument("--jobs", type=int, default=8, metavar="N",
                      help="parallel downloads (default 8)")
    pull.add_argument("--retries", type=int, default=3, metavar="N",
                      help="retries per request after a network error (default 3)")
    pull.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                      help="network timeout per request (default 60)")
    pull.add_argument("--quiet", action="store_true", help="no progress output")
    pull.set_defaults(handler=run_pull)

    status = new_command(
        actions, "status", "say which benchmark data is present",
        "For each data source: whether every file its tasks' readers need is present and "
        "reads, which revision it was pulled at, what is missing, and the notes of what "
        "the readers did with upstream's files (a typo ignored, a row left out, a repeated "
        "judgment read once). Exit 1 if anything is missing or cannot be read, was pulled "
        "at another revision than the registry pins, or (with --verify) differs from what "
        "was pulled: a pulled file changed, or a file the readers would read that the pull "
        "did not write.",
        "  leaderboard data status followtable --verify")
    status.add_argument("benchmarks", nargs="*", metavar="BENCHMARK",
                        help=f"{BENCHMARK_HELP} (default: all)")
    add_data_dir(status)
    status.add_argument("--verify", action="store_true",
                        help=f"also re-hash pulled files against {MANIFEST_NAME}, and "
                             "name any file the readers would read that it does not list")
    status.add_argument("--tasks", nargs="*", default=None, metavar="PATTERN",
                        help="also list each task and whether its data is ready; "
                             "PATTERNs (task ids or wildcard patterns such as "
                             "'followtable/*', as runs add and baselines run take them) "
                             "narrow the check to the tasks they match (default: every task)")
    status.set_defaults(handler=run_status)


def _select(names: list[str]) -> list[SourceTasks]:
    try:
        return select_sources(names)
    except PullError as exc:  # a name that selects nothing
        raise UsageError(str(exc)) from None


def run_pull(args: argparse.Namespace) -> int:
    out_of_limits = [f"--{name} must be {limit}, not {value}" for name, value, limit, ok in (
        ("jobs", args.jobs, "at least 1", args.jobs >= 1),
        ("retries", args.retries, "at least 0", args.retries >= 0),
        ("timeout", args.timeout, "more than 0", args.timeout > 0)) if not ok]
    if out_of_limits:
        raise UsageError("; ".join(out_of_limits))
    items = _select(args.benchmarks)
    data_dir = resolve_data_dir(args.data_dir)
    puller = DataPuller(data_dir, http=HttpClient(timeout=args.timeout, retries=args.retries),
                        jobs=args.jobs, force=args.force, progress=not args.quiet)
    log = (lambda _m: None) if args.quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    outcome = pull_sources(items, data_dir, puller=puller, log=log)
    for result in outcome.results:
        print(result.summary())
    for message in outcome.errors:
        print(f"{args.command_prog}: error: {message}", file=sys.stderr)
    return 0 if outcome.ok else 1


def _tasks_label(item: SourceTasks) -> str:
    ids = [t.id for t in item.tasks]
    return ", ".join(ids) if len(ids) <= 3 else f"{item.benchmark} ({len(ids)} tasks)"


def run_status(args: argparse.Namespace) -> int:
    items = _select(args.benchmarks or ["all"])
    if args.tasks:
        try:
            items = narrow_to_tasks(items, args.tasks, args.benchmarks)
        except PullError as exc:  # as a BENCHMARK that names nothing
            raise UsageError(str(exc)) from None
    data_dir = resolve_data_dir(args.data_dir)
    print(f"data directory: {data_dir}")
    incomplete: list[str] = []
    foreign: list[str] = []  # sources whose folder holds files the manifest does not list
    for item in items:
        source = item.source
        root = data_dir / source.local_dir
        missing = source_missing_files(item, data_dir)
        task_ready = {task.id: not data_files(task, data_dir).missing for task in item.tasks}
        notes, unreadable = _read_tasks(item, data_dir, task_ready)
        ready = sum(task_ready.values())
        manifest = read_manifest(root)
        revision = data_revision(source, data_dir)
        if revision.other:
            provenance = f"{revision.mismatch()}: pull it again"
        elif manifest is None:
            # Said where it matters: files are missing, or --verify has nothing to re-hash
            # them against. Complete data copied in by hand needs no remark.
            provenance = ("" if not missing and not args.verify else
                          "not pulled by `leaderboard data pull` (no manifest"
                          + ("; nothing to verify against)" if args.verify else ")"))
        else:
            provenance = f"pulled {source.pinned}"
        state = "present" if not missing else ("partial" if ready else "missing")
        print(f"{state:8} {source.local_dir:26} {_tasks_label(item)}")
        print(f"{'':8} {ready}/{len(item.tasks)} tasks ready"
              + (f"; {provenance}" if provenance else ""))
        for path in missing[:5]:
            print(f"{'':8}   missing: {_display(path, data_dir)}")
        if len(missing) > 5:
            print(f"{'':8}   ... and {len(missing) - 5} more")
        for problem in unreadable[:5]:
            print(f"{'':8}   cannot read: {problem}")
        if len(unreadable) > 5:
            print(f"{'':8}   ... and {len(unreadable) - 5} more that cannot be read")
        for line in source_note_lines(notes):
            print(f"{'':8}   note: {line}")
        problems = manifest_problems(root, manifest) if args.verify and manifest else []
        for problem in problems[:5]:
            print(f"{'':8}   changed: {problem}")
        if len(problems) > 5:
            print(f"{'':8}   ... and {len(problems) - 5} more changed")
        unlisted = (source_unlisted_files(item, data_dir, manifest)
                    if args.verify and manifest else [])
        for path in unlisted[:5]:
            print(f"{'':8}   not pulled: {unlisted_problem(path, manifest)}")
        if len(unlisted) > 5:
            print(f"{'':8}   ... and {len(unlisted) - 5} more not pulled")
        if args.tasks is not None:
            for task in item.tasks:
                state = ("ready" if task_ready[task.id] else
                         "missing" if data_files(task, data_dir).missing else "invalid")
                brief = f" ({notes_brief(notes[task.id])})" if notes.get(task.id) else ""
                print(f"{'':8}   {state:8}{task.id}{brief}")
        if missing or problems or revision.other or unreadable:
            incomplete.append(item.benchmark)
        if unlisted:
            foreign.append(item.benchmark)
    if incomplete:
        names = " ".join(dict.fromkeys(incomplete))
        print(f"\nFetch what is missing, changed or of another revision with `leaderboard data "
              f"pull {names}{data_dir_option(data_dir)}` (needs network access), or copy the "
              "files in by hand.")
    if foreign:
        print("\nMove each file marked 'not pulled' out of its folder: the readers read it "
              "with the pulled files, and `leaderboard data pull` leaves alone what it did "
              "not write.")
    return 1 if incomplete or foreign else 0


def _read_tasks(item: SourceTasks, data_dir: Path, ready: dict[str, bool]
                ) -> tuple[dict[str, tuple[DataNote, ...]], list[str]]:
    """The notes of each task of ``item`` whose files are all there, read as `eval` reads
    them (through the task-data cache), and what keeps any from being read; a task that
    cannot be read is marked not ready in ``ready``."""
    notes: dict[str, tuple[DataNote, ...]] = {}
    unreadable: list[str] = []
    for task in item.tasks:
        if not ready[task.id]:
            continue
        try:
            notes[task.id] = load_task_data(task, data_dir).notes
        except DataFormatError as exc:
            ready[task.id] = False
            unreadable.append(f"{task.id}: {exc}")
    return notes, unreadable


def _display(path: Path, data_dir: Path) -> str:
    try:
        return str(path.relative_to(data_dir))
    except ValueError:
        return str(path)
