"""The upstream files of each layout, named without the readers' heavy imports.

The benchmark declarations build their download lists from these names and the readers
read the same files; the readers import numpy, pyarrow and rapidfuzz, which a declaration
(imported by every command, a one-task `leaderboard eval` included) must not pull in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Collection

from leaderboard.core.languages import language_names
from leaderboard.core.tasks import Task

# FollowTable's BEIR export, per dataset folder: the corpus, the query + instruction
# pairs, the topic-only queries, and the judgments of each.
FOLLOWTABLE_FILES = ("corpus.jsonl", "queries.jsonl", "only_queries.jsonl",
                     "qrels/test.tsv", "qrels/for_only_query_test.tsv")


def followtable_topic(query_id: str) -> str:
    """The topic of a FollowTable query id: "<q>" itself (the topic-only query, the
    original run's id) or the "<q>" of "<q>_<i>" (its i-th query-instruction pair)."""
    topic, sep, _ = query_id.rpartition("_")
    return topic if sep else query_id


# FollowIR's and mFollowIR's query ids in MTEB's layout: "<topic>-og" with the original
# instruction, "<topic>-changed" with the altered one.
MTEB_ORIGINAL_SUFFIX = "-og"
MTEB_ALTERED_SUFFIX = "-changed"


def mteb_topic(query_id: str) -> str:
    """The topic of a FollowIR/mFollowIR query id: without its instruction's suffix."""
    for suffix in (MTEB_ORIGINAL_SUFFIX, MTEB_ALTERED_SUFFIX):
        if query_id.endswith(suffix):
            return query_id[: -len(suffix)]
    return query_id

# PI-Indic-Align: one validation CSV per language, named by the language's English name.
PI_INDIC_LANGUAGES = language_names(("asm", "ben", "guj", "hin", "kan", "mal", "mar", "ory",
                                     "pan", "tam", "tel", "urd"))
PI_INDIC_VALIDATION_DIR = "annotator_validation/language-wise-validation"
PI_INDIC_FILE_TEMPLATE = "Nirdesha_Multilingual_Validation - {name}.csv"
PI_INDIC_LOCAL_DIR = "pi-indic"
# A PI-Indic item's id: a persona "p<id>", an instruction "i<id>", <id> its validated pair.
PERSONA_PREFIX = "p"
INSTRUCTION_PREFIX = "i"


def pi_indic_pair(query_id: str) -> str:
    """The validated pair a PI-Indic query id belongs to: "12" of persona "p12" (T1/T2's
    queries) and of instruction "i12" (T3's), so that one pair is one id whichever side
    asks; an id of another form is its own."""
    side, number = query_id[:1], query_id[1:]
    if side in (PERSONA_PREFIX, INSTRUCTION_PREFIX) and number.isdigit():
        return number
    return query_id


def pi_indic_file(lang: str) -> str:
    """One language's validation CSV, relative to the repository (and local) root."""
    return f"{PI_INDIC_VALIDATION_DIR}/{PI_INDIC_FILE_TEMPLATE.format(name=PI_INDIC_LANGUAGES[lang])}"


def pi_indic_path(data_dir: Path, local_dir: str, lang: str) -> Path:
    return Path(data_dir) / local_dir / pi_indic_file(lang)


# mteb's Hugging Face layout (FollowIR, mFollowIR): one folder of parquet (or jsonl) files
# per config. The qrels config is "qrels" in the mteb/* re-uploads of FollowIR and
# "default" in the jhu-clsp/* repositories (mFollowIR: "default-fas"). Which one is read
# is mteb's choice: FollowIR's RetrievalDatasetLoader._load_qrels takes "default" where
# the repository has it and "qrels" only otherwise (so "default" wins where both are);
# mFollowIR's load_data reads "default-<lang>" alone. Likewise FollowIR's queries are a
# config "query" where the repository has one (RetrievalDatasetLoader._load_queries), else
# "queries".
MTEB_CONFIGS = ("corpus", "queries", "instruction", "default", "top_ranked", "qrel_diff")
# The kinds of file the reader reads in a config's folder, in the order it reads them
# (`data pull` downloads a config's files of these kinds).
MTEB_DATA_SUFFIXES = (".parquet", ".jsonl")
MTEB_QRELS_NAMES = ("default", "qrels")
MFOLLOWIR_QRELS_NAMES = ("default",)
MTEB_QUERIES_NAMES = ("query", "queries")


def mteb_config_names(task: Task, config: str) -> tuple[str, ...]:
    """The upstream config names that hold ``config`` (one of MTEB_CONFIGS) for ``task``,
    in mteb's order of preference: the first a repository has is the one read.

    mFollowIR suffixes the language (``corpus-fas``); FollowIR has no language part.
    """
    lang = task.params.get("language")
    if config == "default":
        bases = MFOLLOWIR_QRELS_NAMES if lang else MTEB_QRELS_NAMES
    elif config == "queries" and not lang:
        bases = MTEB_QUERIES_NAMES
    else:
        bases = (config,)
    return tuple(f"{base}-{lang}" if lang else base for base in bases)


# The split mteb reads of each config (mteb 2.26). FollowIR's tasks load through
# ``RetrievalDatasetLoader(split="test")``, whose ``_get_split`` takes a config's "test"
# split, else its only one (several without "test" are an error), and read qrel_diff's
# split "qrel_diff" by name (``task_specific_scores``). mFollowIR's ``load_data`` reads
# each config's split by name: the qrels' "test", every other one's its config's base
# name ("corpus" of ``corpus-fas``), and ignores any other split.
MTEB_EVAL_SPLIT = "test"
MTEB_NAMED_SPLITS = {"qrel_diff": "qrel_diff"}
MFOLLOWIR_SPLITS = {"corpus": "corpus", "queries": "queries", "instruction": "instruction",
                    "default": MTEB_EVAL_SPLIT, "top_ranked": "top_ranked",
                    "qrel_diff": "qrel_diff"}


def mteb_split(task: Task, config: str, splits: Collection[str]) -> str | None:
    """The split of ``config`` (one of MTEB_CONFIGS) that mteb reads for ``task``, among
    the config's ``splits``; None when mteb would find none to read."""
    if task.params.get("language"):
        wanted = MFOLLOWIR_SPLITS[config]
    elif config in MTEB_NAMED_SPLITS:
        wanted = MTEB_NAMED_SPLITS[config]
    elif MTEB_EVAL_SPLIT in splits or len(splits) != 1:
        wanted = MTEB_EVAL_SPLIT
    else:
        (wanted,) = splits
    return wanted if wanted in splits else None


def mteb_split_wanted(task: Task, config: str) -> str:
    """What :func:`mteb_split` looks for, in words (for a message saying it is absent)."""
    if task.params.get("language"):
        return repr(MFOLLOWIR_SPLITS[config])
    if config in MTEB_NAMED_SPLITS:
        return repr(MTEB_NAMED_SPLITS[config])
    return f"{MTEB_EVAL_SPLIT!r}, or the config's only split"
