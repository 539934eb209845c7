/* What the views read: the index (submissions, tasks, heatmap families, what each metric
 * is) and each submission's explanation files, every file checked against its format and
 * mapped to records (records.js) before a view sees it; a view never reads a raw file.
 */
var FBXData = (function () {
  "use strict";

  var R = FBXRecords, L = FBXLoad, UserError = FBXLoad.UserError, state = FBXState, own = FBXCommon.own;
  var SITE_ROOT = FBXFrame.SITE_ROOT, BUILD = FBXFrame.BUILD;

  // The index or a task file of another format, yet of the page's build: the build wrote
  // them so (another build's are FBXLoad.updated).
  var REBUILD = "The page and its files come from different versions of the site: rebuild it (leaderboard build).";

  function fileUrl(sub, rel) { return FBXLinks.fileUrl(sub.base, rel, SITE_ROOT); }

  // A file's JSON, once ``problem(doc)`` (records.js) finds nothing wrong with it; else
  // the reader's message naming the file, what it is, the problem and ``hint``.
  // A file the site's build writes (``built``: the index, a task file) is first held to
  // the page's build (records.js otherBuild).
  async function checked(url, what, problem, hint, built) {
    var doc = await L.need(url, what);
    if (built && R.otherBuild(doc, BUILD)) throw L.updated(what, url);
    var wrong = problem(doc);
    if (wrong) throw L.misread(what, url, wrong, hint, doc);
    return doc;
  }

  /* ---------------------------------------------------------------- the index */

  async function readIndex(path) {
    state.index = await checked(new URL(path, SITE_ROOT), "explorer's index", R.indexProblem, REBUILD, true);
  }

  // Whether the site was deployed anew since the page read its index: the index the
  // server has now (asked past the browser's cache) is of another build. Asked when a file
  // cannot be read as the page expects (main.js): a tab left open across a deploy asks
  // for files the new build lacks, or has in another format.
  async function siteUpdated() {
    if (!BUILD) return false;
    try {
      var resp = await fetch(L.fetchUrl(new URL(FBXFrame.host.getAttribute("data-index"), SITE_ROOT)),
                             { cache: "no-cache" });
      return resp.ok && R.otherBuild(await resp.json(), BUILD);
    } catch (e) { return false; }
  }

  var UNKNOWN_METRIC = { signed: false, low: 0, high: 1 };

  // What a metric key is (the measure catalogue's, through the index): label, help,
  // direction ("higher", "lower" or "neither": which way is better; none when unknown),
  // signed (shown with +, negative coloured, drawn diverging), low and high (its range).
  // The index's submissions, tasks and metrics are looked up as its own entries (own):
  // their keys come from the address.
  function metricInfo(key) { return own(state.index.metrics, key) || UNKNOWN_METRIC; }
  function signedMetric(key) { return !!metricInfo(key).signed; }
  function metricLabel(key) { return metricInfo(key).label || key; }
  function metricHelp(key) { return metricInfo(key).help || key + " of this query"; }

  function submission(slug) {
    var sub = own(state.index.submissions, slug);
    if (!sub) {
      var close = FBXText.closest(slug, Object.keys(state.index.submissions));
      throw new UserError("There is no verified submission \u201c" + slug + "\u201d.",
        close.length ? "Did you mean " + close.join(", ") + "?"
          : "The explorer\u2019s first page lists every verified submission.");
    }
    return sub;
  }

  function submissionName(slug) {
    var sub = own(state.index.submissions, slug);
    return sub ? sub.name : slug;
  }

  function taskInfo(tid) {
    var t = own(state.index.tasks, tid);
    if (!t) throw new UserError("\u201c" + tid + "\u201d is not a task any verified submission has scores for.",
      "Task ids look like followtable/wtr or pi-indic-val150/t1/hin.");
    return t;
  }

  // The tasks a view's address names (t=TASK[,TASK...]), each checked.
  function taskIds(params) {
    var ids = FBXLinks.taskIdsOf(params.get("t"));
    if (!ids.length) throw new UserError("No task given.", "Add t=TASK to the address, e.g. t=followtable/wtr.");
    ids.forEach(taskInfo);
    return ids;
  }

  // A list's title: its task's, its family's, or what the families' titles share (the
  // first task's family named a list of four datasets "FollowTable WQT (4 tasks)").
  function taskTitle(tids) {
    var index = state.index;
    if (tids.length === 1) return index.tasks[tids[0]].title;
    var titles = [];
    tids.forEach(function (t) {
      var fam = index.families[index.tasks[t].family];
      var title = fam ? fam.title : t;
      if (titles.indexOf(title) === -1) titles.push(title);
    });
    var shared = FBXText.sharedTitle(titles);
    return shared ? shared + " (" + tids.length + " tasks)" : tids.length + " tasks";
  }

  // {lang, dir} of a task's texts on ``side`` ("query" or "docs"): records.js textLanguage.
  function textLanguage(tid, side) { return R.textLanguage(state.index, tid, side); }

  function family(tid) { return state.index.families[state.index.tasks[tid].family]; }

  // FollowTable's constraint types by name ("C1" -> "C1 semantic boundary").
  function groupName(g) { return own(state.index.group_names, g) || g; }

  /* ---------------------------------------------------------------- a submission's files */

  function explained(sub) {
    if (!sub.base) {
      throw new UserError("\u201c" + sub.name + "\u201d has per-query scores but no explanation files, so its queries cannot be shown.",
        L.NO_EXPLANATIONS);
    }
  }

  // The tasks a submission's explanation files cover (its manifest's).
  async function explainedTasks(slug) {
    var sub = submission(slug);
    explained(sub);
    var doc = await checked(fileUrl(sub, "manifest.json"), "list of explained tasks of " + sub.name,
      R.manifestProblem, L.STALE_EXPLANATIONS);
    return Object.keys(doc.tasks);
  }

  // A submission's query list on a task, as records (records.js queryList), read and
  // mapped once per page.
  function queryList(slug, tid) {
    var sub;
    try { sub = submission(slug); taskInfo(tid); explained(sub); }
    catch (e) { return Promise.reject(e); }
    var url = fileUrl(sub, tid + ".queries.json.gz"), key = String(url);
    if (!state.lists.has(key)) {
      var what = "query list of " + sub.name + " on " + tid;
      // A submission without the task is said so (it got "Missing file ... scoring it
      // again writes them", about a file no scoring writes), before any file is asked for.
      var p = taskSubmissions(tid).then(function (entries) {
        if (!entries.some(function (e) { return e.slug === slug; })) {
          throw new UserError("\u201c" + sub.name + "\u201d has no scores on " + taskInfo(tid).title + ".",
            "Its page lists the tasks it was run on; the task's page lists the submissions that have it.");
        }
        return checked(url, what, function (doc) { return R.queryListProblem(doc, tid); }, L.STALE_EXPLANATIONS);
      }).then(R.queryList);
      state.lists.set(key, p);
      p.catch(function () { state.lists.delete(key); });
    }
    return state.lists.get(key);
  }

  function queryLists(slug, tids) {
    return Promise.all(tids.map(function (tid) { return queryList(slug, tid); }));
  }

  // The card of the query at ``position`` of ``list`` (records.js card), from the slice
  // of the task's cards that holds it.
  async function card(slug, list, position, qid) {
    var sub = submission(slug), tid = list.task;
    var part = R.cardFileOf(list.cardFiles, position);
    var url = fileUrl(sub, tid + ".cards." + part + ".json.gz");
    var doc = await L.need(url, "query cards of " + sub.name + " on " + tid);
    var wrong = R.cardsProblem(doc, tid);
    if (wrong) throw L.misread("file of query cards of " + sub.name + " on " + tid, url, wrong, L.STALE_EXPLANATIONS, doc);
    var out = R.card(doc, qid);
    if (!out) throw new UserError("The cards of " + sub.name + " on " + tid + " lack query " + qid + ".");
    return out;
  }

  // The submissions with scores on a task, best first on its primary metric (the task
  // file, written with the index): [{slug, primary, explained}].
  async function taskSubmissions(tid) {
    var doc = await checked(new URL(taskInfo(tid).file, SITE_ROOT), "list of submissions on " + tid,
      function (d) { return R.taskFileProblem(d, tid); }, REBUILD, true);
    return R.taskEntries(doc, state.index.order);
  }

  // The texts a task's cards show, by part name ("queries:<role>", "docs", "pairs"),
  // with their licence and source and the documents whose text is cut (``cut``: {id:
  // true}); null when the list names none. Copied into the site,
  // text parts are shared by every submission; in a store, each submission's own folder
  // holds those its cards show. A part that cannot be loaded is null (a card still shows
  // its figures without texts); one of another format is an error.
  async function texts(slug, list) {
    if (!list.texts || !list.texts.refs) return null;
    var sub = submission(slug), refs = list.texts.refs;
    var out = { licence: list.texts.licence, source: list.texts.source };
    await Promise.all(Object.keys(refs).map(async function (name) {
      var file = refs[name] + ".json.gz";
      var url = sub.texts ? new URL(sub.texts + file, SITE_ROOT) : fileUrl(sub, "texts/" + file);
      var doc;
      try { doc = await L.load(url); }
      catch (e) { out[name] = null; return; }
      var wrong = R.textsProblem(doc, name);
      if (wrong) throw L.misread("text part \u201c" + name + "\u201d of " + list.task, url, wrong, L.STALE_EXPLANATIONS, doc);
      out[name] = doc.texts;
      if (name === "docs") out.cut = R.cutDocs(doc);
    }));
    return out;
  }

  return {
    readIndex: readIndex, siteUpdated: siteUpdated, metricInfo: metricInfo, signedMetric: signedMetric,
    metricLabel: metricLabel, metricHelp: metricHelp, submission: submission,
    submissionName: submissionName, taskInfo: taskInfo, taskIds: taskIds, taskTitle: taskTitle,
    family: family, groupName: groupName, textLanguage: textLanguage, explained: explained,
    explainedTasks: explainedTasks,
    queryList: queryList, queryLists: queryLists, card: card, taskSubmissions: taskSubmissions,
    texts: texts,
  };
})();
