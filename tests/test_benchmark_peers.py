"""benchmarks/cli_startup.py: with --peers, each peer library must compute the very figure
eval computes, on the same runs, or the timing compares different work; with --against,
each ratio compares one command in both checkouts."""

from __future__ import annotations

import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.cli_startup import (  # noqa: E402
    PEERS,
    against_lines,
    peer_followtable_eval,
    plain_followtable_eval,
)

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("peer", sorted(PEERS))
def test_each_peer_computes_evals_figures_on_the_committed_runs(peer: str, data_dir: Path):
    if find_spec(PEERS[peer][0]) is None:
        pytest.skip(f"{peer} is not installed (the bench extra)")
    runs = REPO / "submissions" / "bm25s" / "runs" / "followtable" / "wtr"
    root = data_dir / "followtable" / "WTR"
    expected = plain_followtable_eval(root, runs / "original.trec.gz", runs / "altered.trec.gz")
    out = peer_followtable_eval(peer, root, runs / "original.trec.gz", runs / "altered.trec.gz")
    assert set(out["cpu_s"]) == {"import", "read", "compute"}
    assert out["metrics"], "a peer computes at least one of eval's figures"
    # ranx orders tied scores its own way (BM25's WTR original run ties five documents
    # across rank 10 of one query): its figure is near eval's, not equal.
    tolerance = 1e-12 if PEERS[peer][2] else 2e-3
    for name, value in out["metrics"].items():
        assert value == pytest.approx(expected[name], abs=tolerance), name


def test_against_compares_each_command_with_itself_in_the_other_checkout() -> None:
    """The cache-off ratio divided the other checkout's eval with the cache on by this
    checkout's with it off (0.81x on WQT where both took the same time)."""
    def row(wall: float) -> dict:
        return {"wall": wall, "cpu": wall * 2}
    rows = {("this checkout", "help"): row(0.03), ("before", "help"): row(0.06),
            ("this checkout", "eval"): row(0.4), ("before", "eval"): row(0.4),
            ("this checkout", "uncached"): row(0.5), ("before", "uncached"): row(1.0)}
    assert against_lines(rows, "before") == [
        "help: before / this checkout = wall 2.00x, CPU 2.00x",
        "eval: before / this checkout = wall 1.00x, CPU 1.00x",
        "eval, data cache off: before / this checkout = wall 2.00x, CPU 2.00x"]
