// The explorer's files as records (leaderboard/publish/site/assets/explorer/records.js):
// each format checked with both formats named, rows mapped by field name, on the files
// the committed submissions' scoring wrote (submissions/*/explain/).
// Run by tests/test_display.py through `node --test tests/js/`.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const fs = require("node:fs");
const zlib = require("node:zlib");

const REPO = path.join(__dirname, "..", "..");
const R = require(path.join(REPO, "leaderboard", "publish", "site", "assets", "explorer", "records.js"));

function read(rel) {
  const bytes = fs.readFileSync(path.join(REPO, rel));
  return JSON.parse((rel.endsWith(".gz") ? zlib.gunzipSync(bytes) : bytes).toString("utf8"));
}

const WTR = "submissions/bm25s/explain/followtable/wtr";
const T4 = "submissions/use-multilingual-v3-numpy/explain/pi-indic-val150/t4/hin";

test("a query list's rows become records by name, figures keyed by metric", () => {
  const doc = read(WTR + ".queries.json.gz");
  assert.equal(R.queryListProblem(doc, "followtable/wtr"), null);
  const list = R.queryList(doc);
  assert.equal(list.task, "followtable/wtr");
  assert.equal(list.primary, "IRS");
  assert.deepEqual(list.cardFiles, doc.card_files);
  assert.equal(list.corpusSize, doc.corpus_size);
  assert.equal(list.rows.length, doc.queries.length);
  doc.queries.forEach((q, i) => {
    const row = list.rows[i];
    assert.equal(row.task, "followtable/wtr");
    assert.equal(row.query, q[0]);
    assert.equal(row.original, q[1]);
    assert.equal(row.group, q[2]);
    assert.deepEqual(Object.keys(row.values), doc.metrics);
    doc.metrics.forEach((m, k) => assert.equal(row.values[m], q[3][k]));
  });
});

test("a card's documents, top lists and IRS parts are read by the file's field names", () => {
  const doc = read(WTR + ".cards.0.json.gz");
  assert.equal(R.cardsProblem(doc, "followtable/wtr"), null);
  const query = Object.keys(doc.cards)[0];
  const raw = doc.cards[query];
  const card = R.card(doc, query);
  assert.deepEqual(card.ranked, raw.n);
  assert.equal(card.changed.length, raw.c.length);
  raw.c.forEach((m, i) => doc.fields.move.forEach((f, k) => assert.equal(card.changed[i][f], m[k])));
  assert.equal(card.irs.scale, raw.s[doc.fields.irs.indexOf("scale")]);
  assert.equal(card.top.original[0].doc, raw.top.original[0][0]);
  assert.equal(R.card(doc, "no such query"), null);
  // Fields in another order, rows to match: the same records.
  const order = [6, 0, 5, 1, 4, 2, 3];
  const permuted = JSON.parse(JSON.stringify(doc));
  permuted.fields.move = order.map((i) => doc.fields.move[i]);
  for (const c of Object.values(permuted.cards)) {
    for (const key of ["c", "p"]) if (c[key]) c[key] = c[key].map((m) => order.map((i) => m[i]));
  }
  permuted.fields.irs = doc.fields.irs.slice().reverse();
  for (const c of Object.values(permuted.cards)) if (c.s) c.s = c.s.slice().reverse();
  assert.equal(R.cardsProblem(permuted, "followtable/wtr"), null);
  assert.deepEqual(R.card(permuted, query), card);
});

test("T4: a persona's pairs, and each pair's persona and instruction by name", () => {
  const list = read(T4 + ".queries.json.gz");
  const doc = read(T4 + ".cards.0.json.gz");
  assert.equal(R.cardsProblem(doc, "pi-indic-val150/t4/hin"), null);
  const card = R.card(doc, list.queries[0][0]);
  assert.ok(card.pairs.length > 0 && "probability" in card.pairs[0]);
  const part = read("submissions/use-multilingual-v3-numpy/explain/texts/" + list.texts.refs.pairs + ".json.gz");
  assert.equal(R.textsProblem(part, "pairs"), null);
  const pair = card.pairs[0].pair;
  assert.deepEqual(R.pairOf(part.texts, pair), { persona: part.texts[pair][0], instruction: part.texts[pair][1] });
  assert.equal(R.pairOf(part.texts, "no such pair"), null);
  assert.equal(R.pairOf(null, pair), null);
  const persona = read("submissions/use-multilingual-v3-numpy/explain/texts/" + list.texts.refs["queries:persona"] + ".json.gz");
  assert.equal(R.textsProblem(persona, "queries:persona"), null);
  assert.match(R.textsProblem(persona, "docs"), /^holds "queries", not "docs"$/);
});

test("a file of another format is named with both formats, never read", () => {
  const list = read(WTR + ".queries.json.gz");
  assert.equal(R.queryListProblem({ ...list, format: "followboard-explain/0" }, "followtable/wtr"),
    'is in format "followboard-explain/0", and this page reads followboard-explain/1');
  assert.equal(R.queryListProblem({ ...list, format: undefined }, "followtable/wtr"),
    "is in format null, and this page reads followboard-explain/1");
  assert.equal(R.queryListProblem(list, "followtable/wqt"), 'is for task "followtable/wtr", not followtable/wqt');
  assert.equal(R.queryListProblem({ ...list, kind: "cards" }, "followtable/wtr"), 'holds "cards", not "queries"');
  assert.equal(R.queryListProblem([1, 2], "followtable/wtr"), "is not a FollowBoard file (not a JSON object)");
  const cards = read(WTR + ".cards.0.json.gz");
  // A later version of the format: a newer FollowBoard wrote the file than built the page.
  assert.equal(R.cardsProblem({ ...cards, format: "followboard-explain/2" }, "followtable/wtr"),
    'is in format "followboard-explain/2", newer than this page reads (followboard-explain/1)');
  assert.equal(R.newerFile({ ...cards, format: "followboard-explain/2" }), true);
  assert.equal(R.textsProblem({ format: "followboard-texts/3", kind: "docs", texts: {} }, "docs"),
    'is in format "followboard-texts/3", newer than this page reads (followboard-texts/2)');
  for (const format of ["followboard-explain/0", "followboard-explain/1", "followboard-texts/1",
                        "followboard-other/9", "followboard-explain/x", 2, undefined]) {
    assert.equal(R.newerFile({ ...cards, format }), false, String(format));
  }
  assert.equal(R.cardsProblem({ ...cards, fields: { ...cards.fields, move: cards.fields.move.filter((f) => f !== "irs_gain") } },
    "followtable/wtr"), "names no field \u201cmove.irs_gain\u201d");
  assert.equal(R.textsProblem({ format: "followboard-texts/1", kind: "docs", texts: {} }, "docs"),
    'is in format "followboard-texts/1", and this page reads followboard-texts/2');
  const manifest = read("submissions/bm25s/explain/manifest.json");
  assert.equal(R.manifestProblem(manifest), null);
  assert.equal(R.manifestProblem({ ...manifest, format: "followboard-explain-manifest/1" }),
    'is in format "followboard-explain-manifest/1", and this page reads followboard-explain-manifest/2');
});

test("a part of document snippets names those it cut; a whole text as long is not", () => {
  // The page took a text of the index's snippet_chars (280) code points as cut: Assamese
  // instruction i31, whole at 280, was shown with an ellipsis as "the first 280 characters".
  const list = read("submissions/bm25s/explain/pi-indic-val150/t1/asm.queries.json.gz");
  const docs = read("submissions/bm25s/explain/texts/" + list.texts.refs.docs + ".json.gz");
  assert.equal(R.textsProblem(docs, "docs"), null);
  const cut = R.cutDocs(docs);
  assert.equal(Array.from(docs.texts.i31).length, 280);
  assert.equal(cut.i31, undefined);
  assert.equal(cut.i107, true);
  assert.equal(Object.keys(cut).length, docs.cut.length);
  const { cut: named, ...unnamed } = docs;
  assert.equal(R.textsProblem(unnamed, "docs"), "lacks its list of the texts it cut");
  // a part of queries cuts nothing and names nothing
  const queries = read("submissions/bm25s/explain/texts/" + list.texts.refs["queries:run"] + ".json.gz");
  assert.equal(R.textsProblem(queries, "queries:run"), null);
  assert.equal("cut" in queries, false);
});

test("a snippet cut between two characters is shorter than the limit, and says how long", () => {
  // Hindi persona p84 was cut after its 280th code point, a virama ("\u0915\u094d") whose
  // consonant was cut off: it ends before the conjunct, and says it shows 278 characters.
  const C = require(path.join(REPO, "leaderboard", "publish", "site", "assets", "explorer", "common.js"));
  const list = read("submissions/bm25s/explain/pi-indic-val150/t3/hin.queries.json.gz");
  const docs = read("submissions/bm25s/explain/texts/" + list.texts.refs.docs + ".json.gz");
  const text = docs.texts.p84;
  assert.equal(Array.from(text).length, 278);
  assert.equal(text.slice(-2), "\u0905\u092a");
  assert.equal(R.cutDocs(docs).p84, true);
  assert.deepEqual(C.snippet(text, true), { text: text + "\u2026", cut: true, words: "the start of the text" });
});

test("the index: its format, then every key the views read", () => {
  const index = {
    format: R.INDEX_FORMAT, metrics: {}, submissions: {}, order: [], group_names: {},
    directions: { hi: "ltr" },
    tasks: { "t/a": { title: "T A", label: "A", primary: "m", family: "t", file: "explore/tasks/t/a.json",
                      lang: { query: "hi", docs: "hi" } } },
    families: { t: { title: "T", line: "T", part: null, group_by: "language", tasks: ["t/a"], columns: [],
                     unranked: [], unscored: [] } },
  };
  assert.equal(R.indexProblem(index), null);
  assert.equal(R.indexProblem({ ...index, format: "followboard-explorer/1" }),
    'is in format "followboard-explorer/1", and this page reads followboard-explorer/9');
  const { line, ...noLine } = index.families.t;
  assert.equal(R.indexProblem({ ...index, families: { t: noLine } }), "lacks \u201cfamilies.t.line\u201d");
  // An index of format 6 gave its columns as "ranked", with nothing to mark one unranked.
  const { columns, unranked, unscored, ...six } = index.families.t;
  assert.equal(R.indexProblem({ ...index, families: { t: { ...six, ranked: [] } } }),
    "lacks \u201cfamilies.t.columns\u201d, \u201cfamilies.t.unranked\u201d, \u201cfamilies.t.unscored\u201d");
  const { order, group_names, ...bare } = index;
  assert.equal(R.indexProblem(bare), "lacks \u201corder\u201d, \u201cgroup_names\u201d");
});

test("a heatmap's columns: the index's order, those scored off the pin or not on every task marked", () => {
  // explorer.py heatmap_columns: positions in the index's order, the tables' order (the
  // ranked first, then the unranked by their own figure, then those without a figure
  // on every task of the family), the revision of each unranked one, and which are
  // without a figure on every task (the picker numbered them as if ranked).
  const order = ["a", "b-old", "c", "d-old", "e-part"];
  const fam = { columns: [2, 0, 3, 1, 4], unranked: [{ submission: 3, scored_on: "x/Data@0123abcd" },
                                                     { submission: 1, scored_on: "x/Data@4567ef01" }],
                unscored: [4] };
  assert.deepEqual(R.heatColumns(fam, order), [
    { slug: "c", scoredOn: null, unscored: false }, { slug: "a", scoredOn: null, unscored: false },
    { slug: "d-old", scoredOn: "x/Data@0123abcd", unscored: false },
    { slug: "b-old", scoredOn: "x/Data@4567ef01", unscored: false },
    { slug: "e-part", scoredOn: null, unscored: true }]);
  assert.deepEqual(R.heatColumns({ columns: [0], unranked: [], unscored: [] }, order),
    [{ slug: "a", scoredOn: null, unscored: false }]);
});

test("a task's texts are marked with the language and direction the index gives", () => {
  const index = {
    directions: { en: "ltr", ur: "rtl", hi: "ltr" },
    tasks: { "t3/urd-hin": { lang: { query: "ur", docs: "hi" } }, "mcl/fas": { lang: { query: "en", docs: "fa" } } },
  };
  assert.deepEqual(R.textLanguage(index, "t3/urd-hin", "query"), { lang: "ur", dir: "rtl" });
  assert.deepEqual(R.textLanguage(index, "t3/urd-hin", "docs"), { lang: "hi", dir: "ltr" });
  // A tag whose direction the index does not give, or a task it does not know: unknown,
  // never the page's English, and the browser finds the direction from the text.
  assert.deepEqual(R.textLanguage(index, "mcl/fas", "docs"), { lang: "", dir: "auto" });
  assert.deepEqual(R.textLanguage(index, "no/task", "query"), { lang: "", dir: "auto" });
});

test("a task file's entries by the names its fields give, whatever their order", () => {
  const order = ["sub-a", "sub-b", "sub-c"];
  const doc = { task: "t/a", fields: ["submission", "primary", "explained"], submissions: [[2, 0.5, 1], [0, 0.25, 0]] };
  assert.equal(R.taskFileProblem(doc, "t/a"), null);
  const want = [{ slug: "sub-c", primary: 0.5, explained: true }, { slug: "sub-a", primary: 0.25, explained: false }];
  assert.deepEqual(R.taskEntries(doc, order), want);
  const moved = { task: "t/a", fields: ["explained", "submission", "primary"], submissions: [[1, 2, 0.5], [0, 0, 0.25]] };
  assert.deepEqual(R.taskEntries(moved, order), want);
  assert.equal(R.taskFileProblem({ task: "t/a", submissions: [] }, "t/a"),
    "names no field \u201csubmission\u201d, \u201cprimary\u201d, \u201cexplained\u201d");
  assert.equal(R.taskFileProblem(doc, "t/b"), "is not the task file of t/b");
});

test("the card file of a position: the last slice that starts at or before it", () => {
  assert.equal(R.cardFileOf([0], 500), 0);
  assert.equal(R.cardFileOf([0, 79, 158, 237], 0), 0);
  assert.equal(R.cardFileOf([0, 79, 158, 237], 78), 0);
  assert.equal(R.cardFileOf([0, 79, 158, 237], 79), 1);
  assert.equal(R.cardFileOf([0, 79, 158, 237], 266), 3);
});

test("family lines come from the index's line and part, not from titles", () => {
  const fam = (title, line, part) => ({ title: title, line: line, part: part, tasks: [title + "/1"] });
  const lines = R.familyLines({
    followir: fam("FollowIR", "FollowIR", null),
    "t2/hin": fam("T2 cross-lingual from Hindi", "T2 cross-lingual", "from Hindi"),
    wtr: fam("FollowTable WTR from the web", "FollowTable WTR from the web", null),
    "t2/tam": fam("T2 cross-lingual from Tamil", "T2 cross-lingual", "from Tamil"),
  });
  assert.deepEqual(lines.map((l) => [l.title, l.families.map((f) => f.id)]), [
    ["FollowIR", ["followir"]],
    ["T2 cross-lingual", ["t2/hin", "t2/tam"]],
    ["FollowTable WTR from the web", ["wtr"]],
  ]);
  assert.deepEqual(lines[1].families.map((f) => f.part), ["from Hindi", "from Tamil"]);
});
