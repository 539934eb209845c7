"""Reader for the Hugging Face layout of FollowIR and mFollowIR (MTEB's format).

Upstream publishes each collection as dataset configs: ``corpus`` (_id, title, text),
``queries`` (_id, text), ``instruction`` (query-id, instruction), the qrels (query-id,
corpus-id, score; config ``qrels`` in the ``mteb/*`` FollowIR re-uploads, ``default`` in
the ``jhu-clsp/*`` ones), ``top_ranked`` (query-id, corpus-ids: the 1000 candidates) and
``qrel_diff`` (query-id, corpus-ids: docs whose relevance the altered instruction changed).
mFollowIR appends the language to every config name (``corpus-fas``, ``default-fas``,
...), in the multilingual and the cross-lingual repository alike: that is what mteb's own
loader (``mteb/tasks/instruction_reranking/multilingual/m_follow_ir.py``) asks for. Query
ids are ``<id>-og`` (original instruction) and ``<id>-changed`` (altered instruction).

Locally a config lives in ``<local_dir>/<config>/`` as parquet (what ``leaderboard data
pull`` downloads, next to the dataset card) or JSON lines files (handy for fixtures).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd

from leaderboard.core.data.base import (
    DataFormatError,
    MissingDataError,
    RoleData,
    TaskData,
)
from leaderboard.core.data.layout_files import (
    MTEB_ALTERED_SUFFIX,
    MTEB_CONFIGS,
    MTEB_ORIGINAL_SUFFIX,
    mteb_config_names,
    mteb_topic,
)
from leaderboard.core.tasks import Task

CORPUS_ID_COLUMNS = ("_id", "id", "doc_id")


def config_dir(task: Task, data_dir: Path, config: str) -> Path | None:
    root = data_dir / task.source.local_dir
    for name in mteb_config_names(task, config):
        folder = root / name
        if folder.is_dir() and (any(folder.glob("*.parquet")) or any(folder.glob("*.jsonl"))):
            return folder
    return None


def _parquet_columns(path: Path, wanted: tuple[str, ...] | None) -> list[str] | None:
    """The columns of ``path`` among ``wanted`` (None: all), read from the footer only."""
    if wanted is None:
        return None
    try:
        import pyarrow.parquet as pq

        names = pq.read_schema(path).names
    except Exception:  # noqa: BLE001 - no pyarrow or an odd file: read everything
        return None
    present = [c for c in wanted if c in names]
    return present or None


def _read_config(task: Task, data_dir: Path, config: str,
                 columns: tuple[str, ...] | None = None) -> pd.DataFrame:
    """All files of one config as a frame; parquet files are read for ``columns`` only.

    A corpus config carries every passage's title and text, hundreds of MB for Robust04;
    validation and scoring need only its ids, so they ask for those columns alone.
    """
    folder = config_dir(task, data_dir, config)
    assert folder is not None
    frames = []
    for path in sorted(folder.glob("*.parquet")):
        try:
            frames.append(pd.read_parquet(path, columns=_parquet_columns(path, columns)))
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise DataFormatError(f"{path}: cannot read parquet: {exc}") from None
    for path in sorted(folder.glob("*.jsonl")):
        rows = []
        with path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if line.strip():
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError as exc:
                        raise DataFormatError(f"{path}:{lineno}: invalid JSON: {exc.msg}") from None
        frames.append(pd.DataFrame(rows))
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)


def _column(df: pd.DataFrame, names: tuple[str, ...], where: str) -> pd.Series:
    for name in names:
        if name in df.columns:
            return df[name]
    raise DataFormatError(f"{where}: none of the columns {names} found (has {list(df.columns)})")


def missing_files(task: Task, data_dir: Path) -> list[Path]:
    root = Path(data_dir) / task.source.local_dir
    return [root / mteb_config_names(task, c)[0] for c in MTEB_CONFIGS
            if config_dir(task, Path(data_dir), c) is None]


def check_present(task: Task, data_dir: Path) -> None:
    missing = missing_files(task, data_dir)
    if missing:
        raise MissingDataError(task.id, data_dir, missing)


def _id_lists(df: pd.DataFrame, where: str) -> dict[str, list[str]]:
    qids = _column(df, ("query-id", "query_id", "qid"), where).astype(str)
    docs = _column(df, ("corpus-ids", "corpus_ids", "doc_ids"), where)
    out: dict[str, list[str]] = defaultdict(list)
    for qid, ids in zip(qids, docs):
        if isinstance(ids, str):  # some exports store the list JSON-encoded
            ids = json.loads(ids)
        out[qid].extend(map(str, ids))
    return dict(out)


def load(task: Task, data_dir: Path) -> TaskData:
    check_present(task, data_dir)
    where = str(data_dir / task.source.local_dir)
    corpus = _read_config(task, data_dir, "corpus", columns=CORPUS_ID_COLUMNS)
    doc_ids = np.unique(_column(corpus, CORPUS_ID_COLUMNS, f"{where}/corpus")
                        .astype(str).to_numpy()).astype(str)
    queries = _read_config(task, data_dir, "queries")
    q_ids = _column(queries, ("_id", "id", "query-id"), f"{where}/queries").astype(str)
    q_text = dict(zip(q_ids, _column(queries, ("text",), f"{where}/queries").astype(str)))
    instr = _read_config(task, data_dir, "instruction")
    instructions = dict(zip(_column(instr, ("query-id", "query_id", "_id", "id"),
                                    f"{where}/instruction").astype(str),
                            _column(instr, ("instruction", "text"), f"{where}/instruction")
                            .astype(str)))
    qrels_df = _read_config(task, data_dir, "default")
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for qid, did, score in zip(
            _column(qrels_df, ("query-id", "query_id"), f"{where}/default").astype(str),
            _column(qrels_df, ("corpus-id", "corpus_id"), f"{where}/default").astype(str),
            _column(qrels_df, ("score", "relevance"), f"{where}/default")):
        qrels[qid][did] = int(score)

    originals = sorted(q for q in q_ids if q.endswith(MTEB_ORIGINAL_SUFFIX))
    altereds = sorted(q for q in q_ids if q.endswith(MTEB_ALTERED_SUFFIX))

    def text(qid: str) -> str:
        # A model sees the query and its instruction together, as MTEB concatenates them.
        instruction = instructions.get(qid, "")
        return f"{q_text.get(qid, '')} {instruction}".strip()

    def parts(qids: list[str]) -> dict[str, tuple[str, str]]:
        return {q: (q_text.get(q, ""), instructions[q]) for q in qids if instructions.get(q)}

    roles = {
        "original": RoleData(originals, {q: qrels.get(q, {}) for q in originals},
                             {q: text(q) for q in originals}, parts(originals)),
        "altered": RoleData(altereds, {q: qrels.get(q, {}) for q in altereds},
                            {q: text(q) for q in altereds}, parts(altereds)),
    }
    pairs = {q: mteb_topic(q) + MTEB_ORIGINAL_SUFFIX for q in altereds}
    missing_pairs = [q for q, o in pairs.items() if o not in set(originals)]
    if missing_pairs:
        raise DataFormatError(f"{where}/queries: altered queries without an original: "
                              f"{missing_pairs[:5]}")
    diff = _id_lists(_read_config(task, data_dir, "qrel_diff"), f"{where}/qrel_diff")
    changed = {q: sorted(set(diff.get(mteb_topic(q), []))) for q in altereds}
    top = _id_lists(_read_config(task, data_dir, "top_ranked"), f"{where}/top_ranked")
    pools: dict[str, np.ndarray] = {}
    sorted_pools: dict[int, np.ndarray] = {}  # id(list) -> sorted unique; lists live in top
    for qid in originals + altereds:
        # The pool may be keyed by the suffixed id or shared under the base id.
        ids = top.get(qid, top.get(mteb_topic(qid)))
        if ids is None:
            raise DataFormatError(f"{where}/top_ranked: no candidate pool for query {qid!r}")
        key = id(ids)  # og and changed often share one list (a pool keyed by base id)
        if key not in sorted_pools:
            sorted_pools[key] = np.sort(np.asarray(list(set(ids)), dtype=str))
        pools[qid] = sorted_pools[key]
    return TaskData(task_id=task.id, roles=roles, doc_ids=doc_ids, pools=pools, pairs=pairs,
                    changed=changed)


def iter_corpus(task: Task, data_dir: Path) -> Iterator[tuple[str, str]]:
    corpus = _read_config(task, data_dir, "corpus")
    # Whole columns to lists: iterating a pandas column of strings element by element
    # took seconds for FollowIR's 300k documents.
    ids = _column(corpus, CORPUS_ID_COLUMNS, "corpus").astype(str).tolist()
    titles = corpus["title"].fillna("").astype(str).tolist() if "title" in corpus \
        else [""] * len(ids)
    texts = corpus["text"].fillna("").astype(str).tolist()
    for did, title, body in zip(ids, titles, texts):
        yield did, f"{title} {body}".strip()
