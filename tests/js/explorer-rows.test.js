// The order of the explorer's rows and its colour scale
// (leaderboard/publish/site/assets/explorer/rows.js).
// Run by tests/test_display.py through `node --test tests/js/`.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const Rows = require(path.join(__dirname, "..", "..", "leaderboard", "publish", "site", "assets",
  "explorer", "rows.js"));

function row(query, values, extra) {
  return Object.assign({ task: "t/a", query: query, original: null, group: null, values: values }, extra || {});
}

test("sortRows: figures either way with a missing one last; ids with their numbers as numbers", () => {
  const rows = [row("q10", { m: 0.5 }), row("q2", { m: null }), row("q1", { m: -0.25 }), row("q3", {})];
  assert.deepEqual(Rows.sortRows(rows.slice(), "m", 1).map((r) => r.query), ["q1", "q10", "q2", "q3"]);
  assert.deepEqual(Rows.sortRows(rows.slice(), "m", -1).map((r) => r.query), ["q10", "q1", "q2", "q3"]);
  assert.deepEqual(Rows.sortRows(rows.slice(), "query", 1).map((r) => r.query), ["q1", "q2", "q3", "q10"]);
  assert.deepEqual(Rows.sortRows(rows.slice(), "query", -1).map((r) => r.query), ["q10", "q3", "q2", "q1"]);
  const grouped = [row("a", {}, { group: "S2" }), row("b", {}, { group: null }), row("c", {}, { group: "C1" })];
  assert.deepEqual(Rows.sortRows(grouped, "group", 1).map((r) => r.query), ["b", "c", "a"]);
});

test("firstDir and orderText: a list's first order and its words follow the catalogue's direction", () => {
  // Worst first: ascending where higher is better, descending where lower is (ECE); a
  // "neither" measure (a share of the data) or an id sorts ascending and says no worst.
  assert.equal(Rows.firstDir("higher"), 1);
  assert.equal(Rows.firstDir("lower"), -1);
  assert.equal(Rows.firstDir("neither"), 1);
  assert.equal(Rows.firstDir(null), 1);
  assert.equal(Rows.orderText("p-MRR", 1, "higher"), "worst first on p-MRR");
  assert.equal(Rows.orderText("p-MRR", -1, "higher"), "best first on p-MRR");
  assert.equal(Rows.orderText("ECE", -1, "lower"), "worst first on ECE");
  assert.equal(Rows.orderText("ECE", 1, "lower"), "best first on ECE");
  assert.equal(Rows.orderText("Positive rate", 1, "neither"), "sorted by Positive rate, ascending");
  assert.equal(Rows.orderText("Positive rate", -1, "neither"), "sorted by Positive rate, descending");
  assert.equal(Rows.orderText("Query", 1, null), "sorted by Query, ascending");
});

test("orderMetrics: the primary, the signed, the original run's, the altered's, the rest", () => {
  const signed = (m) => m === "p-MRR" || m === "IRS";
  assert.deepEqual(Rows.orderMetrics(["altered/nDCG@10", "IRS", "original/nDCG@10", "p-MRR", "R@1"], "IRS", signed),
    ["IRS", "p-MRR", "original/nDCG@10", "altered/nDCG@10", "R@1"]);
  assert.deepEqual(Rows.orderMetrics(["R@5", "R@1", "RR@10"], "RR@10", signed), ["RR@10", "R@1", "R@5"]);
});

test("defaultMetric: the one asked for, else the primary, else the fallback", () => {
  assert.equal(Rows.defaultMetric(["a", "b"], "b", "a"), "a");
  assert.equal(Rows.defaultMetric(["a", "b"], "b", "zz"), "b");
  assert.equal(Rows.defaultMetric(["a", "b"], "c", null), "a");
  assert.equal(Rows.defaultMetric(["a", "b"], "c", null, "b"), "b");
  assert.deepEqual(Rows.metricsOf([{ metrics: ["a", "b"] }, { metrics: ["c", "a"] }]), ["a", "b", "c"]);
});

test("disagreements: the queries both have, largest difference first, counts of each way", () => {
  const a = [row("q1", { m: 0.1 }), row("q2", { m: 0.5 }), row("q3", { m: 0.2 }), row("q4", { m: null }), row("only-a", { m: 1 })];
  const b = [row("q1", { m: 0.4 }), row("q2", { m: 0.1 }), row("q3", { m: 0.2 }), row("q4", { m: 0.3 })];
  const found = Rows.disagreements(a, b, "m");
  assert.deepEqual(found.pairs.map((p) => [p.a.query, p.d]), [["q2", 0.1 - 0.5], ["q1", 0.4 - 0.1], ["q3", 0], ["q4", null]]);
  assert.deepEqual([found.better, found.worse, found.same], [1, 1, 1]);
  // A task's query and another task's query of the same id are different queries.
  const other = [row("q1", { m: 0.9 }, { task: "t/b" })];
  assert.deepEqual(Rows.disagreements(a, other, "m").pairs, []);
});

test("heatRows: one row per query, grouped, hardest first, a missing list's cells null", () => {
  const col0 = [row("x1", { m: 0.9 }, { group: "S1" }), row("x2", { m: 0.1 }, { group: "C1" }), row("x3", { m: 0.5 }, { group: "S1" })];
  const col1 = [row("x1", { m: 0.7 }, { group: "S1" }), row("x3", { n: 1 }, { group: "S1" })];
  const rows = Rows.heatRows([{ rows: col0, col: 0 }, { rows: null, col: 1 }, { rows: col1, col: 2 }], 3, "m",
    (q) => q.group, null);
  assert.deepEqual(rows.map((r) => [r.group, r.query, r.v]), [
    ["C1", "x2", [0.1, null, null]],
    ["S1", "x3", [0.5, null, null]],
    ["S1", "x1", [0.9, null, 0.7]],
  ]);
  assert.equal(rows[2].mean, 0.8);
  // Groups in a given order (languages in the family's task order); a row without any
  // figure last in its group.
  const langs = Rows.heatRows([{ rows: [row("p1", { m: 0.2 }, { task: "t/hin" }), row("p2", {}, { task: "t/hin" }),
    row("p1", { m: 0.4 }, { task: "t/asm" })], col: 0 }], 1, "m",
  (q) => (q.task === "t/hin" ? "Hindi" : "Assamese"), ["Hindi", "Assamese"]);
  assert.deepEqual(langs.map((r) => [r.group, r.query]), [["Hindi", "p1"], ["Hindi", "p2"], ["Assamese", "p1"]]);
});

test("shownColumns: a link's columns in the tables' order, each once, whatever order it names them in", () => {
  // ?subs=c,a showed c before a while the note above the map said "best first"; the
  // picker's button writes the ticked ones in the tables' order, and so is a link read.
  const candidates = ["a", "b", "c", "d-old"];
  assert.deepEqual(Rows.shownColumns(candidates, ["c", "a"], 2, 50), ["a", "c"]);
  assert.deepEqual(Rows.shownColumns(candidates, ["d-old", "c", "c", "nope", ""], 2, 50), ["c", "d-old"]);
  // None picked (or none known): the first ``shown`` of the tables' order.
  assert.deepEqual(Rows.shownColumns(candidates, [""], 2, 50), ["a", "b"]);
  assert.deepEqual(Rows.shownColumns(candidates, ["nope"], 2, 50), ["a", "b"]);
  // At most ``max``, the best of those picked.
  assert.deepEqual(Rows.shownColumns(candidates, ["d-old", "c", "b"], 2, 2), ["b", "c"]);
});

test("colour: white at the low end (or 0 when signed), blue up, red the wrong way", () => {
  const plain = { signed: false, low: 0, high: 1 };
  const signed = { signed: true, low: -1, high: 1 };
  assert.equal(Rows.colour(0, plain), "rgb(255,255,255)");
  assert.equal(Rows.colour(1, plain), "rgb(50,135,195)");
  assert.equal(Rows.colour(2, plain), "rgb(50,135,195)");   // beyond the range: its end
  assert.equal(Rows.colour(0, signed), "rgb(255,255,255)");
  assert.equal(Rows.colour(1, signed), "rgb(55,125,255)");
  assert.equal(Rows.colour(-1, signed), "rgb(255,85,85)");
  assert.equal(Rows.colour(-0.5, signed), "rgb(255,170,170)");
  assert.equal(Rows.colour(null, plain), null);
  assert.equal(Rows.colour(undefined, signed), null);
});

test("shownRows: the list's filters, then its sort; a card steps through what it shows", () => {
  const rows = [row("q1", { m: 0.5 }, { group: "C1" }), row("q2", { m: -0.25 }, { group: "S2", original: "o2" }),
    row("q3", { m: -0.5 }, { group: "C1", task: "t/b" }), row("q10", { m: null }, { group: "C1" }),
    row("q11", { m: 0.1 }, { group: "C1" })];
  const view = (extra) => Object.assign({ key: "m", dir: 1, find: "", group: "", task: "", only: "" }, extra);
  const ids = (v) => Rows.shownRows(rows, v).map((r) => r.query);
  assert.deepEqual(ids(view()), ["q3", "q2", "q11", "q1", "q10"]);
  assert.deepEqual(ids(view({ dir: -1 })), ["q1", "q11", "q2", "q3", "q10"]);
  assert.deepEqual(ids(view({ key: "query" })), ["q1", "q2", "q3", "q10", "q11"]);
  assert.deepEqual(ids(view({ group: "C1" })), ["q3", "q11", "q1", "q10"]);
  assert.deepEqual(ids(view({ task: "t/a" })), ["q2", "q11", "q1", "q10"]);
  assert.deepEqual(ids(view({ only: "m" })), ["q3", "q2"]);
  assert.deepEqual(ids(view({ find: " Q1" })), ["q11", "q1", "q10"]);   // a part of the id
  assert.deepEqual(ids(view({ find: "o2" })), ["q2"]);                   // an original's whole id
  assert.equal(rows[0].query, "q1", "the rows given are left in their order");

  const shown = Rows.shownRows(rows, view());
  const step = Rows.neighbours(shown, "t/a", "q2");
  assert.deepEqual([step.at, step.prev.query, step.next.query], [1, "q3", "q11"]);
  assert.equal(Rows.neighbours(shown, "t/b", "q3").prev, null);
  assert.equal(Rows.neighbours(shown, "t/a", "q10").next, null);
  assert.equal(Rows.neighbours(shown, "t/b", "q2").at, -1, "a query is found in its own task");
});
