// The JavaScript half of the display rule (leaderboard/publish/site/assets/format.js) on
// the edge values the Python half is held to (tests/fixtures/display_cases.json).
// Run by tests/test_display.py through `node --test tests/js/`.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const fs = require("node:fs");

const FBFormat = require(path.join(__dirname, "..", "..", "leaderboard", "publish", "site",
  "assets", "format.js"));
const table = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "fixtures",
  "display_cases.json"), "utf8"));

function valueOf(v) {
  return v === "NaN" ? NaN : v === "Infinity" ? Infinity : v;
}

test("every edge value prints as the shared table says", () => {
  assert.ok(table.cases.length >= 30);
  for (const c of table.cases) {
    const got = FBFormat.fixed(valueOf(c.value), c.digits, c.signed, c.scale);
    assert.equal(got, c.text, JSON.stringify(c));
  }
});

test("negative zero really reaches the rule as -0", () => {
  const zero = table.cases.find((c) => Object.is(c.value, -0));
  assert.ok(zero, "the table holds -0.0");
  assert.equal(FBFormat.score(-0, true), "0.0");
});

test("score is fixed at x100, one decimal by default", () => {
  assert.equal(FBFormat.score(0.1235), "12.4");
  assert.equal(FBFormat.score(0.05, true), "+5.0");
  assert.equal(FBFormat.score(0.1235, false, 2), "12.35");
  assert.equal(FBFormat.score(undefined), FBFormat.MISSING);
});

test("the rule is exact where binary arithmetic is not", () => {
  // The old explorer: Math.round(v * 1000) / 10, then toFixed(1).
  const old = (v) => (Math.round(v * 1000) / 10).toFixed(1);
  assert.notEqual(old(-0.4995), FBFormat.score(-0.4995));
  // toFixed rounds the binary double: 2.675 is 2.67499999...
  assert.equal((2.675).toFixed(2), "2.67");
  assert.equal(FBFormat.fixed(2.675, 2), "2.68");
});
