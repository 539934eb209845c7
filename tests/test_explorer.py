"""The site's query explorer, as built (no browser): its index, the explanation files it
copies from the folder store or leaves in a remote one, and its hooks in the leaderboard's
pages (verified rows name their submission, columns their tasks; submission pages link
the explorer). tests/test_explorer_browser.py drives it in Chromium.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from fixtures.chromium import serve
from leaderboard.submission.explain_files import explain_dir
from leaderboard.submission.results import read_results
from leaderboard.publish.site.build import build_site
from leaderboard.publish.site.board import board_of
from leaderboard.publish.site.explorer import (
    families,
    family_key,
    family_view,
    heatmap_columns,
    INDEX_FORMAT,
    metric_facts,
    ranked_submissions,
    TASK_FILE_FIELDS,
    task_labels,
    text_directions,
    text_languages,
)
from leaderboard.publish.site.scripts import (
    EXPLORER_PARTS,
    EXPLORER_SCRIPT,
    EXPLORER_SOURCE,
    explorer_script,
)
from leaderboard.benchmarks import all_views
from leaderboard.benchmarks.registry import all_tasks, get_task
from leaderboard.core.measures import measure_of
from leaderboard.publish.standings import TIER_LEADER, Row, SubmissionInfo
from leaderboard.publish.stats.significance.api import REPRODUCIBILITY_THRESHOLD
from leaderboard.submission.results import ModelInfo, Source, SystemResult, TaskScores
from fixtures.synthetic import name_explanations, write_explanations, write_tree

TASKS = ["followir/robust04", "followir/core17", "followtable/wtr", "followtable/wqt",
         "pi-indic-val150/t1/hin", "pi-indic-val150/t1/tam", "pi-indic-val150/t4/hin"]
EXPLAINED = ["sub-0000", "sub-0001"]
REPO = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
RECORDS_JS = EXPLORER_SOURCE / "records.js"


def _tree(root: Path) -> list[str]:
    ids = write_tree(root, 3, n_queries=6, task_ids=TASKS)
    rng = np.random.default_rng(5)
    for sub in EXPLAINED:
        results = read_results(root / "submissions" / sub / "results.json")
        folder = write_explanations(root / "submissions", sub, results, TASKS, rng, changed=3,
                                    positive=2)
        name_explanations(root / "submissions" / sub / "results.json", folder)
    return ids


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("explorer-site")
    ids = _tree(base / "root")
    build_site(base / "root", base / "out", cache_dir=base / "cache", reference_ids=())
    index = json.loads((base / "out" / "explore" / "index.json").read_text(encoding="utf-8"))
    return {"root": base / "root", "out": base / "out", "ids": ids, "index": index}


def test_index_names_every_verified_submission_and_where_its_files_are(built) -> None:
    subs = built["index"]["submissions"]
    assert set(subs) == set(built["ids"])
    for sub_id in built["ids"]:
        entry = subs[sub_id]
        assert entry["page"] == f"submissions/{sub_id}.html"
        assert (built["out"] / entry["page"]).is_file()
        if sub_id in EXPLAINED:
            assert entry["base"] == f"explore/data/{sub_id}/" and entry["explained"] == len(TASKS)
        else:  # per-query scores, but no explanation files: the explorer says so
            assert entry["base"] is None and entry["explained"] == 0
    assert built["index"]["texts"] is None  # synthetic files carry no texts
    assert set(built["index"]["tasks"]) == set(TASKS)
    wtr = built["index"]["tasks"]["followtable/wtr"]
    assert wtr["primary"] == "IRS" and wtr["family"] == "followtable/wtr"


def test_copied_files_are_the_stores_bytes(built) -> None:
    for sub_id in EXPLAINED:
        source = explain_dir(built["root"] / "submissions" / sub_id)
        target = built["out"] / "explore" / "data" / sub_id
        files = sorted(p.relative_to(source) for p in source.rglob("*") if p.is_file())
        assert files and files == sorted(p.relative_to(target) for p in target.rglob("*")
                                         if p.is_file())
        for rel in files:
            assert (target / rel).read_bytes() == (source / rel).read_bytes()
    assert not (built["out"] / "explore" / "data" / "sub-0002").exists()


def test_task_files_list_submissions_best_first(built) -> None:
    for task_id in TASKS:
        doc = json.loads((built["out"] / "explore" / "tasks" / f"{task_id}.json").read_text())
        primary = get_task(task_id).primary_metric
        values = [v for _, v, _ in doc["submissions"]]
        assert values == sorted(values, reverse=True)
        slugs = built["index"]["order"]
        assert set(slugs) == set(built["index"]["submissions"])
        for position, value, has in doc["submissions"]:
            slug = slugs[position]
            results = read_results(built["root"] / "submissions" / slug / "results.json")
            assert value == round(results.systems[0].tasks[task_id].metrics[primary], 6)
            assert has == (slug in EXPLAINED)


def test_which_texts_are_cut_is_the_scorers_word_not_the_pages_guess(built) -> None:
    """The explorer copies each document's first SNIPPET_CHARS characters and showed them
    unmarked in T4's pairs table (59 of 150 Hindi instructions are longer), while its
    dialog wrote "280" again; then the index carried the number, and the page took any
    text that long as cut, a whole one included: the text parts name the texts they cut
    (explain.text_record), the index carries no limit, and no script writes it."""
    from leaderboard.core.explain import SNIPPET_CHARS

    assert "snippet_chars" not in built["index"]
    script = (built["out"] / "assets" / "explorer.js").read_text(encoding="utf-8")
    assert str(SNIPPET_CHARS) not in script and "snippet_chars" not in script
    assert "R.cutDocs(doc)" in script  # the page reads the text part's list


def test_index_says_what_each_metric_is_from_the_catalogue(built) -> None:
    """The script takes labels, help, sign and range from the index (no copies of its
    own), and checks the index's format against the one it reads."""
    index = built["index"]
    assert index["format"] == INDEX_FORMAT
    script = (built["out"] / "assets" / "explorer.js").read_text(encoding="utf-8")
    assert f'var INDEX_FORMAT = "{INDEX_FORMAT}";' in script
    assert "METRIC_HELP" not in script and "index.signed" not in script
    keys = {k for t in TASKS for k in get_task(t).metric_keys()}
    assert set(index["metrics"]) == keys
    for key in keys:
        assert index["metrics"][key] == metric_facts(key)
    assert index["metrics"]["IRS"]["signed"] and index["metrics"]["IRS"]["low"] == -1
    assert index["metrics"]["AUROC"]["label"] == "AUROC part"
    assert index["metrics"]["original/nDCG@10"]["label"] == "nDCG@10 (original)"


def test_index_gives_the_language_of_each_tasks_texts(built) -> None:
    """The card showed a Hindi persona, an Urdu instruction and Persian documents under the
    page's lang="en", with no dir: a screen reader read them in its English voice and Urdu
    ran left to right. Each task in the index names the BCP 47 tag of its queries' and its
    documents' language, from its declaration, and the index each tag's direction: a few
    bytes a task, nothing a text."""
    index = built["index"]
    assert index["tasks"]["pi-indic-val150/t1/hin"]["lang"] == {"query": "hi", "docs": "hi"}
    assert index["tasks"]["pi-indic-val150/t4/hin"]["lang"] == {"query": "hi", "docs": "hi"}
    assert index["tasks"]["followir/core17"]["lang"] == {"query": "en", "docs": "en"}
    assert index["directions"] == {"en": "ltr", "hi": "ltr", "ta": "ltr"}
    registry = all_tasks()
    for task_id, query, docs in (
            ("pi-indic-val150/t2/hin-ory", "hi", "or"),
            ("pi-indic-val150/t3/urd-hin", "ur", "hi"),   # instructions in Urdu to Hindi personas
            ("pi-indic-val150/t4/urd", "ur", "ur"),
            ("mfollowir/fas", "fa", "fa"),                # multilingual: XX-XX
            ("mfollowir-cl/zho", "en", "zh"),             # cross-lingual: English queries
            ("mfollowir-cl/rus", "en", "ru"),
            ("followtable/wtr", "en", "en")):
        assert text_languages(registry[task_id]) == {"query": query, "docs": docs}, task_id
    directions = text_directions(list(registry.values()))
    assert {tag for tag, d in directions.items() if d == "rtl"} == {"fa", "ur"}
    assert set(directions) == {"en", "fa", "ru", "zh", "as", "bn", "gu", "hi", "kn", "ml",
                               "mr", "or", "pa", "ta", "te", "ur"}
    assert max(len(json.dumps(text_languages(t), separators=(",", ":")))
               for t in registry.values()) <= 30


def test_metric_facts_say_which_way_each_measure_is_better() -> None:
    """The list called ascending order "worst first" on every metric; which way is worst,
    and so the order a list starts in, is the catalogue's direction, which reaches the
    script through the index (ECE is better lower; a "neither" share has no worst)."""
    for key in ("p-MRR", "AUROC", "original/nDCG@10", "ECE", "calibrated/ECE", "Positive rate"):
        assert metric_facts(key)["direction"] == measure_of(key).direction
    assert metric_facts("ECE")["direction"] == "lower"
    assert metric_facts("Positive rate")["direction"] == "neither"


def test_the_explorer_script_is_its_parts_in_order(built) -> None:
    """The site's explorer.js is every part of assets/explorer/ (none left out, none
    twice), in the declared order, inside one function."""
    assert sorted(EXPLORER_PARTS) == sorted(p.name for p in EXPLORER_SOURCE.glob("*.js"))
    script = (built["out"] / EXPLORER_SCRIPT).read_text(encoding="utf-8")
    assert script == explorer_script()
    at = [script.index(f"/* ---- explorer/{name} ---- */") for name in EXPLORER_PARTS]
    assert at == sorted(at) and EXPLORER_PARTS[-1] == "main.js"
    explorer = (built["out"] / "explore.html").read_text(encoding="utf-8")
    # Each named with the build's id (?v=...), so the page loads its own build's.
    assert explorer.index('src="assets/format.js?v=') < \
        explorer.index(f'src="{EXPLORER_SCRIPT}?v=')


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_explorer_script_parses(tmp_path: Path) -> None:
    (tmp_path / "explorer.js").write_text(explorer_script(), encoding="utf-8")
    done = subprocess.run([NODE, "--check", str(tmp_path / "explorer.js")], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def _problems(script: str) -> list:
    done = subprocess.run([NODE, "-e", f"const R = require({json.dumps(str(RECORDS_JS))});"
                           + script], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_built_files_pass_the_scripts_own_checks(built) -> None:
    """The index, every task file and the copied explanation files, as the build wrote
    them, pass the checks the script makes before it reads them (records.js), and the
    task files name the fields the script reads."""
    out = built["out"]
    task_files = {tid: json.loads((out / "explore" / "tasks" / f"{tid}.json").read_text())
                  for tid in TASKS}
    for doc in task_files.values():
        assert doc["fields"] == list(TASK_FILE_FIELDS)
    lists = {}
    for sub in EXPLAINED:
        for tid in TASKS:
            folder = out / "explore" / "data" / sub
            lists[f"{sub} {tid}"] = [
                tid, json.loads(gzip.decompress((folder / f"{tid}.queries.json.gz").read_bytes())),
                json.loads(gzip.decompress((folder / f"{tid}.cards.0.json.gz").read_bytes()))]
    found = _problems(
        f"const index = {json.dumps(built['index'])}; const tasks = {json.dumps(task_files)};"
        f"const lists = {json.dumps(lists)};"
        "const out = [R.indexProblem(index)];"
        "for (const [tid, doc] of Object.entries(tasks)) out.push(R.taskFileProblem(doc, tid),"
        "  R.taskEntries(doc, index.order).every(e => e.slug in index.submissions) ? null : tid);"
        "for (const [tid, q, c] of Object.values(lists)) out.push(R.queryListProblem(q, tid),"
        "  R.cardsProblem(c, tid));"
        "process.stdout.write(JSON.stringify(out));")
    assert found == [None] * (1 + 2 * len(TASKS) + 2 * len(lists))


def test_heatmap_columns_are_ranked_in_the_index(built) -> None:
    """Each family lists the submissions with explanation files on its tasks, in the
    tables' order (leaderboard/publish/standings), for the heatmap's columns; all are
    scored on the pinned data, so none is unranked; a family of which the fixture scores
    some tasks only (FollowIR without News21) has no mean for any of them."""
    index = built["index"]
    registry = all_tasks()
    for fid, fam in index["families"].items():
        columns = [index["order"][i] for i in fam["columns"]]
        assert sorted(columns) == sorted(EXPLAINED), fam
        assert fam["unranked"] == [], fam
        every = set(families(list(registry.values()))[fid].tasks) <= set(TASKS)
        assert fam["unscored"] == ([] if every else fam["columns"]), fam


def _wtr_row(sid: str, level: float, off_pin: dict[str, str] | None = None, *,
             tasks: list[str] | None = None, metric: str = "IRS") -> Row:
    """A verified submission scored on FollowTable's WTR (or ``tasks``), query i's
    ``metric`` (IRS) ``level`` plus a little spread; ``off_pin``: the tasks its
    results.json records as scored on another data revision than the registry pins."""
    per_query = {f"q{i}": level + 0.001 * (i % 7) for i in range(60)}
    scores = TaskScores(metrics={metric: sum(per_query.values()) / len(per_query)},
                        per_query={metric: per_query}, n_queries=len(per_query))
    system = SystemResult(system_id=sid, model=ModelInfo(name=sid), provenance="verified",
                          source=Source(kind="scored"),
                          tasks={t: scores for t in tasks or ["followtable/wtr"]})
    info = SubmissionInfo(id=sid, slug=sid, folder=Path("x"),
                          results_path=Path("x/results.json"), produced_by_scorer={},
                          off_pin=off_pin or {})
    return Row(key=sid, system=system, origin=Path("x"), submission=info)


def test_the_heatmap_lists_the_best_verified_first_of_the_rows_tied_with_it() -> None:
    """A rerun 0.05 points (x100) above the best verified, within the reproducibility
    threshold, is tied with it and the tie is the best verified's: WTR's table lists
    a-lead first (lines.leader_first), but the heatmap's columns listed z-rerun first,
    ordered by the untested values. They follow the board's table now."""
    registry = all_tasks()
    rows = [_wtr_row("z-rerun", 0.5 + REPRODUCIBILITY_THRESHOLD / 2), _wtr_row("a-lead", 0.5),
            _wtr_row("m-low", 0.3)]
    board = board_of(rows, [])
    table = board.tables["followtable/wtr"]
    assert table.leader().key == "a-lead"
    assert table.tiers[3]["a-lead"].tier == TIER_LEADER
    assert [ln.key for ln in table.lines] == ["a-lead", "z-rerun", "m-low"]
    fam = families(list(registry.values()))["followtable/wtr"]
    assert [r.key for r in ranked_submissions(fam, registry, rows, board.tables)] == [
        "a-lead", "z-rerun", "m-low"]
    assert family_view(fam, registry, [t.view for t in board.tables.values()]) is table.view
    # Those with explanation files only: the order of the table, without the others.
    assert [r.key for r in ranked_submissions(fam, registry, rows[:2], board.tables)] == [
        "a-lead", "z-rerun"]


def test_the_heatmap_lists_a_submission_scored_on_other_data_unranked_after_the_others(
        ) -> None:
    """After the pin moved, b-old, scored on the old WTR revision 0.4 points above the
    best on the pinned data, is shown unranked after the ranked rows of WTR's table, but
    headed the heatmap, ordered by its value as if comparable. The heatmap's columns
    follow the table: the ranked ones in its order, then the unranked by their own
    figure, each marked in the index with the revision it was scored on."""
    registry = all_tasks()
    old = "deu05232/FollowTable@0123abcd4567"
    rows = [_wtr_row("b-old", 0.9, {"followtable/wtr": old}), _wtr_row("a-lead", 0.5),
            _wtr_row("c-old", 0.4, {"followtable/wtr": old}), _wtr_row("m-low", 0.3)]
    board = board_of(rows, [])
    table = board.tables["followtable/wtr"]
    order = ["a-lead", "m-low", "b-old", "c-old"]
    assert [ln.key for ln in table.lines] == order
    assert table.line_ranks() == {"a-lead": 1, "m-low": 2, "b-old": None, "c-old": None}
    fam = families(list(registry.values()))["followtable/wtr"]
    assert [r.key for r in ranked_submissions(fam, registry, rows, board.tables)] == order
    position = {r.key: i for i, r in enumerate(rows)}
    assert heatmap_columns(fam, registry, rows, board.tables, position) == {
        "columns": [1, 3, 0, 2],
        "unranked": [{"submission": 0, "scored_on": old}, {"submission": 2, "scored_on": old}],
        "unscored": []}
    # A row off the pin for a task the family does not average is ranked in it.
    rows[0] = _wtr_row("b-old", 0.9, {"followtable/wqt": old})
    board = board_of(rows, [])
    assert [r.key for r in ranked_submissions(fam, registry, rows, board.tables)] == [
        "b-old", "a-lead", "m-low", "c-old"]
    assert heatmap_columns(fam, registry, rows, board.tables, position)["unranked"] == [
        {"submission": 2, "scored_on": old}]


def test_the_heatmap_marks_a_submission_without_every_task_of_its_family() -> None:
    """b-part, scored (and explained) on mFollowIR's Persian alone, has no figure in the
    family's mean: its table shows – and gives it no rank, but the heatmap's picker
    numbered it after the ranked ones as if ranked. The index names it among those
    without a figure on every task of the family, which the heatmap marks so."""
    registry = all_tasks()
    tasks = ["mfollowir/fas", "mfollowir/rus", "mfollowir/zho"]
    rows = [_wtr_row("b-part", 0.9, tasks=tasks[:1], metric="p-MRR"),
            _wtr_row("a-all", 0.5, tasks=tasks, metric="p-MRR"),
            _wtr_row("c-all", 0.3, tasks=tasks, metric="p-MRR")]
    board = board_of(rows, [])
    fam = families(list(registry.values()))["mfollowir"]
    position = {r.key: i for i, r in enumerate(rows)}
    assert heatmap_columns(fam, registry, rows, board.tables, position) == {
        "columns": [1, 2, 0], "unranked": [], "unscored": [0]}


def test_every_heatmap_family_follows_a_table_of_the_board() -> None:
    """Each family's heatmap takes its order and tiers from the table whose tested sort
    column is the family's primary metric over its tasks; every family has one."""
    registry = all_tasks()
    views = list(all_views().values())
    for fam in families(list(registry.values())).values():
        assert family_view(fam, registry, views) is not None, fam.id


def test_heatmap_families_group_by_constraint_or_language() -> None:
    registry = all_tasks()
    assert family_key(registry["followtable/wtr"]) == ("followtable/wtr", "constraint")
    assert family_key(registry["followir/core17"]) == ("followir", "collection")
    assert family_key(registry["mfollowir/fas"]) == ("mfollowir", "language")
    fams = families(list(registry.values()))
    t1 = fams["pi-indic-val150/t1/monolingual"]
    assert len(t1.tasks) == 12 and t1.group_by == "language"
    labels = task_labels(t1, registry)
    assert labels["pi-indic-val150/t1/hin"] == "Hindi"
    t2 = fams[family_key(registry["pi-indic-val150/t2/hin-tam"])[0]]
    assert len(t2.tasks) == 11 and all(t.startswith("pi-indic-val150/t2/hin-") for t in t2.tasks)
    assert t2.title.endswith("from Hindi")
    # The start page's lines: a cross-lingual task's families share one, each named by
    # its query language there; others are a line of their own.
    assert (t2.line, t2.part) == (t2.title[:-len(" from Hindi")], "from Hindi")
    assert {f.line for f in fams.values() if f.id.startswith("pi-indic-val150/t2/")} == {t2.line}
    assert (t1.line, t1.part) == (None, None)
    assert task_labels(t2, registry)["pi-indic-val150/t2/hin-tam"] == "to Tamil"
    assert task_labels(fams["followir"], registry)["followir/core17"] == "Core17"


def test_verified_cells_and_submission_pages_lead_to_the_explorer(built) -> None:
    html = (built["out"] / "followtable.html").read_text(encoding="utf-8")
    assert 'data-tasks="followtable/wtr" data-metric="IRS"' in html
    assert re.search(r'data-tasks="followtable/wqt followtable/wtr[^"]*" data-metric="IRS"', html)
    assert 'data-s="sub-0001"' in html
    # Reported rows name no submission.
    rows = re.findall(r"<tr(?: class=\"[^\"]+\")?( data-s=\"[^\"]+\")? data-k=\"([^\"]+)\" "
                      r"data-t=\"[^\"]+\" data-p=\"(\w+)\"", html)
    assert rows and all(bool(s) == (p == "verified") for s, _, p in rows)
    home = (built["out"] / "index.html").read_text(encoding="utf-8")
    assert 'data-s="sub-0000"' in home and 'data-tasks="followtable/wqt followtable/wtr' in home
    page = (built["out"] / "submissions" / "sub-0000.html").read_text(encoding="utf-8")
    assert 'href="../explore.html?s=sub-0000"' in page
    assert (built["out"] / "assets" / "explorer-links.js").is_file()
    assert re.search(r'src="assets/explorer-links\.js\?v=[0-9a-f]+"',
                     (built["out"] / "index.html").read_text())
    explorer = (built["out"] / "explore.html").read_text(encoding="utf-8")
    assert 'data-index="explore/index.json"' in explorer and "FollowTable states no licence" \
        in explorer


def _move_to_store(root: Path, store: Path) -> None:
    """The explanation files as `runs push` leaves them: in the store, beside the runs
    (``submissions/<id>/explain/``), not in the submission folders."""
    for sub_id in EXPLAINED:
        target = store / "submissions" / sub_id / "explain"
        target.parent.mkdir(parents=True)
        explain_dir(root / "submissions" / sub_id).rename(target)


def test_an_https_store_is_linked_not_copied(tmp_path: Path, monkeypatch) -> None:
    """The store setting alone says where the browser fetches the files; the build reads
    each manifest through the store, verified, and copies nothing."""
    _tree(tmp_path / "root")
    _move_to_store(tmp_path / "root", tmp_path / "store")
    server, url = serve(tmp_path / "store")
    try:
        monkeypatch.setenv("LEADERBOARD_RUN_STORE", url + "{+path}")
        monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "store-cache"))
        result = build_site(tmp_path / "root", tmp_path / "out", cache_dir=tmp_path / "cache",
                            reference_ids=())
    finally:
        server.shutdown()
    assert not [w for w in result.warnings if "explorer" in w], result.warnings
    index = json.loads((tmp_path / "out" / "explore" / "index.json").read_text())
    assert not (tmp_path / "out" / "explore" / "data").exists()
    for sub_id, entry in index["submissions"].items():
        if sub_id in EXPLAINED:
            assert entry["base"] == f"{url}submissions/{sub_id}/explain/"
            assert entry["texts"] is None and entry["explained"] == len(TASKS)
        else:
            assert entry["base"] is None
    doc = json.loads((tmp_path / "out" / "explore" / "tasks" / "followtable" / "wtr.json")
                     .read_text())
    assert {index["order"][i] for i, _, has in doc["submissions"] if has} == set(EXPLAINED)


def test_a_store_without_the_files_is_a_warning_naming_the_submission_and_file(
        tmp_path: Path, monkeypatch) -> None:
    _tree(tmp_path / "root")
    _move_to_store(tmp_path / "root", tmp_path / "store")
    (tmp_path / "store" / "submissions" / "sub-0000" / "explain" / "manifest.json").unlink()
    server, url = serve(tmp_path / "store")
    try:
        monkeypatch.setenv("LEADERBOARD_RUN_STORE", url)
        monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "store-cache"))
        result = build_site(tmp_path / "root", tmp_path / "out", cache_dir=tmp_path / "cache",
                            reference_ids=())
    finally:
        server.shutdown()
    (warning,) = [w for w in result.warnings if "explorer" in w]
    assert warning.startswith(f"explorer: sub-0000/explain/manifest.json: {url}submissions/"
                              "sub-0000/explain/manifest.json: not found (HTTP 404)"), warning
    index = json.loads((tmp_path / "out" / "explore" / "index.json").read_text())
    assert index["submissions"]["sub-0000"]["base"] is None
    assert index["submissions"]["sub-0001"]["base"] == f"{url}submissions/sub-0001/explain/"


def test_a_damaged_manifest_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    _tree(tmp_path / "root")
    (explain_dir(tmp_path / "root" / "submissions" / "sub-0000") / "manifest.json").write_text("{")
    result = build_site(tmp_path / "root", tmp_path / "out", cache_dir=tmp_path / "cache",
                        reference_ids=())
    # Refused by its size and SHA-256 (results.json names them) before it is parsed.
    assert any(w.startswith("explorer: sub-0000/explain/manifest.json: the copy in the "
                            "submission's folder") and "it is 1 bytes, not the" in w
               for w in result.warnings), result.warnings
    index = json.loads((tmp_path / "out" / "explore" / "index.json").read_text())
    assert index["submissions"]["sub-0000"]["base"] is None
    assert index["submissions"]["sub-0001"]["base"] == "explore/data/sub-0001/"


def test_a_tampered_explanation_file_is_refused_and_nothing_of_it_copied(tmp_path: Path) -> None:
    _tree(tmp_path / "root")
    card = explain_dir(tmp_path / "root" / "submissions" / "sub-0000") / "followtable" / \
        "wtr.cards.0.json.gz"
    doc = json.loads(gzip.decompress(card.read_bytes()))
    doc["cards"][next(iter(doc["cards"]))]["metrics"] = {"IRS": 0.99}
    card.write_bytes(gzip.compress(json.dumps(doc).encode()))
    result = build_site(tmp_path / "root", tmp_path / "out", cache_dir=tmp_path / "cache",
                        reference_ids=())
    assert any(w.startswith("explorer: sub-0000/explain/followtable/wtr.cards.0.json.gz: the "
                            "copy in the submission's folder") and "does not match" in w
               for w in result.warnings), result.warnings
    assert not (tmp_path / "out" / "explore" / "data" / "sub-0000").exists()
    index = json.loads((tmp_path / "out" / "explore" / "index.json").read_text())
    assert index["submissions"]["sub-0000"]["base"] is None


def test_a_manifest_cannot_copy_files_from_elsewhere(tmp_path: Path) -> None:
    """Even a manifest results.json names (a forged pair) lists only explanation files."""
    _tree(tmp_path / "root")
    folder = tmp_path / "root" / "submissions" / "sub-0000"
    manifest = explain_dir(folder) / "manifest.json"
    doc = json.loads(manifest.read_text())
    doc["files"]["../../../metadata.yaml"] = {"sha256": "0" * 64, "bytes": 1}
    manifest.write_text(json.dumps(doc))
    name_explanations(folder / "results.json", explain_dir(folder))
    result = build_site(tmp_path / "root", tmp_path / "out", cache_dir=tmp_path / "cache",
                        reference_ids=())
    assert any("'../../../metadata.yaml' is not an explanation file" in w for w in result.warnings)
    assert not list((tmp_path / "out").rglob("metadata.yaml"))
    index = json.loads((tmp_path / "out" / "explore" / "index.json").read_text())
    assert index["submissions"]["sub-0000"]["base"] is None
