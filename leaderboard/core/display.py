"""The one rule every displayed number follows, written once in Python (here) and once in
JavaScript (``leaderboard/publish/site/assets/format.js``); ``tests/fixtures/display_cases.json``
holds both to the same texts.

A value is printed from its shortest round-trip decimal form (Python's ``repr``,
JavaScript's ``String``: the digits a reader would type to get the same double), scaled
by a power of ten exactly in decimal (x100 for a score), then rounded half away from zero
to the digits asked. So 0.0015 is 0.15 before rounding and shows as 0.2, the same on
every page, whatever the binary double behind it (0.00149999999999999990...). A result
that rounds to zero prints without a sign ("0.0", never "-0.0" or "+0.0"); ``signed`` puts
"+" before a positive one (p-MRR and IRS); a missing or non-finite value prints "–".

Tables, the explorer, the charts, ``eval``, ``explain``, ``compare`` and the PR comment
all print through this rule; the metrics page states it.

A figure a paper prints is shown as printed instead (:func:`figure_text`): the rule is for
the figures computed here, and rounding a printed -2.34 to -2.3 drops a digit the paper
gives, as writing its printed fraction 0.82 as 82.0 adds one it does not. Its text, kept
with the figure (``TaskScores.printed``: the fraction with the printed digits), is scaled
x100 exactly, its digits neither rounded nor padded, and with its printed sign: "-0.0"
stays "-0.0", for a paper that prints it says its figure is a small negative (the rule's
"never -0.0" is for values computed here, where a tiny negative rounded to -0.0 misleads);
``signed`` puts "+" before a positive one, and a printed 0.0 prints without a sign.

A p-value is printed by :func:`p_text` alone, wherever it is shown (the site's tables and
details, ``compare``, the PR comment): two significant digits by the same rule, no
trailing zeros, in decimals down to 0.001 and as "2.3e-4" below; and never below what its
test resolves: one at or below the test's floor prints as "≤" the floor, rounded up
("≤ 1e-5"), a bound that holds whatever the value under it; so does a value known only as
an upper bound (a Holm-adjusted p resting on a raw p at its floor: "≤ 3e-5"). Nor does a printed p-value
round across the significance level it is judged at: one just below it keeps the digits
that say so (0.0496 at 0.05, never "0.05" beside "below best verified").
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal

MISSING = "\u2013"   # en dash: no value


def fixed(value: float | None, digits: int, *, signed: bool = False, scale: int = 0) -> str:
    """``value`` x 10**scale with ``digits`` decimals, by the rule above."""
    if value is None:
        return MISSING
    value = float(value)
    if not math.isfinite(value):
        return MISSING
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    # |value| = digits_int x 10**power, exactly as the shortest form writes it
    digits_int = int(whole + fraction)
    shift = int(exponent or 0) - len(fraction) + scale + digits
    if shift >= 0:
        units = digits_int * 10**shift
    else:
        quotient, remainder = divmod(digits_int, 10**-shift)
        units = quotient + (1 if 2 * remainder >= 10**-shift else 0)   # half away from zero
    text = str(units).rjust(digits + 1, "0")
    if digits:
        text = f"{text[:-digits]}.{text[-digits:]}"
    if units == 0:
        return text
    return ("-" if value < 0 else "+" if signed else "") + text


def score_text(value: float | None, signed: bool = False, digits: int = 1) -> str:
    """A score (a fraction) as the leaderboard shows it: x100, one decimal by default."""
    return fixed(value, digits, signed=signed, scale=2)


def printed_text(printed: str, signed: bool = False) -> str:
    """A printed figure (the fraction with its printed digits, ``"-0.0234"``) x100, its
    digits and sign as printed (module docstring): ``"-2.34"``, ``"0.82"`` -> ``"82"``,
    ``"-0.000"`` -> ``"-0.0"``."""
    shown = Decimal(printed).scaleb(2)
    text = format(abs(shown), "f")
    if shown.is_signed():
        return "-" + text
    return ("+" if signed and shown != 0 else "") + text


def figure_text(value: float | None, signed: bool = False, printed: str | None = None) -> str:
    """A score as a table shows it: as its source prints it where it is a printed figure
    (``printed``, the same number as ``value``), else by the rounding rule
    (:func:`score_text`)."""
    return score_text(value, signed) if printed is None else printed_text(printed, signed)


def effect_size_text(value: float | None) -> str:
    """An effect size (a difference over the spread of the units' differences, in standard
    deviations) as every surface prints it: two decimals by the rule above, signed, so
    -0.004 is "0.00", never "-0.00", and 0.125 is "+0.13"."""
    return fixed(value, 2, signed=True)


# Significant digits of a printed p-value, and the smallest one printed in decimals.
P_DIGITS = 2
P_DECIMALS_DOWN_TO = Decimal("0.001")


def p_text(p: float | None, floor: float | None = None, *, level: float | None,
           bound: bool | None = False) -> str:
    """A p-value as every surface prints it (module docstring): ``floor`` is the smallest
    p-value its test resolves (all 2**n sign flips: 2 / 2**n; Monte-Carlo flips: 1 / R; a
    normal approximation: a stated floor), and a value at or below it, raised to it as the
    downloads give it or not, prints as "≤" that floor rounded up: "≤ 1e-5", "≤ 0.002".
    ``bound``: ``p`` is itself only an upper bound (a Holm-adjusted p-value whose value
    rests on a raw one at its floor), and prints as "≤" itself rounded up: "≤ 3e-5".
    ``level`` is the significance level the p-value is judged at beside it (None: none):
    a value below it that two significant digits would round up to it gets as many more
    as keep it below (0.0496, 0.04999), so the printed p and the verdict agree."""
    if p is None or not math.isfinite(float(p)):
        return MISSING
    if p >= 1:
        return "1"  # no test has a p-value above it, so none is resolved only up to it
    if bound:
        floor = max(p, floor) if floor is not None and math.isfinite(float(floor)) else p
    if floor is not None and math.isfinite(float(floor)) and p <= floor:
        return "≤ " + _below_level(floor, ROUND_CEILING, level)
    return _below_level(p, ROUND_HALF_UP, level)


def _below_level(value: float, rounding: str, level: float | None) -> str:
    """:func:`_significant` with :data:`P_DIGITS` digits, or more where fewer would put a
    value below ``level`` at or above it."""
    digits = P_DIGITS
    text = _significant(value, rounding, digits)
    while level is not None and value < level <= float(text):
        digits += 1
        text = _significant(value, rounding, digits)
    return text


def _significant(value: float, rounding: str, digits: int = P_DIGITS) -> str:
    """``value`` (>= 0) to ``digits`` significant digits from its shortest decimal form,
    rounded by ``rounding``; trailing zeros dropped; below 0.001 as "1.9e-6"."""
    d = Decimal(repr(abs(float(value))))
    if d == 0:
        return "0"
    d = d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1), rounding=rounding)
    if d >= P_DECIMALS_DOWN_TO:
        return format(d.normalize(), "f")
    exponent = d.adjusted()
    mantissa = format(d.scaleb(-exponent).normalize(), "f")
    return f"{mantissa}e{exponent}"
