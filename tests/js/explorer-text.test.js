// The explorer's pure text functions (leaderboard/publish/site/assets/explorer/text.js).
// Run by tests/test_display.py through `node --test tests/js/`.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const FBXText = require(path.join(__dirname, "..", "..", "leaderboard", "publish", "site",
  "assets", "explorer", "text.js"));

// [op, word] of each of wordDiff's [op, word, space].
const opWords = (ops) => ops.map((o) => o.slice(0, 2));

test("wordDiff keeps the common words and marks what each side alone has", () => {
  assert.deepEqual(opWords(FBXText.wordDiff("find tables about cars", "find tables about red cars")),
    [["=", "find"], ["=", "tables"], ["=", "about"], ["+", "red"], ["=", "cars"]]);
  assert.deepEqual(opWords(FBXText.wordDiff("a b c", "a x c")),
    [["=", "a"], ["-", "b"], ["+", "x"], ["=", "c"]]);
  // Whitespace of any kind separates words; none are empty.
  assert.deepEqual(FBXText.wordDiff("  a\n\tb ", "a b"), [["=", "a", " "], ["=", "b", " "]]);
  assert.deepEqual(opWords(FBXText.wordDiff("", "new words")), [["+", "new"], ["+", "words"]]);
  assert.deepEqual(FBXText.wordDiff("old", ""), [["-", "old", ""]]);
});

test("wordDiff cuts a text without spaces into the words of its language", () => {
  // mFollowIR's Chinese instructions put no space between words: the whole instruction
  // was one word, shown all deleted and all inserted for a change of two characters.
  const ops = FBXText.wordDiff("查找关于气候变化的文件。", "查找关于气候变化的新闻文件。", "zh");
  assert.deepEqual(ops.filter((o) => o[0] !== "=").map((o) => o.slice(0, 2)), [["+", "新闻"]]);
  assert.equal(ops.map((o) => o[2] + o[1]).join(""), "查找关于气候变化的新闻文件。");
  // A spaced language keeps its spaces, punctuation apart from its word.
  const en = FBXText.wordDiff("about cars.", "about red cars, not vans.", "en");
  assert.deepEqual(en.filter((o) => o[0] !== "=").map((o) => o[1]), ["red", ",", "not", "vans"]);
  assert.equal(en.filter((o) => o[0] !== "-").map((o, i) => (i ? o[2] : "") + o[1]).join(""),
    "about red cars, not vans.");
});

test("wordDiff's kept words are a longest common subsequence", () => {
  const a = "the quick brown fox jumps over the lazy dog".split(" ");
  const b = "the brown dog jumps over a quick lazy fox".split(" ");
  const ops = FBXText.wordDiff(a.join(" "), b.join(" "));
  assert.deepEqual(ops.filter((o) => o[0] !== "+").map((o) => o[1]), a);
  assert.deepEqual(ops.filter((o) => o[0] !== "-").map((o) => o[1]), b);
  // LCS of the two: "the brown jumps over lazy" (5 words); none longer exists.
  assert.equal(ops.filter((o) => o[0] === "=").length, 5);
});

test("editDistance counts insertions, deletions and substitutions", () => {
  assert.equal(FBXText.editDistance("", ""), 0);
  assert.equal(FBXText.editDistance("kitten", "sitting"), 3);
  assert.equal(FBXText.editDistance("100-chnged", "100-changed"), 1);
  assert.equal(FBXText.editDistance("abc", ""), 3);
});

test("closest offers up to three near ids, nearest first", () => {
  const ids = ["100-changed", "100-original", "101-changed", "102-changed", "fix-a", "fix-b"];
  assert.deepEqual(FBXText.closest("100-chnged", ids), ["100-changed", "101-changed", "102-changed"]);
  assert.deepEqual(FBXText.closest("fix-z", ids), ["fix-a", "fix-b"]);
  assert.deepEqual(FBXText.closest("something else", ids), []);
  // Ties in code-unit order, whatever order the ids came in.
  assert.deepEqual(FBXText.closest("q1", ["q3", "q2"]), ["q2", "q3"]);
});

test("sharedTitle names what a list's task families have in common", () => {
  // A list of the four FollowTable datasets was titled after the first one alone.
  assert.equal(FBXText.sharedTitle(["FollowTable WQT", "FollowTable WTR", "FollowTable TArX"]),
    "FollowTable");
  assert.equal(FBXText.sharedTitle([
    "PI-Indic val150 T2 cross-lingual persona to instruction from Assamese",
    "PI-Indic val150 T2 cross-lingual persona to instruction from Bengali"]),
    "PI-Indic val150 T2 cross-lingual persona to instruction");
  assert.equal(FBXText.sharedTitle(["FollowTable WQT"]), "FollowTable WQT");
  assert.equal(FBXText.sharedTitle(["A b", "C d"]), "");
});
