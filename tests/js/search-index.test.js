// The address Material's request for its search index is sent to
// (leaderboard/publish/site/assets/search-index.js).
// Run by tests/test_display.py through `node --test tests/js/`.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const FBSearchIndex = require(path.join(__dirname, "..", "..", "leaderboard", "publish", "site",
  "assets", "search-index.js"));

const INDEX = "http://site.test/board/search/search_index.json";

test("the search index is asked for named by its key", () => {
  assert.equal(FBSearchIndex.keyed(INDEX, INDEX, "0123456789ab"), INDEX + "?v=0123456789ab");
  assert.equal(FBSearchIndex.keyed(new URL(INDEX), INDEX, "0123456789ab"), INDEX + "?v=0123456789ab");
});

test("any other request goes as asked for, and so does the index without a key", () => {
  for (const url of ["http://site.test/board/sitemap.xml", "http://site.test/board/search/search_index.json?x=1",
                     "http://other.test/board/search/search_index.json", "search/search_index.json"]) {
    assert.equal(FBSearchIndex.keyed(url, INDEX, "0123456789ab"), url);
  }
  assert.equal(FBSearchIndex.keyed(INDEX, INDEX, ""), INDEX);
  assert.equal(FBSearchIndex.keyed(INDEX, INDEX, null), INDEX);
});
