"""`leaderboard check-run`: validate one run file against a task."""

from __future__ import annotations

import argparse
from pathlib import Path

from leaderboard.app.commands import ROLE_FILES, add_data_dir, new_command
from leaderboard.core.data import load_task_data, resolve_data_dir
from leaderboard.core.errors import UsageError
from leaderboard.core.fileio import size_text
from leaderboard.core.evaluate import validate_file
from leaderboard.benchmarks.registry import UnknownTaskError, get_task
from leaderboard.core.report import Report, plural
from leaderboard.core.tasks import MAX_DOCS_PER_QUERY, corpus_depth_text
from leaderboard.submission import layout


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "check-run", "validate one run file (exit 0 valid, 1 invalid, 2 usage)",
        "Check a TREC run file (`qid Q0 docid rank score tag`, gzip allowed) against a task: "
        "format, queries, documents, duplicates, depth. Errors print as FILE:LINE: message; "
        "warnings do not fail the check. Nothing is modified.\n\n"
        "Depth rule: a document left out of a run counts as ranked below everything it "
        "lists, which would let a shallow run inflate p-MRR, so every query must be ranked "
        "in full. FollowIR and mFollowIR rerank a fixed pool: each query's run ranks every "
        "document of its `top_ranked` candidates and nothing else. FollowTable and PI-Indic "
        f"T1-T3 rank a corpus: each query lists {corpus_depth_text()} documents (PI-Indic: "
        f"all 150 candidates). At most {MAX_DOCS_PER_QUERY} documents per query.",
        "  leaderboard check-run followtable/wtr runs/altered.trec.gz --role altered")
    p.add_argument("task", metavar="TASK", help="task id, e.g. followtable/wtr (see `leaderboard tasks`)")
    p.add_argument("run_file", metavar="RUN_FILE", type=Path)
    p.add_argument("--role", choices=list(ROLE_FILES),
                   help="which run of the task this is (inferred for single-run tasks, from "
                        "'original'/'altered' in the file name, else from the query ids: "
                        "'<id>-og' or '<id>-changed' for FollowIR and mFollowIR, '<q>' or "
                        "'<q>_<i>' for FollowTable)")
    add_data_dir(p)
    p.set_defaults(handler=run)


def infer_role(task_roles: tuple[str, ...], path: Path, given: str | None) -> str | None:
    if given:
        return given if given in task_roles else None
    if len(task_roles) == 1:
        return task_roles[0]
    name = path.name.lower()
    matches = [r for r in task_roles if r in name]
    return matches[0] if len(matches) == 1 else None


def run(args: argparse.Namespace) -> int:
    try:
        task = get_task(args.task)
    except UnknownTaskError as exc:
        raise UsageError(str(exc)) from None
    role = infer_role(task.roles, args.run_file, args.role)
    if role is None and args.role is not None:
        raise UsageError(f"--role must be one of {', '.join(task.roles)} for {task.id}")
    data = load_task_data(task, resolve_data_dir(args.data_dir))
    if role is None:
        from leaderboard.core.runs.validation import read_run, role_of_queries, unknown_role

        read = read_run(args.run_file, str(args.run_file))
        if read.run is None:
            # A file that cannot be read or parsed is invalid whatever its role: its own
            # findings, not a request for --role.
            return verdict(args.run_file, task.id, "run", read.report)
        role = role_of_queries(data, read.run.q_names)
        if role is None:
            raise UsageError(f"cannot tell which run of {task.id} this is from its name or "
                             f"its query ids: {unknown_role(data, read.run)}; give --role "
                             f"({', '.join(task.roles)})")
        print(f"{args.run_file}: --role {role} (inferred from the query ids)")
    report, _ = validate_file(task, data, role, args.run_file, str(args.run_file))
    warn_over_submission_limit(args.run_file, report)
    return verdict(args.run_file, task.id, role_file(role), report)


def warn_over_submission_limit(path: Path, report: Report) -> None:
    """A warning when the file is larger than a submission may hold one (a plain-text
    run of a large task): the run itself is valid, but `score` and CI refuse it as it is."""
    try:
        size = path.stat().st_size
    except OSError:
        return  # reading it already said why
    if size > layout.MAX_FILE_BYTES:
        report.add(str(path), None, f"{size_text(size)}, over the "
                                    f"{size_text(layout.MAX_FILE_BYTES)} limit per file of a "
                                    "submission, which `leaderboard score` and CI refuse: "
                                    "gzip it", "warning")


def verdict(path: Path, task_id: str, what: str, report: Report) -> int:
    """Print the findings and the one-line verdict; the exit status."""
    for line in report.lines():
        print(line)
    print(f"{path}: {'valid' if report.ok else 'INVALID'} {task_id} {what} "
          f"({plural(report.n_errors, 'error')}, {plural(report.n_warnings, 'warning')})")
    return 0 if report.ok else 1


def role_file(role: str) -> str:
    """What a file of ``role`` is called: "original run", "run", "predictions file"."""
    return {"run": "run", "predictions": "predictions file"}.get(role, f"{role} run")

