"""`leaderboard baselines`: run reference models and score their submissions.

``baselines list`` shows the models declared in ``reference_models/models.yaml``;
``baselines run MODEL`` ranks every selected task with that model, writes
``<out>/<model-id>/`` (metadata.yaml + runs/<task>/<role>.trec.gz) and scores it like any
submission. Under ``torchrun`` each rank encodes its share and rank 0 writes and scores.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from leaderboard.commands import add_data_dir, new_command
from leaderboard.data import resolve_data_dir

DEFAULT_OUT = Path("submissions")


def register(sub: "argparse._SubParsersAction") -> None:
    parser = new_command(
        sub, "baselines", "run reference models (BM25, bi-encoders, rerankers) as submissions",
        "Reference models are declared in reference_models/models.yaml with pinned weights, "
        "prompts and pooling. `run` writes a complete submission folder and scores it.",
        "  leaderboard baselines list\n"
        "  leaderboard baselines run bm25s --tasks 'followtable/*' 'pi-indic-val150/t[123]/*'\n"
        "  torchrun --nproc-per-node 4 -m leaderboard.cli baselines run multilingual-e5-large")
    actions = parser.add_subparsers(dest="baselines_command", metavar="ACTION")
    actions.required = True

    listing = actions.add_parser("list", help="list the declared reference models",
                                 description="List the reference models of models.yaml.")
    listing.set_defaults(handler=run_list)

    run = actions.add_parser(
        "run", help="run a model over tasks and write + score its submission",
        description="Rank every query of the selected tasks with MODEL, write "
                    "<out>/<model-id>/ and score it. Encodings are cached under "
                    "$FOLLOWBOARD_CACHE (default .cache/followboard), so an interrupted run "
                    "resumes where it stopped.")
    run.add_argument("model", metavar="MODEL", help="model id (see `leaderboard baselines list`)")
    run.add_argument("--tasks", nargs="+", metavar="PATTERN", default=None,
                     help="task ids or fnmatch patterns, e.g. 'followtable/*' "
                          "(default: every retrieval task)")
    run.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"),
                     help="where neural models run (default: GPU when available)")
    run.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                     help="parent folder of the submission (default: submissions/)")
    run.add_argument("--batch-size", type=_positive_int, default=None, metavar="N",
                     help="texts per forward pass (default: the model's own)")
    run.add_argument("--chunk-size", type=_positive_int, default=None, metavar="N",
                     help="texts per cache chunk, the unit of resumption (default 2048)")
    run.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                     help="cache root (default: $FOLLOWBOARD_CACHE or .cache/followboard)")
    run.add_argument("--no-cache", action="store_true",
                     help="encode everything in memory (single process only)")
    run.add_argument("--no-score", action="store_true", help="write the runs, do not score")
    run.add_argument("--quiet", action="store_true", help="no progress bars")
    add_data_dir(run)
    run.set_defaults(handler=run_model)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def run_list(args: argparse.Namespace) -> int:
    from reference_models.spec import load_model_specs

    specs = load_model_specs()
    width = max(len(s.id) for s in specs.values())
    for spec in specs.values():
        source = spec.package_distribution or spec.hf_id or "bm25s"
        revision = spec.revision or ("package" if spec.package else
                                     "-" if spec.family == "bm25" else "not pinned")
        print(f"{spec.id:<{width}}  {spec.family:<16}  {source} @ {revision}")
    return 0


def reproducible_command(args: argparse.Namespace) -> str:
    """The command line as metadata.produced_by records it (options that change output)."""
    parts = ["leaderboard", "baselines", "run", args.model]
    if args.tasks:
        parts += ["--tasks", *args.tasks]
    parts += ["--device", args.device]
    if args.batch_size:
        parts += ["--batch-size", str(args.batch_size)]
    return shlex.join(parts)


def run_model(args: argparse.Namespace) -> int:
    from reference_models.distributed import shard_from_env
    from reference_models.baseline_run import RunOptions, run_reference_model
    from reference_models.spec import get_model_spec

    spec = get_model_spec(args.model)
    data_dir = resolve_data_dir(args.data_dir)
    options = RunOptions(device=args.device, batch_size=args.batch_size,
                         cache_root=args.cache_dir, use_cache=not args.no_cache,
                         progress=not args.quiet, command=reproducible_command(args))
    if args.chunk_size:
        options.chunk_size = args.chunk_size
    shard = shard_from_env()
    summary = run_reference_model(spec, args.tasks, data_dir, args.out, options, shard)
    if summary.folder is None:
        return 0  # another rank writes and scores
    print(f"{spec.id}: wrote {len(summary.files)} run file(s), {summary.lines} lines, "
          f"for {len(summary.tasks)} task(s) -> {summary.folder}")
    if args.no_score:
        return 0
    return score(summary.folder, data_dir, quiet=args.quiet)


def score(folder: Path, data_dir: Path, quiet: bool = False) -> int:
    """Score the written submission exactly as `leaderboard score` would."""
    try:
        from leaderboard.scoring import score_submission  # type: ignore[attr-defined]
    except ImportError:
        from leaderboard.pipeline import score_submission
    progress = (lambda _m: None) if quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    outcome = score_submission(folder, data_dir, progress)
    for line in outcome.report.lines():
        print(line)
    if outcome.results_path is None:
        print(f"{folder.name}: not scored ({len(outcome.report.errors)} error(s))")
        return 1
    print(f"{folder.name}: scored {len(outcome.scores)} task(s) -> {outcome.results_path}")
    return 0
