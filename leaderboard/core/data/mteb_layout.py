"""Reader for the Hugging Face layout of FollowIR and mFollowIR (MTEB's format).

Upstream publishes each collection as dataset configs: ``corpus`` (_id, title, text),
``queries`` (_id, text), ``instruction`` (query-id, instruction), the qrels (query-id,
corpus-id, score; config ``qrels`` in the ``mteb/*`` FollowIR re-uploads, ``default`` in
the ``jhu-clsp/*`` ones), ``top_ranked`` (query-id, corpus-ids: the 1000 candidates) and
``qrel_diff`` (query-id, corpus-ids: docs whose relevance the altered instruction changed).
mFollowIR appends the language to every config name (``corpus-fas``, ``default-fas``,
...), in the multilingual and the cross-lingual repository alike: that is what mteb's own
loader (``mteb/tasks/instruction_reranking/multilingual/m_follow_ir.py``) asks for. Query
ids are ``<id>-og`` (original instruction) and ``<id>-changed`` (altered instruction); the
task's queries are those the qrels judge, as mteb evaluates them (a run lists no other).

Locally a config is parquet (what ``leaderboard data pull`` downloads) or JSON lines files
(handy for fixtures): those of the split mteb reads, as the dataset card beside them
(``<local_dir>/README.md``, kept by the pull with every file at its path upstream)
declares it (`data pull` refuses a repository whose card declares no configs, which
``datasets`` reads as one config "default" of all its files); in a folder without a card
(made by hand), every such file of ``<local_dir>/<config>/``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Collection, Iterator

import numpy as np
import pyarrow.parquet as pq

from leaderboard.core.data.base import (
    DataFiles,
    DataFormatError,
    RoleData,
    TaskData,
    text_lines,
)
from leaderboard.core.data.layout_files import (
    MTEB_ALTERED_SUFFIX,
    MTEB_CONFIGS,
    MTEB_DATA_SUFFIXES,
    MTEB_ORIGINAL_SUFFIX,
    mteb_config_names,
    mteb_split,
    mteb_split_wanted,
    mteb_topic,
)
from leaderboard.core.data.hf_card import CARD_NAME, CardConfigs, matching, read_card_configs
from leaderboard.core.data.notes import DataNote
from leaderboard.core.tasks import Task

CORPUS_ID_COLUMNS = ("_id", "id", "doc_id")


def _local_data_paths(root: Path) -> list[str]:
    """Every file under ``root`` of a kind the reader reads, as a path relative to it
    (with ``/``), leaving out hidden ones (a part starting with "." or "__", such as the
    pull's staging folder), as ``datasets`` leaves them out of a pattern's matches."""
    if not root.is_dir():
        return []
    return sorted(rel for path in root.rglob("*")
                  if (rel := path.relative_to(root).as_posix()).endswith(MTEB_DATA_SUFFIXES)
                  and not any(part.startswith((".", "__")) for part in rel.split("/"))
                  and path.is_file())


def _in_read_order(root: Path, rels: list[str]) -> list[Path]:
    """Files of one config in the order the reader reads them: by kind
    (MTEB_DATA_SUFFIXES, in that order), then by name."""
    return [root / rel for suffix in MTEB_DATA_SUFFIXES for rel in sorted(rels)
            if rel.endswith(suffix)]


def _config_files(task: Task, root: Path, card: CardConfigs, config: str) -> list[Path]:
    """The files the reader reads for ``config`` (one of MTEB_CONFIGS): those of the first
    among its names (:func:`mteb_config_names`) that has any; empty: none has one.

    A config the folder's dataset card (:mod:`leaderboard.core.data.hf_card`) declares is
    the files its patterns match of the one split mteb reads (:func:`mteb_split`): as
    ``datasets`` reads the folder for mteb, another split (a "dev" beside "test") is never
    mixed in, and a config it does not declare is none (a folder ``default/`` beside the
    card's "qrels" is not read, as mteb does not read it). In a folder without a card (one
    copied in without it) a config is every file of its folder ``<config>/``. Either way the files are not named in advance
    (upstream shards a config as it likes), so a file added by hand where the config's
    files are is read with the pulled ones, and :func:`data_files` declares it for `data
    status --verify` to check against the folder's manifest."""
    for name in mteb_config_names(task, config):
        if name in card:
            split = mteb_split(task, config, list(card[name]))
            if split is None:
                raise DataFormatError(
                    f"{root / CARD_NAME}: config {name!r} has the splits "
                    f"{', '.join(map(repr, card[name]))}, and mteb reads "
                    f"{mteb_split_wanted(task, config)}")
            files = _in_read_order(root, matching(_local_data_paths(root), card[name][split]))
        elif card:
            files = []  # not a config of the folder's dataset, as datasets reads it
        else:
            files = [path for suffix in MTEB_DATA_SUFFIXES
                     for path in sorted((root / name).glob(f"*{suffix}"))]
        if files:
            return files
    return []


def _task_configs(task: Task, data_dir: Path) -> dict[str, list[Path]]:
    """Each of MTEB_CONFIGS (in that order) with its files (:func:`_config_files`)."""
    root = Path(data_dir) / task.source.local_dir
    card = read_card_configs(root)
    return {config: _config_files(task, root, card, config) for config in MTEB_CONFIGS}


def _declared(task: Task, data_dir: Path, configs: dict[str, list[Path]]) -> DataFiles:
    root = Path(data_dir) / task.source.local_dir
    return DataFiles(read=tuple(path for files in configs.values() for path in files),
                     missing=tuple(root / mteb_config_names(task, config)[-1]
                                   for config, files in configs.items() if not files))


def data_files(task: Task, data_dir: Path) -> DataFiles:
    """Every file of the task's configs that the reader reads, config by config in
    MTEB_CONFIGS' order; a config none of whose names has a file is missing (as the
    folder of its last name, the one mteb falls back to: FollowIR's "qrels", the name
    the pinned repositories give it)."""
    return _declared(task, data_dir, _task_configs(task, data_dir))


def _configs(task: Task, data_dir: Path) -> dict[str, list[Path]]:
    """Each config's files, as :func:`data_files` declares them; a MissingDataError
    naming every missing config."""
    configs = _task_configs(task, data_dir)
    _declared(task, data_dir, configs).require(task.id, data_dir)
    return configs


# A config's rows as columns: name -> one Python value per row.
Columns = dict[str, list]


def _read_parquet(path: Path, wanted: tuple[str, ...] | None) -> Columns:
    """The columns of ``path`` among ``wanted`` (None, or none of them there: all).

    Through ``ParquetFile`` rather than ``pyarrow.parquet.read_table``, which imports
    pandas to read a file that pandas wrote (its schema carries pandas metadata)."""
    try:
        parquet = pq.ParquetFile(path)
        names = parquet.schema_arrow.names
        present = None if wanted is None else [c for c in wanted if c in names] or None
        return parquet.read(columns=present).to_pydict()
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for bad files
        raise DataFormatError(f"{path}: cannot read parquet: {exc}") from None


def _append(table: Columns, rows: Columns, n_before: int, n_rows: int) -> None:
    """Add ``rows`` (each column ``n_rows`` long) under ``table``'s ``n_before`` rows; a
    column one of them lacks is None there, as a frame's union of columns would be."""
    for name in table.keys() - rows.keys():
        table[name].extend([None] * n_rows)
    for name, values in rows.items():
        table.setdefault(name, [None] * n_before).extend(values)


def _read_config(files: list[Path], columns: tuple[str, ...] | None = None) -> Columns:
    """The files of one config (:func:`_config_files`) as columns of Python values, each
    parquet file read for ``columns`` only.

    A corpus config carries every passage's title and text, hundreds of MB for Robust04;
    validation and scoring need only its ids, so they ask for those columns alone. Read
    with pyarrow alone: pandas would add half a second of import to every process that
    loads a FollowIR task's data (`ci pr-check` loads them with no cache).
    """
    table: Columns = {}
    n = 0
    for path in files:
        if path.suffix == ".parquet":
            rows = _read_parquet(path, columns)
            count = len(next(iter(rows.values()), []))
            _append(table, rows, n, count)
            n += count
            continue
        records = []
        for lineno, line in text_lines(path):
            if line.strip():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataFormatError(f"{path}:{lineno}: invalid JSON: {exc.msg}") from None
                if not isinstance(record, dict):
                    raise DataFormatError(f"{path}:{lineno}: not a JSON object (one row "
                                          "of the config per line)")
                records.append(record)
        names = list(dict.fromkeys(name for record in records for name in record))
        _append(table, {name: [record.get(name) for record in records] for name in names},
                n, len(records))
        n += len(records)
    return table


def _column(table: Columns, names: tuple[str, ...], where: str) -> list:
    for name in names:
        if name in table:
            return table[name]
    raise DataFormatError(f"{where}: none of the columns {names} found (has {list(table)})")


def _grade(value: object, where: str, qid: str, did: str) -> int:
    """A judgment's relevance grade: an integer, or a float with an integer value (a
    parquet column of grades may be float64, as in jhu-clsp's FollowIR uploads). Anything
    else (missing, text, 1.5, NaN) is refused naming the judgment rather than read as some
    other grade or failing inside ``int``."""
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise DataFormatError(f"{where}: the judgment of document {did!r} for query {qid!r} "
                          f"has relevance {value!r}, not an integer grade")


def _texts(values: list) -> list[str]:
    return [value if type(value) is str else str(value) for value in values]


def _id_lists(table: Columns, where: str) -> dict[str, list[str]]:
    """Each query's list of document ids (top_ranked, qrel_diff): one row per query, as
    mteb reads them (``dict(zip(...))``, a repeated query its last row). A query on two
    rows is one if the rows say the same; with other lists it is refused naming the
    config and query: joined, or read as the last, they give another pool or another
    p-MRR than one of the two readings."""
    qids = _texts(_column(table, ("query-id", "query_id", "qid"), where))
    docs = _column(table, ("corpus-ids", "corpus_ids", "doc_ids"), where)
    out: dict[str, list[str]] = {}
    for qid, ids in zip(qids, docs):
        if isinstance(ids, str):  # some exports store the list JSON-encoded
            try:
                ids = json.loads(ids)
            except json.JSONDecodeError:
                raise DataFormatError(f"{where}: query {qid!r} has no list of document ids "
                                      f"(a text that is not JSON: {ids[:40]!r})") from None
        if not isinstance(ids, list):
            raise DataFormatError(f"{where}: query {qid!r} has no list of document ids")
        listed = [str(i) for i in ids]
        if out.setdefault(qid, listed) != listed:
            raise DataFormatError(f"{where}: query {qid!r} is on two rows with other lists "
                                  "of document ids (mteb reads the last)")
    return out


def load(task: Task, data_dir: Path) -> TaskData:
    configs = _configs(task, data_dir)
    where = {config: str(files[0].parent) for config, files in configs.items()}
    corpus = _read_config(configs["corpus"], columns=CORPUS_ID_COLUMNS)
    doc_ids = np.unique(np.array(_texts(_column(corpus, CORPUS_ID_COLUMNS, where["corpus"])),
                                 dtype=str))
    queries = _read_config(configs["queries"])
    q_ids = _texts(_column(queries, ("_id", "id", "query-id"), where["queries"]))
    q_text = dict(zip(q_ids, _texts(_column(queries, ("text",), where["queries"]))))
    instr = _read_config(configs["instruction"])
    instructions = dict(zip(_texts(_column(instr, ("query-id", "query_id", "_id", "id"),
                                           where["instruction"])),
                            _texts(_column(instr, ("instruction", "text"),
                                           where["instruction"]))))
    qrels_table = _read_config(configs["default"])
    qrels_where = where["default"]
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    repeated: list[str] = []  # the query of each row repeating a judgment, grade and all
    for qid, did, score in zip(
            _texts(_column(qrels_table, ("query-id", "query_id"), qrels_where)),
            _texts(_column(qrels_table, ("corpus-id", "corpus_id"), qrels_where)),
            _column(qrels_table, ("score", "relevance"), qrels_where)):
        grade = _grade(score, qrels_where, qid, did)
        if qrels[qid].get(did) == grade:
            repeated.append(qid)
        qrels[qid][did] = grade

    # The queries that count are those with a judgment, as mteb counts them: its loader
    # keeps only the queries the qrels config holds a row of (RetrievalDatasetLoader's
    # ids_to_keep; mFollowIR's, through AbsTaskRetrieval._evaluate_subset), so a query
    # without one is never searched and is in no mean, as trec_eval evaluates no query its
    # qrels lack. A query listed twice (a repeated row, or two files holding it) is one.
    listed = set(q_ids)
    originals = sorted(q for q in listed if q.endswith(MTEB_ORIGINAL_SUFFIX) and q in qrels)
    altereds = sorted(q for q in listed if q.endswith(MTEB_ALTERED_SUFFIX) and q in qrels)
    if not originals or not altereds:
        role = "original (-og)" if not originals else "altered (-changed)"
        raise DataFormatError(
            f"{qrels_where}: no {role} query of {where['queries']} has a judgment: the "
            f"judged ids are {sorted(qrels)[:5]}, the queries' {sorted(listed)[:5]}")

    def text(qid: str) -> str:
        # A model sees the query and its instruction together, as MTEB concatenates them.
        instruction = instructions.get(qid, "")
        return f"{q_text.get(qid, '')} {instruction}".strip()

    def parts(qids: list[str]) -> dict[str, tuple[str, str]]:
        return {q: (q_text.get(q, ""), instructions[q]) for q in qids if instructions.get(q)}

    roles = {
        "original": RoleData(originals, {q: qrels.get(q, {}) for q in originals},
                             {q: text(q) for q in originals}, parts(originals),
                             sorted(q for q in listed if q.endswith(MTEB_ORIGINAL_SUFFIX)
                                    and q not in qrels)),
        "altered": RoleData(altereds, {q: qrels.get(q, {}) for q in altereds},
                            {q: text(q) for q in altereds}, parts(altereds),
                            sorted(q for q in listed if q.endswith(MTEB_ALTERED_SUFFIX)
                                   and q not in qrels)),
    }
    pairs = {q: mteb_topic(q) + MTEB_ORIGINAL_SUFFIX for q in altereds}
    missing_pairs = [q for q, o in pairs.items() if o not in listed]
    if missing_pairs:
        raise DataFormatError(f"{where['queries']}: altered queries without an original: "
                              f"{missing_pairs[:5]}")
    diff_where = where["qrel_diff"]
    diff = _id_lists(_read_config(configs["qrel_diff"]), diff_where)
    # p-MRR compares a topic's two queries: one whose original has no judgment (and so
    # is not searched) has none, as mteb's calculate_pmrr skips a topic it lacks a run of.
    kept = set(originals)
    changed = {q: sorted(set(diff.get(mteb_topic(q), []))) if pairs[q] in kept else []
               for q in altereds}
    # A document listed twice in a topic's list is one changed document (mteb's
    # calculate_pmrr counts it at each listing): the topic, once per extra listing.
    relisted = [mteb_topic(q) for q in altereds if changed[q]
                for _ in range(len(diff[mteb_topic(q)]) - len(changed[q]))]
    if altereds and not any(changed.values()):
        # p-MRR would average over no query and read 0 for every run: the ids are keyed
        # some other way than by topic (mteb's reading), or name other topics.
        raise DataFormatError(
            f"{diff_where}: no query of the task has a changed document: the config's ids "
            f"are {sorted(diff)[:5]}, the topics of the altered queries "
            f"{[mteb_topic(q) for q in altereds[:5]]} (qrel_diff is keyed by topic)")
    top = _id_lists(_read_config(configs["top_ranked"]), where["top_ranked"])
    pools: dict[str, np.ndarray] = {}
    sorted_pools: dict[int, np.ndarray] = {}  # id(list) -> sorted unique; lists live in top
    for qid in originals + altereds:
        # The pool may be keyed by the suffixed id or shared under the base id.
        ids = top.get(qid, top.get(mteb_topic(qid)))
        if ids is None:
            raise DataFormatError(f"{where['top_ranked']}: no candidate pool for query "
                                  f"{qid!r}")
        key = id(ids)  # og and changed often share one list (a pool keyed by base id)
        if key not in sorted_pools:
            sorted_pools[key] = np.sort(np.asarray(list(set(ids)), dtype=str))
        pools[qid] = sorted_pools[key]
    unjudged = [q for role in roles.values() for q in role.unjudged]
    shown = {config: str(files[0].parent.relative_to(data_dir))
             for config, files in configs.items()}
    notes = [note for note in (
        DataNote("unjudged-query", shown["queries"], tuple(unjudged)),
        DataNote("repeated-judgment-row", shown["default"], tuple(repeated)),
        DataNote("repeated-changed-document", shown["qrel_diff"], tuple(relisted)))
        if note.items]
    return TaskData(task_id=task.id, roles=roles, doc_ids=doc_ids, pools=pools, pairs=pairs,
                    changed=changed, notes=tuple(notes))


def iter_corpus(task: Task, data_dir: Path, only: Collection[str] | None = None
                ) -> Iterator[tuple[str, str]]:
    files = _configs(task, Path(data_dir))["corpus"]
    corpus = _read_config(files)
    ids = _texts(_column(corpus, CORPUS_ID_COLUMNS, str(files[0].parent)))
    titles = corpus["title"] if "title" in corpus else [None] * len(ids)
    texts = _column(corpus, ("text",), "corpus")
    # A text is joined from its parts only when it is wanted: the explorer shows 1,300-2,200
    # of a collection's 28,800-46,800 documents (the nine of benchmarks/score_suite.py,
    # sized as FollowIR's and mFollowIR's), whose texts then took a third less CPU.
    for did, title, body in zip(ids, titles, texts):
        if only is None or did in only:
            yield did, f"{_text(title)} {_text(body)}".strip()


def _text(value: object) -> str:
    """A title's or a text's value as text: None (a missing value) is empty."""
    return "" if value is None else value if type(value) is str else str(value)
