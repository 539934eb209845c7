// The explorer's addresses (leaderboard/publish/site/assets/explorer/links.js).
// Run by tests/test_display.py through `node --test tests/js/`.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const FBXLinks = require(path.join(__dirname, "..", "..", "leaderboard", "publish", "site",
  "assets", "explorer", "links.js"));

test("href keeps the parameters that have a value, in order, escaped", () => {
  assert.equal(FBXLinks.href("explore.html", {}), "explore.html");
  assert.equal(FBXLinks.href("explore.html", { s: "bm25s", vs: null, t: "followtable/wtr", query: "", m: undefined }),
    "explore.html?s=bm25s&t=followtable%2Fwtr");
  assert.equal(FBXLinks.href("explore.html", { s: "a&b", t: "x,y" }), "explore.html?s=a%26b&t=x%2Cy");
  assert.equal(FBXLinks.href("explore.html", { query: 0 }), "explore.html?query=0");
});

test("fileUrl puts the path where a store's template says, '/' kept or escaped", () => {
  const root = new URL("http://site.test/board/");
  assert.equal(FBXLinks.fileUrl("explore/data/bm25s/", "followtable/wtr.queries.json.gz", root).href,
    "http://site.test/board/explore/data/bm25s/followtable/wtr.queries.json.gz");
  assert.equal(FBXLinks.fileUrl("https://store.test/x?path={+rel}", "a b/c.json.gz", root).href,
    "https://store.test/x?path=a%20b/c.json.gz");
  assert.equal(FBXLinks.fileUrl("https://store.test/x?path={rel}", "a b/c.json.gz", root).href,
    "https://store.test/x?path=a%20b%2Fc.json.gz");
  assert.equal(FBXLinks.fileUrl("https://hub.test/resolve/abc/", "manifest.json", root).href,
    "https://hub.test/resolve/abc/manifest.json");
});

test("taskIdsOf splits a t parameter and drops blanks", () => {
  assert.deepEqual(FBXLinks.taskIdsOf("followir/core17, followir/news21,,"), ["followir/core17", "followir/news21"]);
  assert.deepEqual(FBXLinks.taskIdsOf(null), []);
  assert.deepEqual(FBXLinks.taskIdsOf(""), []);
});

test("listView reads the query list's sort and filters from an address; listViewParams writes them", () => {
  const read = (q) => FBXLinks.listView(new URLSearchParams(q));
  assert.deepEqual(read(""), { key: "", dir: 0, find: "", group: "", task: "", only: "" });
  const view = read("s=x&t=a,b&m=query&dir=desc&find=1_&g=C2&task=a&only=p-MRR");
  assert.deepEqual(view, { key: "query", dir: -1, find: "1_", group: "C2", task: "a", only: "p-MRR" });
  assert.equal(FBXLinks.href("explore.html", FBXLinks.listViewParams(view)),
    "explore.html?m=query&dir=desc&find=1_&g=C2&task=a&only=p-MRR");
  assert.equal(FBXLinks.href("explore.html", FBXLinks.listViewParams(read("m=p-MRR"))), "explore.html?m=p-MRR");
  // dir is written only where it is not the column's first order (``first``, rows.js
  // firstDir: worst first, descending on a measure better lower), and read back so.
  assert.equal(read("m=ECE&dir=asc").dir, 1);
  const params = (view) => FBXLinks.href("explore.html", FBXLinks.listViewParams(view));
  const base = { find: "", group: "", task: "", only: "" };
  assert.equal(params({ ...base, key: "ECE", dir: -1, first: -1 }), "explore.html?m=ECE");
  assert.equal(params({ ...base, key: "ECE", dir: 1, first: -1 }), "explore.html?m=ECE&dir=asc");
  assert.equal(params({ ...base, key: "p-MRR", dir: 1, first: 1 }), "explore.html?m=p-MRR");
  assert.equal(params({ ...base, key: "p-MRR", dir: -1, first: 1 }), "explore.html?m=p-MRR&dir=desc");
});
