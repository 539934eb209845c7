"""benchmarks/cli_startup.py --peers: each peer library must compute the very figure eval
computes, on the same runs, or the timing compares different work."""

from __future__ import annotations

import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.cli_startup import (  # noqa: E402
    PEERS,
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
