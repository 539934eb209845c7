// The explorer's numbers (leaderboard/publish/site/assets/explorer/common.js): a figure's
// exact value for data-v, and its text by the one display rule (assets/format.js).
// Run by tests/test_display.py through `node --test tests/js/`.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const ASSETS = path.join(__dirname, "..", "..", "leaderboard", "publish", "site", "assets");
global.FBFormat = require(path.join(ASSETS, "format.js"));   // a page loads it first
const C = require(path.join(ASSETS, "explorer", "common.js"));

test("exact keeps the double's shortest round-trip form; nothing for no figure", () => {
  for (const v of [0.1235, -0.4995, 1 / 3, 1e-7, 0.1 + 0.2]) assert.equal(Number(C.exact(v)), v);
  assert.equal(C.exact(0.1 + 0.2), "0.30000000000000004");
  assert.equal(C.exact(null), "");
  assert.equal(C.exact(undefined), "");
});

test("fmt prints a fraction as the tables do; gainText x100, two signed decimals", () => {
  assert.equal(C.fmt(0.1235), "12.4");
  assert.equal(C.fmt(-0.4995, true), "-50.0");
  assert.equal(C.fmt(0.05, true), "+5.0");
  assert.equal(C.fmt(null), FBFormat.MISSING);
  // An IRS gain on the scale of the card's p-MRR terms (issue 35, finding 9: the card
  // printed p-MRR terms x100 beside gains as fractions).
  assert.equal(C.gainText(0.06697547548075888), "+6.70");
  assert.equal(C.gainText(-0.00005), "-0.01");
});

test("plural words a count as core.report.plural does: '1 query', '1,386 queries'", () => {
  // The list said "1 queries", and counts had no thousands separator where the tables'
  // Python side prints "1,386 queries".
  assert.equal(C.plural(1, "query"), "1 query");
  assert.equal(C.plural(1386, "query"), "1,386 queries");
  assert.equal(C.plural(0, "task"), "0 tasks");
  assert.equal(C.plural(2, "day"), "2 days");
  assert.equal(C.plural(3, "index", "indices"), "3 indices");
});

test("a submitter's name is set apart from the text around it, as an element or in text", () => {
  // Arabic letters then a digit: unisolated, its direction takes the numbers after it.
  const name = "\u0646\u0645\u0648\u0630\u062c 7";
  assert.equal(C.isolated(name), "\u2068" + name + "\u2069");
  const made = [];
  global.document = { createElement: (tag) => { const n = { tag, kids: [], attrs: {},
    setAttribute(k, v) { this.attrs[k] = v; }, appendChild(c) { this.kids.push(c); } };
    made.push(n); return n; }, createTextNode: (text) => ({ text }) };
  try {
    const node = C.named(name);
    assert.equal(node.tag, "bdi");   // an isolate whose direction is its own text's
    assert.deepEqual(node.kids, [{ text: name }]);
  } finally {
    delete global.document;
  }
});

test("a copied text is marked cut when its text part says so, and called its start", () => {
  const at = "\u0905".repeat(280);   // Devanagari: one UTF-16 unit each
  assert.deepEqual(C.snippet(at, true), { text: at + "\u2026", cut: true, words: "the start of the text" });
  // a whole text as long as a cut one is whole (the length told nothing)
  assert.deepEqual(C.snippet(at, false), { text: at, cut: false, words: "the whole text" });
  // no count of characters: a count of code points (or UTF-16 units) is not what a reader
  // counts, and the cut falls between characters as a reader sees them
  assert.equal(C.snippet("\u{1F600}".repeat(200), true).words, "the start of the text");
  assert.equal(C.snippet("\u{1F600}".repeat(200), undefined).cut, false);
});

test("own finds a map's own entries only, not what every object inherits", () => {
  // ?s=constructor named the submission "Object", ?s=__proto__ "undefined", and a heatmap
  // of t=toString failed on a task found among Object.prototype's members.
  const map = JSON.parse('{"bm25s": {"name": "BM25"}, "__proto__": {"name": "own"}}');
  assert.deepEqual(C.own(map, "bm25s"), { name: "BM25" });
  assert.deepEqual(C.own(map, "__proto__"), { name: "own" });
  for (const key of ["constructor", "toString", "hasOwnProperty", "valueOf"]) {
    assert.equal(C.own(map, key), undefined);
    assert.equal(C.own({}, key), undefined);
  }
  assert.equal(C.own({}, "__proto__"), undefined);
  assert.equal(C.own(undefined, "x"), undefined);
});
