"""`leaderboard ci`: the steps of the GitHub Actions workflows, runnable anywhere.

``pr-check`` checks a submission pull request from git objects, ``comment-body`` renders
(and re-validates) the report for the PR comment, and ``score-pending`` writes the
results.json of merged submissions. The logic lives in :mod:`leaderboard.app.ci`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from leaderboard.app.commands import add_data_dir, add_seed, new_command, warn
from leaderboard.app.workflow_log import commands_stopped, in_actions
from leaderboard.core.errors import UsageError
from leaderboard.core.report import SUMMARISE_WARNINGS_AFTER

API_URL = "https://api.github.com"


def _optional_int(text: str) -> int | None:
    """An integer, or nothing for an empty string (a missing Actions expression)."""
    text = text.strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return int(text)


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "ci", "steps of the GitHub Actions workflows (PR check, comment, scoring)",
        "The steps the workflows in .github/workflows/ run, as commands that behave the same "
        "on a laptop. They print their findings also as annotation lines (::error "
        "file=...::, which Actions shows on the files); inside Actions they also write step "
        "outputs ($GITHUB_OUTPUT) and the job summary ($GITHUB_STEP_SUMMARY).",
        "  leaderboard ci pr-check --base origin/main --head HEAD --out pr-report")
    steps = p.add_subparsers(dest="ci_command", metavar="STEP")
    steps.required = True

    check = new_command(
        steps, "pr-check", "check a submission pull request (exit 0 valid or no submission "
        "changed, 1 invalid/refused)",
        "Diff HEAD against its merge base with BASE; refuse a PR that changes anything but one "
        "folder submissions/<id>/; check file kinds and sizes from git objects; validate and "
        "score the submission on the data revision the registry pins; rank each task's "
        "scores among the verified rows committed at BASE and test them against the task's "
        "leader, as the site's tables do (a verified row scored on another data revision "
        "than the registry pins is left out of the comparison, which the comment says). Writes "
        "report.json, comment.md, pr-number and the scored results.json under --out.",
        "  leaderboard ci pr-check --base \"$BASE_SHA\" --head \"$HEAD_SHA\" --pr-number 42 "
        "--out pr-report")
    _add_pull_request_args(check)
    _add_pr_number(check)
    check.add_argument("--out", type=Path, default=None, metavar="DIR",
                       help="report folder to upload as an artifact")
    add_seed(check, "seed of the significance tests (default: 0)")
    check.add_argument("--quiet", action="store_true", help="no progress lines")
    _add_author_args(check)
    _add_branch_args(check)
    add_data_dir(check)
    check.set_defaults(handler=run_pr_check_cmd)

    scope = new_command(
        steps, "pr-scope", "say whether a pull request needs the whole check, benchmark "
        "data included (exit 0)",
        "From the diff pr-check reads (HEAD against its merge base with BASE): the whole "
        "check for a pull request that changes any file under submissions/ or anything the "
        "check depends on (leaderboard/, reference_models/, pyproject.toml, requirements/, "
        ".github/workflows/pr-validate.yml), or whose branch shares no history with BASE; "
        "otherwise pr-check reports it as no submission without reading any data, and the "
        "workflow skips the data pull. Sets the step output full (true or false).",
        "  leaderboard ci pr-scope --base \"$BASE_SHA\" --head \"$HEAD_SHA\"")
    _add_pull_request_args(scope)
    scope.set_defaults(handler=run_pr_scope_cmd)

    failed = new_command(
        steps, "error-report", "write the report of a check that could not run (exit 0)",
        "For a workflow step that failed before or around pr-check (installing, fetching "
        "data): write report.json and comment.md saying the check itself failed, unless "
        "--out already holds a report, so the PR still gets a comment.",
        "  leaderboard ci error-report --base \"$BASE_SHA\" --head \"$HEAD_SHA\" --pr-number 42 "
        "--out pr-report --reason 'fetching the benchmark data failed'")
    _add_pull_request_args(failed)
    _add_pr_number(failed)
    failed.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="the report folder (pr-check's --out), uploaded as an artifact")
    failed.add_argument("--reason", default="a step of the check failed", metavar="TEXT",
                        help="what failed, as the comment says it (default: a step of the "
                             "check failed)")
    failed.set_defaults(handler=run_error_report_cmd)

    body = new_command(
        steps, "comment-body", "render the PR comment from a pr-check report.json",
        "Validate a report.json strictly (it may come from an untrusted artifact) and write "
        "the sticky comment's Markdown. With --expect-pr / --expect-head, refuse a report "
        "about another pull request or commit; with --pr-files, re-check the PR's scope from "
        "the API's file list. Sets the step outputs pr-number and status.",
        "  leaderboard ci comment-body pr-report/report.json --out comment.md")
    body.add_argument("report", type=Path, metavar="REPORT_JSON")
    body.add_argument("--out", type=Path, default=None, metavar="FILE",
                      help="write here instead of standard output")
    body.add_argument("--expect-pr", type=_optional_int, default=None, metavar="N",
                      help="the PR number the triggering run belongs to (empty: unknown)")
    body.add_argument("--expect-head", default=None, metavar="SHA",
                      help="the head commit the triggering run checked")
    body.add_argument("--pr-files", type=Path, default=None, metavar="JSONL",
                      help="the PR's changed files from the GitHub API (one {status, filename} "
                           "object per line): the PR's scope is re-checked from this list")
    _add_author_args(body)
    _add_branch_args(body)
    body.add_argument("--base-dir", type=Path, default=None, metavar="DIR",
                      help="a checkout of the base branch: with --pr-author, a change to a "
                           "submission merged there is refused unless the author is the "
                           "owner: its metadata.yaml names there, or a maintainer")
    body.set_defaults(handler=run_comment_body_cmd)

    pending = new_command(
        steps, "score-pending", "score merged submissions whose results.json is due",
        "Score, in the working tree, every submission with a file changed between "
        "--published (the last commit a publish run pushed; where the clone lacks it, "
        "--before) and --after (results.json included: an edited score is put right), and every "
        "submission whose results.json is missing or stale (scored on another data revision "
        "than the registry pins included). Sets the step outputs scored (comma-separated "
        "ids), kept and failed; exit 1 if any failed. Kept: a submission scored on another "
        "data revision whose runs do not score on the pinned one; its scores stay as they "
        "are, a warning names it, its kept.json records what it was tried with, and the "
        "others are scored all the same. Later runs pass it over (one line says so) until "
        "its files, the pinned revision of one of its tasks or the scorer's version differ "
        "from that record, unless the push changes it or --all is given.",
        "  leaderboard ci score-pending --published refs/tags/published --before \"$BEFORE\" "
        "--after \"$AFTER\"")
    pending.add_argument("--before", default=None, metavar="COMMIT",
                         help="the commit before the push (read when --published is not in "
                              "the clone)")
    pending.add_argument("--published", default=None, metavar="REF",
                         help="the last commit a publish run pushed (publish.yml's push job "
                              "moves a tag to it): the range read starts there, so a push "
                              "whose run was replaced by a later one, or failed, is read too")
    pending.add_argument("--after", default=None, metavar="COMMIT",
                         help="the commit pushed, where the range read ends (without it, "
                              "only missing or stale results are found)")
    pending.add_argument("--repo", type=Path, default=Path("."), metavar="DIR",
                         help="the git repository, scored in its working tree (default: .)")
    pending.add_argument("--all", dest="every", action="store_true",
                         help="score every submission (a run whose push range is unknown "
                              "finds only missing or stale results)")
    pending.add_argument("--quiet", action="store_true", help="no progress lines")
    add_data_dir(pending)
    pending.set_defaults(handler=run_score_pending_cmd)

    ids = new_command(
        steps, "check-model-ids", "check model ids dispatched to baselines.yml (exit 1 if any "
        "is not a declared reference model)",
        "Each id must be a whole-string submission id and a model of "
        "reference_models/models.yaml; baselines.yml runs this before any id reaches a path, "
        "a branch name or `git add`.",
        "  leaderboard ci check-model-ids bm25s all-minilm-l6-v2")
    ids.add_argument("models", nargs="*", metavar="MODEL")
    ids.set_defaults(handler=run_check_model_ids_cmd)

    handover = new_command(
        steps, "check-commit", "check a commit a read-only job hands over before it is "
        "pushed (exit 1 naming each file it may not change)",
        "The jobs that score merged submissions or run models hold no write token: they "
        "hand their commit to the job that pushes, which runs this first. COMMIT must be "
        "one commit whose one parent is BASE, and every file it adds or changes a plain "
        "file. --published: it changes only what publishing writes in submissions merged "
        "at BASE (results.json, per-query.json.gz, explain/, manifest.txt, and the removal "
        "of what the run store keeps); --submission ID: only what a pull request may carry "
        "in submissions/ID/. --recommit REF: after a pass, commit the checked tree on BASE "
        "as the workflow (github-actions[bot], now, a message naming what was checked) and "
        "point REF at it, so that nothing but the tree comes from the job that made COMMIT "
        "(its author, dates and message are that job's).",
        "  leaderboard ci check-commit --base \"$GITHUB_SHA\" --commit refs/heads/publish/scored "
        "--published --recommit refs/heads/publish/checked\n"
        "  leaderboard ci check-commit --base \"$GITHUB_SHA\" --commit "
        "refs/heads/baselines/bm25s-42 --submission bm25s")
    handover.add_argument("--base", required=True, metavar="COMMIT",
                          help="the commit the workflow ran for")
    handover.add_argument("--commit", required=True, metavar="COMMIT",
                          help="the handed-over commit (a branch fetched from the bundle)")
    handover.add_argument("--repo", type=Path, default=Path("."), metavar="DIR",
                          help="the git repository (default: .)")
    handover.add_argument("--recommit", metavar="REF",
                          help="after a pass, write the workflow's own commit of the "
                          "checked tree on BASE to this branch (refs/heads/NAME)")
    scope = handover.add_mutually_exclusive_group(required=True)
    scope.add_argument("--published", action="store_true",
                       help="the publish workflow's commit of scores and run-store records")
    scope.add_argument("--submission", metavar="ID",
                       help="a proposal of the submission folder submissions/ID/")
    handover.set_defaults(handler=run_check_commit_cmd)

    exported = new_command(
        steps, "check-export", "check a dataset export a job without the token hands over "
        "before it is pushed to the Hub (exit 1 naming each problem)",
        "publish.yml exports the results in a job that holds no secret and hands the folder "
        "to the job with the dataset's token, which runs this first, then `leaderboard "
        "export --existing --push`. Every file must be as release.json lists it and nothing "
        "else there; release.json must be the release an export of this checkout writes "
        "for those files (its results files' SHA-256, its commit, name and formats); the "
        "files only those an export writes; README.md the card an export writes. The "
        "Parquet files are checked by SHA-256 only (none is read).",
        "  leaderboard ci check-export \"$RUNNER_TEMP/dataset\"")
    exported.add_argument("folder", type=Path, metavar="DIR", help="the exported folder")
    exported.add_argument("--results-root", type=Path, default=Path("."), metavar="DIR",
                          help="the checkout of the results it must be an export of "
                               "(default: .)")
    exported.set_defaults(handler=run_check_export_cmd)

    audit = new_command(
        steps, "audit-settings", "check the GitHub settings that keep fork PRs off the GPU "
        "runner and the Hub's token on main (exit 1 listing each failed check)",
        "Read, through the GitHub REST API, the settings docs/MAINTAINERS.md requires: the GPU "
        "runners in an organization runner group for this repository only, restricted to "
        "baselines.yml on refs/heads/main, every runner ephemeral, no runner registered on "
        "the repository, approval for fork PRs of all outside collaborators, a read-only "
        "default GITHUB_TOKEN, and HF_TOKEN a secret of the environment run-store, which "
        "deploys from main only, and of no repository or organization. The token comes "
        "from $GH_TOKEN or $GITHUB_TOKEN (an "
        "administrator's: these settings are not readable otherwise).",
        "  leaderboard ci audit-settings --repository owner/followboard   # $GH_TOKEN set\n"
        "  GH_TOKEN=$(gh auth token) leaderboard ci audit-settings --repository owner/followboard")
    audit.add_argument("--repository", default=os.environ.get("GITHUB_REPOSITORY"),
                       metavar="OWNER/REPO", help="default: $GITHUB_REPOSITORY")
    audit.add_argument("--runner-label", default="gpu", metavar="LABEL",
                       help="the label of the GPU runners (default: gpu)")
    audit.add_argument("--workflow", default="baselines.yml", metavar="FILE",
                       help="the one workflow allowed on them (default: baselines.yml)")
    audit.add_argument("--branch", default="main", metavar="BRANCH",
                       help="its branch, the one run-store deploys from (default: main)")
    audit.add_argument("--api-url", default=os.environ.get("GITHUB_API_URL", API_URL),
                       metavar="URL", help="default: $GITHUB_API_URL or " + API_URL)
    audit.set_defaults(handler=run_audit_settings_cmd)


def _add_branch_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-ref", default=None, metavar="BRANCH",
                        help="the branch the pull request is into: a submission pull request "
                             "into another branch than --default-branch is refused. Given "
                             "empty, or missing inside GitHub Actions, the PR is refused")
    parser.add_argument("--default-branch", default=None, metavar="BRANCH",
                        help="the repository's default branch (not given outside GitHub "
                             "Actions: main)")


def _branch_problem(args: argparse.Namespace) -> str | None:
    from leaderboard.app.ci.policy import base_branch_problem

    return base_branch_problem(args.base_ref, args.default_branch, in_actions=in_actions())


def _add_pull_request_args(parser: argparse.ArgumentParser) -> None:
    """The pull request pr-check and pr-scope read: its base and head commits and the
    repository holding them."""
    parser.add_argument("--base", required=True, metavar="COMMIT",
                        help="the base branch commit the pull request targets")
    parser.add_argument("--head", required=True, metavar="COMMIT",
                        help="the pull request's head commit")
    parser.add_argument("--repo", type=Path, default=Path("."), metavar="DIR",
                        help="the git repository (default: .)")


def _add_pr_number(parser: argparse.ArgumentParser) -> None:
    """The pull request's number, which the report records for the comment job."""
    parser.add_argument("--pr-number", type=_optional_int, default=None, metavar="N",
                        help="the pull request's number, which the report records and the "
                             "comment job comments on (empty: unknown)")


def _add_author_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pr-author", default=None, metavar="LOGIN",
                        help="the pull request's author: changes to a merged submission are "
                             "accepted only from its owner or a maintainer. Given empty, or "
                             "missing inside GitHub Actions, the PR is refused")
    parser.add_argument("--author-association", default=None, metavar="ASSOCIATION",
                        help="GitHub's author_association of the author: OWNER (the "
                             "account owning the repository) is a maintainer, as are the "
                             "logins [tool.followboard] maintainers names in the base "
                             "branch's pyproject.toml")


def _progress(quiet: bool):  # noqa: ANN202
    from leaderboard.core.evaluate import stderr_progress

    return (lambda _m: None) if quiet else stderr_progress


def run_pr_check_cmd(args: argparse.Namespace) -> int:
    from leaderboard.app.ci.pr_check import (
        PrCheckRequest,
        emit_annotations,
        print_log,
        require_commits,
        run_pr_check_safely,
        write_outputs,
    )
    from leaderboard.app.ci.policy import author_unknown
    from leaderboard.core.data import resolve_data_dir

    req = PrCheckRequest(repo=args.repo, base=args.base, head=args.head,
                         data_dir=resolve_data_dir(args.data_dir), pr_number=args.pr_number,
                         seed=args.seed, pr_author=(args.pr_author or "").strip() or None,
                         author_association=args.author_association,
                         author_unknown=author_unknown(args.pr_author,
                                                       in_actions=in_actions()),
                         base_branch_problem=_branch_problem(args))
    require_commits(req)  # no checkout, or no such commit: a usage error, not a report
    # Whatever fails inside, a report is written, so the comment job has something to say.
    report = run_pr_check_safely(req, args.out, _progress(args.quiet))
    emit_annotations(report)
    print_log(report)
    write_outputs(report, args.out)
    return 0 if report.status in ("valid", "none") else 1


def run_comment_body_cmd(args: argparse.Namespace) -> int:
    import github_action_utils as gha

    from leaderboard.app.ci.comment import comment_body
    from leaderboard.app.ci.pr_report import read_ci_report

    from leaderboard.core.errors import FollowBoardError

    report = read_ci_report(args.report)
    if args.expect_pr is not None and report.pr_number != args.expect_pr:
        raise FollowBoardError(f"{args.report}: the report is about PR {report.pr_number}, but "
                               f"the run belongs to PR {args.expect_pr}; not commenting")
    if args.expect_head and report.head_sha != args.expect_head.strip().lower():
        raise FollowBoardError(f"{args.report}: the report is about commit {report.head_sha}, "
                               f"but the run checked {args.expect_head}; not commenting")
    if report.pr_number is None:
        raise FollowBoardError(f"{args.report}: the report has no PR number; not commenting")
    if args.pr_files is not None:
        from leaderboard.app.ci.trusted import apply_trusted_scope, merged_ids, read_api_files

        merged = merged_ids(args.base_dir) if args.base_dir is not None else set()
        report = apply_trusted_scope(report, read_api_files(args.pr_files), merged)
    from leaderboard.app.ci.policy import author_unknown

    # A PR that changes no submission (by the API's list, with --pr-files) is neither
    # refused nor judged by its author or branch: it is said to be no submission.
    submission = report.status != "none"
    branch_problem = _branch_problem(args)
    if branch_problem and submission:
        from leaderboard.app.ci.trusted import refuse_for_base_branch

        report = refuse_for_base_branch(report, branch_problem)

    author = (args.pr_author or "").strip()
    if submission and author_unknown(args.pr_author, in_actions=in_actions()):
        from leaderboard.app.ci.trusted import refuse_for_unknown_author

        report = refuse_for_unknown_author(report)
    elif submission and author and args.base_dir is not None:
        from leaderboard.app.ci.trusted import apply_ownership

        report = apply_ownership(report, args.base_dir, author, args.author_association)
    text = comment_body(report)
    if args.out is not None:
        from leaderboard.core.fileio import atomic_write_text

        atomic_write_text(args.out, text)  # never a comment cut short in its place
    else:
        sys.stdout.write(text)
    if os.environ.get("GITHUB_OUTPUT"):
        gha.set_output("pr-number", str(report.pr_number))
        gha.set_output("status", report.status)
    return 0


def run_pr_scope_cmd(args: argparse.Namespace) -> int:
    import github_action_utils as gha

    from leaderboard.app.ci.pr_check import check_scope

    scope = check_scope(args.repo, args.base, args.head)
    with commands_stopped():  # the reason names a file of the pull request
        print(f"{args.command_prog}: " + (
            f"the whole check: {scope.why}" if scope.full else
            f"no benchmark data needed: {scope.why}"))
    if os.environ.get("GITHUB_OUTPUT"):
        gha.set_output("full", "true" if scope.full else "false")
    return 0


def run_error_report_cmd(args: argparse.Namespace) -> int:
    from leaderboard.app.ci.pr_check import (REPORT_NAME, PrCheckRequest, error_report,
                                             write_outputs)

    if (args.out / REPORT_NAME).is_file():
        print(f"error-report: {args.out / REPORT_NAME} exists; keeping it")
        return 0
    req = PrCheckRequest(repo=args.repo, base=args.base, head=args.head, data_dir=Path("."),
                         pr_number=args.pr_number)
    write_outputs(error_report(req, args.reason), args.out)
    print(f"error-report: wrote {args.out / REPORT_NAME}")
    return 0


def run_score_pending_cmd(args: argparse.Namespace) -> int:
    import github_action_utils as gha

    from leaderboard.app.ci.pending import pending_submissions, score_pending
    from leaderboard.core.data import resolve_data_dir

    # First: a repository without submissions/ is refused before anything is said.
    pending = pending_submissions(args.repo, args.before, args.after, every=args.every,
                                  published=args.published)
    ids = pending.ids
    read = pending.read
    if read.why and not args.every:
        # Said where a maintainer sees it: the run cannot find a hand-edited score.
        unseen = ("; a results.json edited with its digests kept in an earlier push (one "
                  "whose publish run was replaced or failed) is not found"
                  if read.start is not None else
                  ": only submissions whose results are missing or stale are scored; a "
                  "results.json edited with its digests kept is not found")
        message = f"{read.why}{unseen} (run with --all to score every submission)"
        warn(args, message)
        if in_actions():
            title = "Last publish unknown" if read.start is not None else "Push range unknown"
            print(f"::warning title={title}::{message}")
    if pending.kept:
        # Said in full by the run that kept them; one line here, no warning.
        print(f"score-pending: not tried again: {', '.join(pending.kept)} (kept on an "
              "earlier data revision by an earlier run, whose kept.json records what it was "
              "tried with; nothing of it changed since)")
    if not ids:
        print("score-pending: no submission needs scoring")
    outcome = score_pending(args.repo, ids, resolve_data_dir(args.data_dir),
                            _progress(args.quiet))
    with commands_stopped():  # findings quote the merged submissions' files
        for line in outcome.report.lines(summarise_after=SUMMARISE_WARNINGS_AFTER):
            print(line)
    for sub_id in outcome.scored:
        print(f"{sub_id}: scored -> submissions/{sub_id}/results.json")
    for sub_id in outcome.kept:
        print(f"{sub_id}: NOT rescored, kept as scored on another data revision (see the "
              "warning above)")
        if in_actions():
            print(f"::warning title=Kept on another data revision::submissions/{sub_id} "
                  "does not score on the pinned data; its results.json is kept as it is")
    for sub_id in outcome.failed:
        print(f"{sub_id}: NOT scored (see the errors above)")
    if os.environ.get("GITHUB_OUTPUT"):
        gha.set_output("scored", ",".join(outcome.scored))
        gha.set_output("kept", ",".join(outcome.kept))
        gha.set_output("failed", ",".join(outcome.failed))
    return 1 if outcome.failed else 0


def run_check_commit_cmd(args: argparse.Namespace) -> int:
    from leaderboard.app.ci.handover import (
        check_branch,
        check_proposal,
        check_published,
        recommit,
    )
    from leaderboard.core.report import plural

    if args.recommit:
        check_branch(args.repo, args.recommit)
    if args.published:
        hand = check_published(args.repo, args.base, args.commit)
        scope = "what publishing writes"
    else:
        hand = check_proposal(args.repo, args.base, args.commit, args.submission)
        scope = f"submissions/{args.submission}/"
    for problem in hand.problems:
        print(f"{args.command_prog}: error: {problem}", file=sys.stderr)
    if hand.problems:
        print(f"{args.command_prog}: {hand.commit} may not be pushed: "
              f"{plural(len(hand.problems), 'problem')}", file=sys.stderr)
        return 1
    # Recommitted before the pass line is printed: a commit it refuses (one that changes
    # nothing) gets the refusal alone, not a pass and then an error.
    made = recommit(args.repo, hand, args.recommit) if args.recommit else None
    print(f"{args.command_prog}: {hand.commit} changes "
          f"{plural(len(hand.changes), 'file')}, only {scope}")
    if made:
        print(f"{args.command_prog}: {args.recommit} is {made}, the checked tree committed "
              "on the base as the workflow")
    return 0


def run_check_export_cmd(args: argparse.Namespace) -> int:
    from leaderboard.core.report import plural
    from leaderboard.publish.export_check import handed_export_problems

    problems = handed_export_problems(args.folder, args.results_root)
    for problem in problems:
        print(f"{args.command_prog}: error: {problem}", file=sys.stderr)
    if problems:
        print(f"{args.command_prog}: {args.folder} may not be pushed: "
              f"{plural(len(problems), 'problem')}", file=sys.stderr)
        return 1
    print(f"{args.command_prog}: {args.folder} is the export of this checkout's results")
    return 0


def run_audit_settings_cmd(args: argparse.Namespace) -> int:
    from leaderboard.app.ci.audit import REPO_SLUG_RE, audit_settings, http_fetch
    from leaderboard.core.report import plural

    if not args.repository:
        raise UsageError("give --repository OWNER/REPO (or set $GITHUB_REPOSITORY)")
    if not REPO_SLUG_RE.fullmatch(args.repository):
        raise UsageError(f"--repository must be OWNER/REPO, not {args.repository!r}")
    token = os.environ.get("GH_TOKEN") or os.environ.get("GITHUB_TOKEN")
    if not token:
        warn(args, "no $GH_TOKEN or $GITHUB_TOKEN; most settings are readable only by an "
                   "administrator")
    audit = audit_settings(args.repository, http_fetch(token, args.api_url),
                           runner_label=args.runner_label, workflow=args.workflow,
                           branch=args.branch)
    for line in audit.lines():
        print(line)
    failed = audit.failed
    print(f"audit-settings: {args.repository}: "
          + ("every check passed" if not failed else f"{plural(len(failed), 'check')} failed"))
    return 0 if not failed else 1


def run_check_model_ids_cmd(args: argparse.Namespace) -> int:
    from leaderboard.app.ci.inputs import check_model_ids
    from reference_models.spec import load_model_specs

    problems = check_model_ids(args.models, load_model_specs())
    for problem in problems:
        print(f"{args.command_prog}: error: {problem}", file=sys.stderr)
    if not problems:
        print(" ".join(args.models))
    return 1 if problems else 0
