"""The one rule for displayed numbers (leaderboard/core/display.py and its JavaScript half,
leaderboard/publish/site/assets/format.js): the shared table of edge values in both
languages, the Python half against a plain Decimal implementation of the rule, and the two
halves against each other on many values."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import subprocess
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from leaderboard.core.display import MISSING, figure_text, fixed, p_text, printed_text, score_text

REPO = Path(__file__).resolve().parents[1]
CASES = json.loads((REPO / "tests" / "fixtures" / "display_cases.json").read_text("utf-8"))
FORMAT_JS = REPO / "leaderboard" / "publish" / "site" / "assets" / "format.js"
NODE = shutil.which("node")


def _value(v: object) -> float | None:
    return {"NaN": math.nan, "Infinity": math.inf}.get(v, v) if isinstance(v, str) else v


def reference(value: float | None, digits: int, signed: bool = False, scale: int = 0) -> str:
    """The rule in Decimal arithmetic: the shortest repr, scaled, rounded half up."""
    if value is None or not math.isfinite(value):
        return MISSING
    d = Decimal(repr(float(value))).scaleb(scale).quantize(Decimal(1).scaleb(-digits),
                                                            rounding=ROUND_HALF_UP)
    if d == 0:
        return format(abs(d), "f")
    return ("+" if signed and d > 0 else "") + format(d, "f")


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: f"{c['value']}-{c['digits']}")
def test_edge_values_print_as_the_shared_table_says(case: dict) -> None:
    got = fixed(_value(case["value"]), case["digits"], signed=case["signed"],
                scale=case["scale"])
    assert got == case["text"], case


def test_the_issues_values_read_the_same_as_the_explorer_now_prints_them() -> None:
    assert score_text(0.0015) == "0.2"
    assert score_text(0.1235) == "12.4"
    assert score_text(-0.4995, signed=True) == "-50.0"
    assert score_text(-0.0, signed=True) == "0.0" and score_text(-1e-9, True) == "0.0"


@pytest.mark.parametrize("printed, signed, text", [
    ("-0.0234", True, "-2.34"),   # FollowTable Table 5, StruBERT: the rule gave -2.3
    ("0.82", False, "82"),        # FollowTable Table 6's NFR: the rule gave 82.0
    ("0.650", False, "65.0"),     # a printed 65.0 keeps its zero
    ("0.505", False, "50.5"),     # mFollowIR's fractions, three decimals
    ("0.024", True, "+2.4"),      # a signed column's "+", as its other figures have it
    ("0.0015", False, "0.15"),    # no rounding: the rule gave 0.2
    ("0.000", True, "0.0"),
    ("-0.000", True, "-0.0"),     # FollowIR Table 2, GritLM-7B: a small negative, not 0.0
    ("-0.000", False, "-0.0"),
])
def test_a_printed_figure_shows_its_printed_digits(printed: str, signed: bool,
                                                   text: str) -> None:
    assert printed_text(printed, signed) == text
    assert figure_text(float(printed), signed, printed) == text
    assert figure_text(float(printed), signed) == score_text(float(printed), signed)


def _doubles(n: int, seed: int) -> list[float]:
    """Values that stress the rule: half-way decimals (whose doubles fall either side of
    the half), scores on a rank grid, tiny and huge magnitudes, random doubles."""
    rng = random.Random(seed)
    out: list[float] = []
    for _ in range(n):
        kind = rng.randrange(5)
        if kind == 0:
            out.append(rng.randrange(-100_000, 100_001) / 10_000 + rng.choice((0, 5e-5)))
        elif kind == 1:
            out.append(1 / rng.randrange(1, 2000) - rng.random() * rng.choice((0, 1)))
        elif kind == 2:
            out.append(rng.choice((-1, 1)) * 10 ** rng.uniform(-12, 22))
        elif kind == 3:
            out.append(float(f"{rng.uniform(-1, 1):.4f}5"))
        else:
            out.append(rng.uniform(-2, 2))
    return out


def test_python_half_is_the_decimal_reference() -> None:
    for value in _doubles(20_000, seed=1):
        for digits, scale in ((1, 2), (2, 2), (3, 0), (4, 0)):
            for signed in (False, True):
                assert fixed(value, digits, signed=signed, scale=scale) == \
                    reference(value, digits, signed, scale), (value, digits, scale, signed)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_tests_pass() -> None:
    """The JavaScript half's own tests (tests/js/, node's test runner) on the shared table."""
    done = subprocess.run([NODE, "--test", str(REPO / "tests" / "js")], capture_output=True,
                          text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_javascript_and_python_print_the_same_text(tmp_path: Path) -> None:
    values = _doubles(5_000, seed=2)
    args = [(1, 2), (2, 2), (3, 0), (4, 0)]
    (tmp_path / "values.json").write_text(json.dumps(values), encoding="utf-8")
    script = (f"const f = require({json.dumps(str(FORMAT_JS))});"
              f"const vs = require({json.dumps(str(tmp_path / 'values.json'))});"
              f"const args = {json.dumps(args)};"
              "process.stdout.write(JSON.stringify(vs.map(v => args.map(a => "
              "[f.fixed(v, a[0], false, a[1]), f.fixed(v, a[0], true, a[1])]))));")
    done = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    for value, texts in zip(values, shown):
        expected = [[fixed(value, d, scale=s), fixed(value, d, signed=True, scale=s)]
                    for d, s in args]
        assert texts == expected, value


#: How every surface prints a p-value (core/display.p_text): two significant digits, no
#: trailing zeros, decimals down to 0.001, then "2.3e-4"; at or below the floor, "≤" it.
P_SHAPE = re.compile(r"(?:\u2264 )?(?:1|0\.0{0,2}[1-9]\d?|[1-9](?:\.\d)?e-[1-9]\d*)")


@pytest.mark.parametrize(("p", "floor", "text"), [
    (0.36246, 1e-5, "0.36"), (0.0494537, 1e-5, "0.049"), (0.2, None, "0.2"),
    (0.0996, 1e-5, "0.1"), (0.000996, 1e-5, "0.001"), (1.0, 0.5, "1"), (1.0, 1.0, "1"),
    (3.0517578125e-05, 1e-5, "3.1e-5"), (1.52587890625e-05, 1e-5, "1.5e-5"),
    (0.00012, 1e-5, "1.2e-4"), (None, 1e-5, MISSING), (math.nan, None, MISSING),
    # at or below the floor: a Monte-Carlo test's 1 / (R + 1), a normal tail's 8.4e-76,
    # a value the downloads raised to the floor: "at most"; the bound rounded up, so that
    # it holds (all 2^20 flips resolve 1.9073e-6, not 1.9e-6)
    (1 / 100_001, 1e-5, "\u2264 1e-5"), (8.4e-76, 1e-5, "\u2264 1e-5"),
    (1e-5, 1e-5, "\u2264 1e-5"), (2 / 2**10, 2 / 2**10, "\u2264 0.002"),
    (2 / 2**20, 2 / 2**20, "\u2264 2e-6"), (2 / 2**17, 2 / 2**17, "\u2264 1.6e-5"),
    (3.8e-6, 2 / 2**20, "3.8e-6"),
])
def test_a_p_value_prints_one_way_never_below_what_its_test_resolves(p, floor, text) -> None:
    """compare printed p-values with four decimals ("<0.0001", "0.0247"), the PR comment
    with three ("<0.001"), the site with two significant digits in a cell's details and
    three in a submission page's column ("1.5e-05" and "1.53e-05" for one p-value, beside
    "< 1e-5"), and the README promised "< 1e-5": one function prints them all, and a
    bound it prints is never below the floor it stands for."""
    assert p_text(p, floor, level=None) == text
    assert text == MISSING or P_SHAPE.fullmatch(text), text


def test_a_printed_p_value_is_its_value_or_a_true_bound() -> None:
    rng = random.Random(5)
    for _ in range(5_000):
        p = 10 ** rng.uniform(-8, 0)
        floor = rng.choice([1e-5, 2.0 ** (1 - rng.randint(1, 25)), None])
        text = p_text(p, floor, level=None)
        assert P_SHAPE.fullmatch(text), (p, floor, text)
        if text.startswith("\u2264 "):
            assert floor is not None and p <= floor <= float(text[2:]), (p, floor, text)
        else:
            assert floor is None or p > floor
            shown = Decimal(text)
            assert abs(shown - Decimal(repr(p))) <= Decimal(1).scaleb(
                shown.adjusted() - 1) / 2, (p, text)


@pytest.mark.parametrize(("p", "floor", "text"), [
    (0.0496, 1e-5, "0.0496"), (0.04951, None, "0.0495"), (0.04999, 1e-5, "0.04999"),
    (0.049999999999999996, None, "0.049999999999999996"), (0.0494537, 1e-5, "0.049"),
    (0.05, 1e-5, "0.05"), (0.0504, 1e-5, "0.05"), (0.0546, 1e-5, "0.055"),
    (0.0123, 1e-5, "0.012"), (1e-6, 1e-5, "\u2264 1e-5"),
])
def test_a_printed_p_value_never_rounds_across_the_level_it_is_judged_at(p, floor, text
                                                                         ) -> None:
    """An adjusted p of 0.0496 printed "0.05" beside "below best verified", under a note
    saying a row is tied when p >= 0.05: a value below the level keeps the digits that
    keep it below; one at or above it prints as before."""
    assert p_text(p, floor, level=0.05) == text
    assert p_text(0.0496, 1e-5, level=None) == "0.05"  # not judged: two digits


def test_printed_p_values_fall_on_their_own_side_of_the_level() -> None:
    rng = random.Random(7)
    for _ in range(5_000):
        p = rng.uniform(0.045, 0.055) if rng.random() < 0.8 else 0.05 - 10 ** rng.uniform(-17, -4)
        text = p_text(p, 1e-5, level=0.05)
        assert (float(text) < 0.05) == (p < 0.05), (p, text)
        assert abs(Decimal(text) - Decimal(repr(p))) <= Decimal("0.0005"), (p, text)
