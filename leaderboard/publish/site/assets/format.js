/* FollowBoard's one rule for printing a number, the JavaScript half of
 * leaderboard/core/display.py (whose docstring states the rule; the metrics page says it to
 * readers). tests/fixtures/display_cases.json holds both halves to the same texts.
 *
 * A value is printed from its shortest round-trip decimal form (String(v)), scaled by a
 * power of ten exactly in decimal (x100 for a score), then rounded half away from zero to
 * the digits asked; what rounds to zero prints without a sign; `signed` puts "+" before a
 * positive result; a missing or non-finite value prints "\u2013".
 *
 * A classic script: it defines the global FBFormat, loaded before explorer.js and
 * leaderboard.js, and exports the same functions to node for the tests.
 */
var FBFormat = (function () {
  "use strict";

  var MISSING = "\u2013";

  // value x 10^scale with `digits` decimals.
  function fixed(value, digits, signed, scale) {
    if (value === null || value === undefined) return MISSING;
    value = Number(value);
    if (!isFinite(value)) return MISSING;
    scale = scale || 0;
    // |value| = digits x 10^power, exactly as the shortest form writes it ("1e-7",
    // "1.5e+21", "0.0015").
    var text = String(Math.abs(value));
    var e = text.indexOf("e");
    var mantissa = e === -1 ? text : text.slice(0, e);
    var exponent = e === -1 ? 0 : parseInt(text.slice(e + 1), 10);
    var dot = mantissa.indexOf(".");
    var fraction = dot === -1 ? "" : mantissa.slice(dot + 1);
    var whole = dot === -1 ? mantissa : mantissa.slice(0, dot);
    var units = BigInt(whole + fraction);
    var shift = exponent - fraction.length + scale + digits;
    if (shift >= 0) {
      units = units * (10n ** BigInt(shift));
    } else {
      var divisor = 10n ** BigInt(-shift);
      var remainder = units % divisor;
      units = units / divisor + (2n * remainder >= divisor ? 1n : 0n);   // half away from zero
    }
    var out = units.toString();
    while (out.length < digits + 1) out = "0" + out;
    if (digits) out = out.slice(0, out.length - digits) + "." + out.slice(out.length - digits);
    if (units === 0n) return out;
    return (value < 0 ? "-" : signed ? "+" : "") + out;
  }

  // A score (a fraction) as the leaderboard shows it: x100, one decimal by default.
  function score(value, signed, digits) {
    return fixed(value, digits === undefined ? 1 : digits, signed, 2);
  }

  return { MISSING: MISSING, fixed: fixed, score: score };
})();

if (typeof module !== "undefined") module.exports = FBFormat;
