"""`leaderboard compare` between two scored submissions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from leaderboard.cli import main
from leaderboard.results import ModelInfo, ResultsFile, Source, SystemResult, TaskScores, write_results
from leaderboard.stats.pairwise import compare_systems


def system(name: str, irs: dict[str, float], ndcg: dict[str, float]) -> SystemResult:
    per_query = {"IRS": irs, "altered/nDCG@10": ndcg}
    scores = TaskScores(metrics={k: float(np.mean(list(v.values()))) for k, v in per_query.items()},
                        per_query=per_query)
    return SystemResult(system_id=name, model=ModelInfo(name=name), provenance="verified",
                        source=Source(kind="scored"), tasks={"followtable/wtr": scores})


def save(tmp: Path, sys: SystemResult) -> Path:
    folder = tmp / sys.system_id
    write_results(folder / "results.json", ResultsFile(kind="submission", systems=[sys]))
    return folder


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path, Path]:
    rng = np.random.default_rng(3)
    q = [f"{i}_0" for i in range(30)]
    base = rng.uniform(0.2, 0.6, size=30)
    a = system("a", dict(zip(q, base + 0.2)), dict(zip(q, base)))
    b = system("b", dict(zip(q, base)), dict(zip(q, base)))
    return save(tmp_path, a), save(tmp_path, b), tmp_path


def test_better_on_every_query_is_significant_and_identical_is_not(pair) -> None:
    a_dir, b_dir, _ = pair
    from leaderboard.stats.pairwise import load_system

    result = compare_systems(load_system(a_dir), load_system(b_dir))
    by_metric = {r.metric: r for r in result.rows}
    assert by_metric["IRS"].p_value < 0.001 and by_metric["IRS"].better == "a"
    assert by_metric["IRS"].effect == pytest.approx(0.2)
    assert by_metric["altered/nDCG@10"].p_value == 1.0
    assert by_metric["altered/nDCG@10"].better is None
    assert all(r.p_adjusted >= r.p_value for r in result.rows)


def test_cli_table_and_json(pair, capsys) -> None:
    a_dir, b_dir, _ = pair
    assert main(["compare", str(a_dir), str(b_dir)]) == 0
    out = capsys.readouterr().out
    assert "A better" in out and "no significant difference" in out and "+20.0" in out
    assert main(["compare", str(a_dir), str(b_dir), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["system_a"] == "a" and len(data["rows"]) == 2


def test_unscored_submission_is_a_clear_error(pair, capsys) -> None:
    a_dir, _, tmp = pair
    (tmp / "empty").mkdir()
    assert main(["compare", str(a_dir), str(tmp / "empty")]) == 1
    err = capsys.readouterr().err
    assert "no results file" in err and "Traceback" not in err
