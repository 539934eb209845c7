"""The measure catalogue (leaderboard/core/measures.py): every metric key the tasks and
views use resolves in it, every surface takes what a measure is from it, and a measure
declared there (a toy one, below) reaches those surfaces without any other file changing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from markupsafe import escape

from leaderboard.benchmarks.registry import all_tasks
from leaderboard.benchmarks.views import View, column
from leaderboard.core import measures
from leaderboard.core.display import score_text
from leaderboard.core.measures import MEASURES, Measure, UnknownMeasureError, parse
from leaderboard.core.metrics.ranking import RankedRun, evaluate, parse_metric
from leaderboard.core.report import Report
from leaderboard.core.runs.parsing import parse_run
from leaderboard.publish.site.explorer import Family, metric_facts, ranked_submissions
from leaderboard.publish.site.render import environment
from leaderboard.benchmarks import all_views
from leaderboard.publish.standings import fill_view, order_systems, task_column
from leaderboard.publish.standings.references import reference_value
from leaderboard.publish.standings.rows import Row
from leaderboard.submission.results import ModelInfo, Source, SystemResult, TaskScores

REPO = Path(__file__).resolve().parents[1]


def test_every_metric_key_the_tasks_and_views_use_is_in_the_catalogue() -> None:
    keys = set()
    for task in all_tasks().values():
        keys.update(task.metric_keys())
        keys.update((task.primary_metric, task.headline_metric))
    for view in all_views().values():
        for col in view.columns:
            keys.update(metric for _, metric in col.parts)
    assert len(keys) >= 20
    for key in sorted(keys):
        parse(key)  # raises UnknownMeasureError naming the key


def test_the_catalogue_holds_the_facts_the_surfaces_had() -> None:
    """What the nine places that each declared part of a measure said, now said once."""
    assert {m.name for m in MEASURES.values() if m.direction == "lower"} == {"ECE", "NFR"}
    assert {m.name for m in MEASURES.values() if m.signed} == {"p-MRR", "IRS"}
    assert {m.name: m.no_skill for m in MEASURES.values() if m.no_skill} == {
        "p-MRR": "zero", "IRS": "zero", "AUROC": "chance", "Balanced accuracy": "chance",
        "AUPRC": "positive rate", "Accuracy": "majority", "ECE": "constant calibrated"}
    assert measures.label("original/AP@1000") == "MAP@1000"
    assert measures.label("altered/nDCG@10") == "nDCG@10"
    assert measures.query_label("AUROC") == "AUROC part"
    assert measures.query_label("original/AP@1000") == "AP@1000 (original)"
    assert measures.query_name("AUROC") == "AUROC part"
    assert measures.query_name("original/nDCG@10") == "original/nDCG@10"
    assert measures.query_help("altered/nDCG@10") == "nDCG@10 of the altered run on this query"
    assert measures.query_help("RR@10") == "RR@10 of this query"
    assert measures.column_help("R@5").startswith("recall: the share of a query's relevant "
                                                  "documents within the top 5 documents")
    assert measures.higher_is_better("calibrated/ECE") is False
    assert measures.higher_is_better("Positive rate") is True  # "neither" sorts as higher
    assert (parse("original/AP@1000").qualifier, parse("original/AP@1000").cutoff) == \
        ("original", 1000)


@pytest.mark.parametrize("key", ["MAP@10", "p-MRR@10", "nDCG@ten", "nDCG@", "AUROC@5",
                                 "original/", "", "ndcg@10"])
def test_an_unknown_key_is_refused_by_name(key: str) -> None:
    with pytest.raises(UnknownMeasureError, match="unknown metric") as err:
        parse(key)
    assert repr(key) in str(err.value)


def test_scoring_dispatches_through_the_catalogue() -> None:
    assert parse_metric("nDCG@10") == ("nDCG", 10)
    assert parse_metric("AP") == ("AP", None)
    for key in ("p-MRR", "AUROC", "original/nDCG@10", "MAP@10"):
        with pytest.raises(ValueError, match="unsupported metric"):
            parse_metric(key)


def test_a_task_column_says_what_its_metric_is_as_a_declared_column_does() -> None:
    """The PR comment's one-task column (standings.task_column) had its own copy of the
    measure facts and dropped the no-skill reference: a p-MRR task's comment row had none."""
    tasks = all_tasks()
    assert task_column("followir/core17").no_skill == "zero"
    assert task_column("pi-indic-val150/t4/hin").no_skill == "chance"
    for task_id in ("followir/core17", "followtable/wtr", "pi-indic-val150/t4/hin",
                    "pi-indic-val150/t1/hin", "mfollowir/fas"):
        for key in tasks[task_id].metric_keys():
            mine, declared = task_column(task_id, key), column((task_id,), key, key)
            assert (mine.higher_is_better, mine.signed, mine.no_skill, mine.help) == \
                (declared.higher_is_better, declared.signed, declared.no_skill,
                 declared.help), (task_id, key)


def test_every_declared_column_agrees_with_the_catalogue() -> None:
    checked = 0
    for view in all_views().values():
        for col in view.columns:
            try:
                measure = parse(col.metric).measure
            except UnknownMeasureError:  # FollowIR's "Score": a mean of different metrics
                assert col.task_metrics, col
                continue
            assert (col.higher_is_better, col.signed, col.no_skill) == \
                (measure.higher_is_better, measure.signed, measure.no_skill), (view.id, col.id)
            assert col.help, (view.id, col.id)
            checked += 1
    assert checked > 500


def test_t4_tables_rank_by_every_scored_measure_that_is_better_one_way() -> None:
    """pi_indic_views kept its own list of T4's columns, the scored measures less the two
    shares whose direction is "neither"; it is that, taken from the task and catalogue."""
    task = all_tasks()["pi-indic-val150/t4/hin"]
    ranked = [m for m in task.pair_metrics if parse(m).measure.direction != "neither"]
    assert ranked == ["AUROC", "AUPRC", "Accuracy", "Balanced accuracy", "ECE"]
    t4 = [v for v in all_views().values() if v.id.startswith("pi-indic/t4/")]
    assert t4
    for view in t4:
        shown = list(dict.fromkeys(c.metric for c in view.columns))
        assert shown == ranked, view.id


def test_the_catalogue_is_a_plain_module() -> None:
    """`leaderboard eval` imports it: the standard library and the error root only."""
    def imports_of(module: str) -> set[str]:
        tree = ast.parse((REPO / (module.replace(".", "/") + ".py")).read_text("utf-8"))
        names = {alias.name for node in ast.walk(tree)
                 if isinstance(node, ast.Import) for alias in node.names}
        return names | {node.module for node in ast.walk(tree)
                        if isinstance(node, ast.ImportFrom) and node.module}

    assert imports_of("leaderboard.core.measures") <= {
        "__future__", "re", "dataclasses", "typing", "leaderboard.core.errors"}
    # The error root is itself plain, so the catalogue stays cheap to import.
    assert imports_of("leaderboard.core.errors") <= {"__future__", "typing"}


# --------------------------------------------------------------------------- a toy measure

TOY = Measure(name="Toy", title="a toy error rate", kernel="ranking", direction="lower",
              low=-1.0, takes_cutoff=True, no_skill="zero", mean_name="MTE",
              help="toy error of {depth}", query_name="toy part",
              query_help="the query's part of the toy error")


def _system(sid: str, tasks: dict[str, float], key: str) -> SystemResult:
    return SystemResult(
        system_id=sid, model=ModelInfo(name=sid), provenance="verified",
        source=Source(kind="scored"),
        tasks={t: TaskScores(metrics={key: v}, per_query={key: {"q1": v, "q2": v}})
               for t, v in tasks.items()})


def test_a_measure_declared_in_the_catalogue_reaches_every_surface(monkeypatch) -> None:
    """Adding a measure is its declaration (this test's monkeypatch) and its kernel; the
    labels, direction, sign, rounding, help, no-skill reference, explorer index, command
    line and metrics page all follow without another file changing."""
    monkeypatch.setitem(MEASURES, "Toy", TOY)
    key = "original/Toy@5"
    # labels and help
    assert measures.label(key) == "MTE@5"
    assert measures.column_help(key) == "toy error of the top 5 documents"
    assert measures.query_name(key) == "original/toy part"
    # a benchmark's column, and a view built from it: direction, sign, help, no skill
    col = column(("followir/core17",), key, "Toy")
    assert (col.higher_is_better, col.signed, col.no_skill, col.help) == \
        (False, True, "zero", "toy error of the top 5 documents")
    view = View(id="toy", label="Toy", title="Toy", columns=(col,))
    rows = [Row(key=s.system_id, system=s, origin=Path("x"))
            for s in (_system("a", {"followir/core17": 0.30}, key),
                      _system("b", {"followir/core17": -0.1235}, key))]
    table = fill_view(view, rows)
    assert [r.key for r in table.rows] == ["b", "a"]                  # lower is better
    assert score_text(table.values["b"][0], col.signed) == "-12.4"     # the one rule
    assert score_text(table.values["a"][0], col.signed) == "+30.0"
    # the PR comment's column
    assert task_column("followir/core17", key).higher_is_better is False
    # the explorer's index (its direction: which way a list of the toy is worst first)
    assert metric_facts(key) == {"label": "toy part (original)",
                                 "help": "the query's part of the toy error",
                                 "direction": "lower", "signed": True, "low": -1.0,
                                 "high": 1.0}
    # the metrics page's table of the catalogue
    page = environment().get_template("metrics.md.j2").render(measures=list(MEASURES.values()), alpha=0.05)
    row = next(line for line in page.splitlines() if line.startswith("| **Toy@k**"))
    assert row.startswith("| **Toy@k**: a toy error rate, shown as MTE@k")
    assert "toy error of the top k documents" in row
    assert "| lower |" in row and "-100 to +100, shown with its sign" in row
    # scoring dispatches to the ranking kernel, which says it has no code for it yet:
    # the kernel is the one other file a new measure touches
    assert parse_metric("Toy@5") == ("Toy", 5)
    run = parse_run(b"q1 Q0 d1 1 1.0 t\n", "toy.trec", Report())
    with pytest.raises(ValueError, match="no ranking kernel computes 'Toy@5'"):
        evaluate(RankedRun.from_parsed(run), {"q1": {"d1": 1}}, ["q1"], ["Toy@5"])


def test_a_no_skill_reference_follows_the_kind_the_catalogue_declares(monkeypatch) -> None:
    """A measure's no-skill value comes from its declared kind alone: a T4 measure
    declared with ``no_skill="majority"`` is referenced at the majority share (the values
    were a second table, by measure name, which a new measure raised a KeyError in)."""
    monkeypatch.setitem(MEASURES, "Toy accuracy", Measure(
        name="Toy accuracy", title="a toy accuracy", kernel="classification",
        no_skill="majority", help="toy accuracy"))
    rates = {"pi-indic-val150/t4/hin": 0.25, "pi-indic-val150/t4/urd": 0.1}
    col = column(tuple(rates), "Toy accuracy", "Toy")
    assert reference_value(col, rates) == pytest.approx((0.75 + 0.9) / 2)
    for kind, value in (("zero", 0.0), ("chance", 0.5), ("positive rate", 0.175),
                        ("constant calibrated", 0.0)):
        monkeypatch.setitem(MEASURES, "Toy accuracy", Measure(
            name="Toy accuracy", title="a toy accuracy", kernel="classification",
            no_skill=kind, help="toy accuracy"))
        col = column(tuple(rates), "Toy accuracy", "Toy")
        assert reference_value(col, rates) == pytest.approx(value), kind


def test_the_heatmap_ranks_submissions_by_the_tables_convention() -> None:
    """A family's columns are in the order its table would show: the mean of the task
    figures, a submission without every task last (the explorer's script used to average
    whatever tasks a submission had, missing figures as 0)."""
    registry = all_tasks()
    fam = Family("followir", "FollowIR", "collection", ("followir/robust04", "followir/core17"))
    systems = {
        "both": _system("both", {"followir/robust04": 0.1, "followir/core17": 0.2}, "p-MRR"),
        "one": _system("one", {"followir/robust04": 0.9}, "p-MRR"),
        "best": _system("best", {"followir/robust04": 0.3, "followir/core17": 0.1}, "p-MRR"),
    }
    rows = [Row(key=sid, system=s, origin=Path("x")) for sid, s in systems.items()]
    # A family no table shows (two of FollowIR's three collections) is ordered by value.
    assert [r.key for r in ranked_submissions(fam, registry, rows, {})] == [
        "best", "both", "one"]
    col = column(fam.tasks, "p-MRR", "p-MRR")
    assert [r.key for r in ranked_submissions(fam, registry, rows, {})] == order_systems(
        systems, col)[1]


def test_a_task_figure_that_is_no_mean_over_queries_is_not_called_one() -> None:
    """T4's AUPRC and ECE are computed over all the task's pairs at once (they do not
    decompose over personas), yet their headers and downloads said what every one-task
    column said: "the task's mean over its queries". The catalogue says which measures
    are pooled; the kernel's per-persona parts are exactly the others."""
    import numpy as np

    from leaderboard.core.metrics.classification import per_unit_scores

    labels = np.tile([1] + [0] * 10, 4)
    parts = per_unit_scores(labels, np.linspace(0.05, 0.95, labels.size),
                            np.repeat(["a", "b", "c", "d"], 11)).values
    for m in (m for m in MEASURES.values() if m.kernel == "classification"):
        text = column(("pi-indic-val150/t4/hin",), m.name, m.name).convention_text
        if m.name in parts:
            assert text == "the task's mean over its queries", m.name
        else:
            assert "over its queries" not in text and "all the task's pairs" in text, (m.name, text)


def test_the_one_class_mark_follows_the_catalogue(monkeypatch) -> None:
    """Which figures a classifier that answers one class wins without skill, and which
    figure tells that it does, are the catalogue's (``one_class_wins``,
    ``tells_one_class``): the tables' mark, its note and the metrics page follow a measure
    declared so, and leave ECE alone once it is not (the tables named "ECE" and
    "Predicted positive rate" themselves)."""
    from leaderboard.publish.site.figure_marks import one_class, one_class_note

    monkeypatch.setitem(MEASURES, "Toy", Measure(
        name="Toy", title="a toy", kernel="classification", help="toy",
        one_class_wins="a constant answer tops it"))
    monkeypatch.setitem(MEASURES, "ECE", Measure(
        name="ECE", title="expected calibration error", kernel="classification",
        direction="lower", help="ece"))
    tasks = ("pi-indic-val150/t4/hin", "pi-indic-val150/t4/urd")

    def row(rate: float) -> Row:
        system = SystemResult(
            system_id="s", model=ModelInfo(name="s"), provenance="verified",
            source=Source(kind="scored"),
            tasks={t: TaskScores(metrics={"Toy": 0.9, "ECE": 0.0,
                                          "Predicted positive rate": rate}) for t in tasks})
        return Row(key="s", system=system, origin=Path("x"))

    toy, ece = column(tasks, "Toy", "Toy"), column(tasks, "ECE", "ECE")
    assert one_class(row(0.0), toy) and one_class(row(1.0), toy)
    assert not one_class(row(0.5), toy)
    assert not one_class(row(0.0), ece)
    assert measures.one_class_tell("calibrated/Toy") == "calibrated/Predicted positive rate"
    assert measures.one_class_tell("AUROC") is None
    assert one_class_note().startswith("* answers one class for every pair")
    assert "a constant answer tops it, so its high Toy is no merit" in one_class_note()
    assert "ECE" not in one_class_note()
    page = environment().get_template("metrics.md.j2").render(
        measures=list(MEASURES.values()), alpha=0.05)
    assert "mark with * the Toy of a\nclassifier that answers one class for every pair: " \
           "its high Toy is no merit." in page


def test_a_measures_depth_is_worded_in_the_catalogue_alone() -> None:
    """``{depth}`` in a measure's help becomes "the top k documents" or "the whole
    ranking" in ``Measure.help_at``; the metrics page repeated the wording in its own
    template, so a change to one would leave the page and the columns' help apart."""
    for pattern in ("leaderboard/**/*.py", "leaderboard/**/*.j2", "leaderboard/**/*.js"):
        for path in REPO.glob(pattern):
            if path.name == "measures.py" and path.parent.name == "core":
                continue
            text = path.read_text(encoding="utf-8")
            assert "whole ranking" not in text and "{depth}" not in text, path
    page = environment().get_template("metrics.md.j2").render(
        measures=list(MEASURES.values()), alpha=0.05)
    for m in MEASURES.values():
        assert str(escape(m.help_at("k" if m.takes_cutoff else None))) in page, m.name
    assert MEASURES["R"].help_at(5) == measures.column_help("R@5")
