/* Fetching the explorer's files, and what a reader is told when one cannot be had.
 *
 * A file is fetched once per page (FBXState.files), gzipped or not: its magic number
 * says which (a server may also have inflated it already, with Content-Encoding), and
 * DecompressionStream inflates it. A file of the site is fetched named with the page's
 * build (?v=<build>, FBXFrame.BUILD): the server lets a browser or proxy keep a file for a
 * while, and a page never reads another deploy's copy of the index, a task's list or a
 * submission's files that the site holds (a run store's files are named by their commit).
 */
var FBXLoad = (function () {
  "use strict";

  var state = FBXState;
  var SITE_ROOT = FBXFrame.SITE_ROOT, PAGE = FBXFrame.PAGE, BUILD = FBXFrame.BUILD;

  // Why a file could not be had: "file" (a page opened from disk), "network", "status"
  // (with the HTTP status), "gzip" (no DecompressionStream) or "json".
  function LoadError(url, kind, status) {
    this.url = url; this.kind = kind; this.status = status;
  }

  // What the reader is shown instead of a view: a sentence and what to do about it;
  // ``reload``, whether reloading the page is what to do (frame.js errorBox offers it).
  // ``file``: the file, of the site or a store, it is about (main.js asks then whether
  // the site was deployed anew since the page was loaded, which would explain it).
  function UserError(message, hint, file) { this.message = message; this.hint = hint; this.file = file || null; }

  // What writes a submission's explanation files that are missing or of another version
  // (data.js says which): the publish run, which scores every merged submission whose
  // files are missing or stale again; a submitter's `leaderboard score` keeps
  // them in the run store's cache instead (explain_writers.placement), so it is not what
  // a site's reader, or a maintainer building a site, runs.
  var WRITTEN_BY = "On the leaderboard\u2019s own site they are written by its publish run " +
    "(leaderboard ci score-pending), which writes missing or stale ones anew; for a site you " +
    "build from a checkout, run leaderboard ci score-pending there, then leaderboard build.";
  var STALE_EXPLANATIONS = "The page and the submission\u2019s explanation files come from " +
    "different versions of FollowBoard. " + WRITTEN_BY;
  // A file of a newer format than the page reads: the page, not the file, is behind.
  var NEWER_FILES = "The file was written by a newer version of FollowBoard than built this " +
    "page. On the leaderboard\u2019s own site, tell its maintainers; for a site you build " +
    "from a checkout, update FollowBoard there, then run leaderboard build.";
  var NO_EXPLANATIONS = "It was scored before the explorer existed, or the site\u2019s build " +
    "could not read its files (its warnings say why). " + WRITTEN_BY;

  // A file of another build than the page (FBXRecords.otherBuild), or the site's index
  // now of another (main.js): the site was deployed anew since the page was loaded, and
  // the new files are what the server gives for the old page's; its format, or a file it
  // lacks, says nothing of the file.
  function updated(what, url) {
    var e = new UserError("The site was updated since this page was loaded: the " + what +
      " (" + shortUrl(url) + ") is of another build of the site than this page.",
      "Reload the page to see the site as it is now.");
    e.reload = true;
    return e;
  }

  // Where ``url`` is fetched from: a file of the site named with the page's build.
  function fetchUrl(url) {
    var u = new URL(url, SITE_ROOT);
    if (BUILD && u.href.indexOf(SITE_ROOT.href) === 0) u.searchParams.set("v", BUILD);
    return u.href;
  }

  function load(url) {
    url = String(url);
    if (state.files.has(url)) return state.files.get(url);
    var p = (async function () {
      var resp;
      try { resp = await fetch(fetchUrl(url)); }
      catch (e) { throw new LoadError(url, location.protocol === "file:" ? "file" : "network"); }
      if (!resp.ok) throw new LoadError(url, "status", resp.status);
      var bytes = new Uint8Array(await resp.arrayBuffer());
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
        if (typeof DecompressionStream === "undefined") throw new LoadError(url, "gzip");
        var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
        bytes = new Uint8Array(await new Response(stream).arrayBuffer());
      }
      try { return JSON.parse(new TextDecoder().decode(bytes)); }
      catch (e) { throw new LoadError(url, "json"); }
    })();
    state.files.set(url, p);
    p.catch(function () { state.files.delete(url); });
    return p;
  }

  // Where a file is, as the reader should see it: relative to the site when it is there.
  function shortUrl(url) { return String(url).replace(SITE_ROOT.href, ""); }

  function loadMessage(err, what) {
    var message = fileMessage(err, what);
    message.file = err.url;
    return message;
  }

  function fileMessage(err, what) {
    var where = shortUrl(err.url);
    if (err.kind === "file") {
      var folder = decodeURIComponent(SITE_ROOT.pathname).replace(/\/$/, "");  // built into
      return new UserError("Your browser does not let a page opened from disk (file://) load " +
        "the files the explorer reads (" + where + ").", "Serve the folder the site was built into instead: python -m http.server -d '" + folder + "' 8000, and open http://localhost:8000/" + PAGE + location.search);
    }
    if (err.kind === "status" && err.status === 404) {
      return new UserError("Missing file: the " + what + " (" + where + ", HTTP 404).",
        "The site\u2019s index names this file, but the server does not have it: the site was published without it, or the run store it is fetched from lacks it. " +
        "On a site you build, build it again (leaderboard build) and publish the whole folder; on the leaderboard\u2019s own site, tell its maintainers.");
    }
    if (err.kind === "status") return new UserError("The " + what + " could not be loaded: " + where + " (HTTP " + err.status + ").");
    if (err.kind === "gzip") return new UserError("This browser cannot inflate gzip files (DecompressionStream); use a current Chrome, Edge, Firefox or Safari.");
    if (err.kind === "json") return new UserError("The " + what + " is damaged: " + where + " is not JSON.");
    return new UserError("The " + what + " could not be loaded (" + where + "): the network or the server did not answer.");
  }

  // A file's JSON, or the reader's message naming ``what`` it is.
  async function need(url, what) {
    try { return await load(url); }
    catch (e) { if (e instanceof LoadError) throw loadMessage(e, what); throw e; }
  }

  // A file whose ``problem`` (records.js: "is in format X, and this page reads Y") is
  // not null: the message names the file, what it is and the problem.
  // ``doc``: the file as read, whose format, when newer than the page's
  // (FBXRecords.newerFile), makes the hint NEWER_FILES.
  function misread(what, url, problem, hint, doc) {
    return new UserError("The " + what + " (" + shortUrl(url) + ") " + problem + ".",
      FBXRecords.newerFile(doc) ? NEWER_FILES : hint, url);
  }

  return { LoadError: LoadError, UserError: UserError, load: load, need: need, fetchUrl: fetchUrl, updated: updated,
           loadMessage: loadMessage, misread: misread, STALE_EXPLANATIONS: STALE_EXPLANATIONS,
           NO_EXPLANATIONS: NO_EXPLANATIONS, NEWER_FILES: NEWER_FILES };
})();

if (typeof module !== "undefined") module.exports = FBXLoad;
