// What the explorer tells a reader when a file cannot be had, or a submission's
// explanation files are missing or of another version
// (leaderboard/publish/site/assets/explorer/load.js). Run through `node --test tests/js/`.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

// What the page's earlier parts give load.js (state.js, frame.js).
global.FBXState = { files: new Map() };
global.FBXFrame = { SITE_ROOT: new URL("http://site.test/board/"), PAGE: "explore.html",
                    BUILD: "0123456789ab" };
global.location = new URL("http://site.test/board/explore.html");
global.FBXRecords = require(path.join(__dirname, "..", "..", "leaderboard", "publish", "site",
  "assets", "explorer", "records.js"));
const L = require(path.join(__dirname, "..", "..", "leaderboard", "publish", "site", "assets",
  "explorer", "load.js"));

test("missing or stale explanation files name what writes them, not a submitter's score", () => {
  // The hints said "scoring it again (leaderboard score submissions/<id>) writes them",
  // while for a merged submission score keeps the files in the run store's cache, out of
  // its folder, and the site's files come from the publish run (leaderboard ci
  // score-pending), which writes missing or stale ones anew: a site visitor can run
  // nothing, and a maintainer building a site from a checkout runs that, then build.
  for (const hint of [L.STALE_EXPLANATIONS, L.NO_EXPLANATIONS]) {
    assert.doesNotMatch(hint, /leaderboard score\b/);
    assert.match(hint, /On the leaderboard\u2019s own site they are written by its publish run \(leaderboard ci score-pending\), which writes missing or stale ones anew/);
    assert.match(hint, /for a site you build from a checkout, run leaderboard ci score-pending there, then leaderboard build\.$/);
  }
  assert.match(L.STALE_EXPLANATIONS, /^The page and the submission\u2019s explanation files come from different versions of FollowBoard\. /);
  // A submission shown without files: scored before the explorer, or the build could not
  // read them (tests/test_explorer_browser.py's fix-old, whose explain/ is gone).
  assert.match(L.NO_EXPLANATIONS, /^It was scored before the explorer existed, or the site\u2019s build could not read its files/);
});

test("a missing file (HTTP 404) is said to be missing from the site or its run store", () => {
  // The hint said the submission may have been scored before the explorer existed, which
  // the index says instead (no explanation files: no file is asked for), and to run
  // leaderboard score; the index names a file the server does not have.
  const url = new URL("http://site.test/board/explore/data/a/followir/core17.cards.0.json.gz");
  const message = L.loadMessage(new L.LoadError(url, "status", 404), "query cards of A on followir/core17");
  assert.equal(message.message, "Missing file: the query cards of A on followir/core17 (explore/data/a/followir/core17.cards.0.json.gz, HTTP 404).");
  assert.doesNotMatch(message.hint, /leaderboard score\b|scored before the explorer/);
  assert.match(message.hint, /^The site\u2019s index names this file, but the server does not have it: the site was published without it, or the run store it is fetched from lacks it\./);
  assert.match(message.hint, /build it again \(leaderboard build\) and publish the whole folder/);
});

test("a file a newer FollowBoard wrote says the page is behind, not the file", () => {
  // Cards or text parts of a later format than the page reads were met with the hint for
  // stale files (run leaderboard ci score-pending), whose scoring would write them back
  // in the page's older format: the page is what a newer FollowBoard must build again.
  const url = new URL("http://site.test/board/explore/data/a/t/x.json.gz");
  const newer = { format: "followboard-texts/3", kind: "docs", texts: {} };
  const problem = global.FBXRecords.textsProblem(newer, "docs");
  const message = L.misread("text part of t", url, problem, L.STALE_EXPLANATIONS, newer);
  assert.equal(message.message, "The text part of t (explore/data/a/t/x.json.gz) is in format " +
    "\"followboard-texts/3\", newer than this page reads (followboard-texts/2).");
  assert.equal(message.hint, L.NEWER_FILES);
  assert.match(L.NEWER_FILES, /^The file was written by a newer version of FollowBoard than built this page\. /);
  assert.match(L.NEWER_FILES, /update FollowBoard there, then run leaderboard build\.$/);
  const older = { format: "followboard-texts/1", kind: "docs", texts: {} };
  assert.equal(L.misread("text part of t", url, "is old", L.STALE_EXPLANATIONS, older).hint,
    L.STALE_EXPLANATIONS);
});

test("a file of the site is fetched named with the page's build, a store's file as it is", async () => {
  // A browser kept the previous deploy's explore/index.json (GitHub Pages: max-age=600)
  // and the new page read it: every file of the site is asked for with the page's build
  // (its element's data-build), which another deploy's copy is not cached under.
  assert.equal(L.fetchUrl(new URL("http://site.test/board/explore/index.json")),
    "http://site.test/board/explore/index.json?v=0123456789ab");
  assert.equal(L.fetchUrl(new URL("http://site.test/board/explore/data/a/t.cards.0.json.gz")),
    "http://site.test/board/explore/data/a/t.cards.0.json.gz?v=0123456789ab");
  const hub = "https://huggingface.co/datasets/o/r/resolve/abc/explain/t.cards.0.json.gz";
  assert.equal(L.fetchUrl(new URL(hub)), hub);
  const asked = [];
  global.fetch = async (url) => { asked.push(url); return new Response("{\"a\": 1}"); };
  assert.deepEqual(await L.load(new URL("http://site.test/board/explore/tasks/t.json")), { a: 1 });
  assert.deepEqual(asked, ["http://site.test/board/explore/tasks/t.json?v=0123456789ab"]);
});

test("a file of another build than the page says the site was updated: reload", () => {
  // A tab left open across a deploy (its views change without reloading), or a cached
  // explore.html, asks for ?v=<its build>; GitHub Pages ignores the query and serves the
  // new file, which the old script met with "tell its maintainers" (a newer format) or
  // "rebuild it (leaderboard build)". The index and the task files name the build that
  // wrote them: one of another build is the site updated since the page was loaded.
  const R = global.FBXRecords;
  const index = { format: "followboard-explorer/99", build: "fedcba987654" };
  assert.equal(R.otherBuild(index, "0123456789ab"), true);
  assert.equal(R.otherBuild({ ...index, build: "0123456789ab" }, "0123456789ab"), false);
  assert.equal(R.otherBuild({ format: "followboard-explorer/8" }, "0123456789ab"), true);  // before builds were named
  assert.equal(R.otherBuild(index, null), false);  // a page that names no build
  assert.equal(R.otherBuild("not an object", "0123456789ab"), false);  // the format check says what it is
  const url = new URL("http://site.test/board/explore/index.json");
  const message = L.updated("explorer's index", url);
  assert.equal(message.message, "The site was updated since this page was loaded: the explorer's " +
    "index (explore/index.json) is of another build of the site than this page.");
  assert.equal(message.hint, "Reload the page to see the site as it is now.");
  assert.equal(message.reload, true);
  assert.doesNotMatch(message.message + message.hint, /maintainers|leaderboard build/);
});
