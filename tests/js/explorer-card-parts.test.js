// A query card's slope chart (leaderboard/publish/site/assets/explorer/card-parts.js),
// drawn into a stand-in for the DOM that records elements and attributes.
// Run by tests/test_display.py through `node --test tests/js/`.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const ASSETS = path.join(__dirname, "..", "..", "leaderboard", "publish", "site", "assets");

// Just enough of a document for the explorer's h() and svg(): elements with attributes,
// children and text.
function element(tag) {
  return {
    tag: tag, attrs: {}, children: [], textContent: "",
    setAttribute(k, v) { this.attrs[k] = String(v); },
    getAttribute(k) { return this.attrs[k]; },
    appendChild(c) { this.children.push(c); return c; },
    addEventListener() {},
    set className(v) { this.attrs.class = v; },
  };
}
global.document = {
  createElement: element,
  createElementNS: (ns, tag) => element(tag),
  createTextNode: (text) => ({ tag: "#text", textContent: text, children: [] }),
};
global.FBFormat = require(path.join(ASSETS, "format.js"));
global.FBXCommon = require(path.join(ASSETS, "explorer", "common.js"));
global.FBXData = {};
const P = require(path.join(ASSETS, "explorer", "card-parts.js"));

function all(node, pred, out) {
  out = out || [];
  if (pred(node)) out.push(node);
  (node.children || []).forEach((c) => all(c, pred, out));
  return out;
}

function ticks(figure) {
  const chart = figure.children[0];
  return all(chart, (n) => n.tag === "text" && /^rank \d+$/.test(n.textContent))
    .map((n) => [Number(n.textContent.slice(5)), Number(n.attrs.y)]);
}

const MOVES = [{ doc: "a", from: 3, to: 40, fromRanked: true, toRanked: true },
               { doc: "b", from: 25, to: 2, fromRanked: true, toRanked: true }];

test("both charts of a card put rank 1 at the top (issue 35, finding 9)", () => {
  for (const deeperIsGood of [true, false]) {
    const t = ticks(P.slope(MOVES, deeperIsGood, "chart", 1001));
    const ys = t.sort((a, b) => a[0] - b[0]).map((x) => x[1]);
    assert.ok(ys.length >= 3);
    for (let i = 1; i < ys.length; i++) assert.ok(ys[i] > ys[i - 1], `deeperIsGood=${deeperIsGood}: ${ys}`);
  }
  // Colour and a dashed line, not direction, say which move the instruction asks for.
  const figure = P.slope(MOVES, true, "chart", 0);
  const moves = all(figure, (n) => n.tag === "g");
  const kinds = moves.map((g) => [g.attrs["data-doc"], g.attrs.class]);
  assert.deepEqual(kinds, [["a", "fb-x-move fb-x-good"], ["b", "fb-x-move fb-x-bad"]]);
  const dashes = moves.map((g) => g.children.find((c) => c.tag === "line").attrs["stroke-dasharray"]);
  assert.deepEqual(dashes, [undefined, "6 4"]);
});

test("the T+ axis runs to rank N + 1 only when a run leaves a document out", () => {
  const ranked = [{ rank_original: 4, rank_altered: 30 }, { rank_original: 12, rank_altered: 1 }];
  assert.equal(P.positiveAxis(ranked, 10001), 0);
  assert.equal(P.positiveAxis(ranked.concat([{ rank_original: null, rank_altered: 7 }]), 10001), 10001);
  const drawn = ticks(P.slope(MOVES, false, "chart", P.positiveAxis(ranked, 10001))).map((x) => x[0]);
  assert.deepEqual(drawn, [1, 10, 40]);   // to the deepest rank drawn, not "rank 10000"
});
