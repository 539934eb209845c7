/* FollowBoard query explorer: why a model follows an instruction, or not.
 *
 * One static page (explore.html) with five views, chosen by its query string:
 *   (nothing)                  pick a submission and a task
 *   ?s=SUB                     the tasks of a submission
 *   ?s=SUB&t=TASK[,TASK...]    the query list (sortable, filterable)
 *   ?s=SUB&t=TASK&query=QUERY     a query's card
 *   ...&vs=OTHER               compare mode: the queries ordered by how much the two
 *                              submissions disagree, or both cards side by side
 *   ?view=heatmap&t=TASK       queries x submissions, grouped by constraint or language
 *
 * Data: explore/index.json and explore/tasks/<task>.json (written by the site build) and
 * each submission's explanation files (written when it was scored), fetched on demand and
 * inflated here (DecompressionStream). Every figure shown is the scorer's own, read from
 * those files; its exact value is kept in the element's data-v attribute. Text from files
 * reaches the page through textContent only. Vanilla JS, no dependencies, no network
 * beyond this site and the submission's store (and GitHub, only when a reader asks for a
 * FollowTable text).
 */
(function () {
  "use strict";

  var host = document.getElementById("fb-explorer");
  if (!host) return;
  var PAGE = location.pathname.split("/").pop() || "explore.html";
  var SITE_ROOT = new URL(".", location.href);   // explore.html sits at the site root
  var HEAT_DEFAULT = 20;      // heatmap columns shown at first: the best submissions
  var HEAT_MAX = 50;          // ... and at most, whatever is picked (1,000 would be unreadable)
  var LIST_LIMIT = 500;       // list rows on the page before "Show all"
  var FETCHES_AT_ONCE = 8;

  /* ------------------------------------------------------------------ DOM helpers */

  function h(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) continue;
        if (k === "text") node.textContent = v;
        else if (k === "cls") node.className = v;
        else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
        else node.setAttribute(k, v === true ? "" : String(v));
      }
    }
    for (var i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }

  // Append children (nodes, strings, arrays of them; null and false are skipped).
  function add(node) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) { child.forEach(function (c) { add(node, c); }); continue; }
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
  }

  var SVGNS = "http://www.w3.org/2000/svg";
  function s(tag, attrs, text) {
    var node = document.createElementNS(SVGNS, tag);
    for (var k in attrs) node.setAttribute(k, attrs[k]);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* ------------------------------------------------------------------ numbers */

  // The index's format (leaderboard/publish/site/explorer.py INDEX_FORMAT): a page and an
  // index of different versions would misread each other.
  var INDEX_FORMAT = "followboard-explorer/2";
  // What each metric key is, from the explorer's index once it is read, which takes it
  // from the measure catalogue (leaderboard/core/measures.py): label, help, signed (shown
  // with +, negative coloured, drawn diverging), low and high (its range).
  var METRICS = {};
  var UNKNOWN_METRIC = { signed: false, low: 0, high: 1 };

  function metricInfo(key) { return METRICS[key] || UNKNOWN_METRIC; }
  function signedMetric(key) { return !!metricInfo(key).signed; }
  function metricLabel(key) { return metricInfo(key).label || key; }
  function metricHelp(key) { return metricInfo(key).help || key + " of this query"; }

  // A fraction as the leaderboard shows it: x100, one decimal, by the rule the tables
  // follow too (assets/format.js).
  function fmt(v, signed) { return FBFormat.score(v, signed); }

  // The exact value, for data-v: JavaScript's shortest round-trip form of the double.
  function exact(v) { return v === null || v === undefined ? "" : String(v); }

  /* ------------------------------------------------------------------ loading */

  function LoadError(url, kind, status) {
    this.url = url; this.kind = kind; this.status = status;
  }

  function UserError(message, hint) { this.message = message; this.hint = hint; }

  var cache = new Map();

  // Fetch a JSON document, gzipped or not (the magic number says which: a server may
  // also have inflated it already, with Content-Encoding).
  function load(url) {
    url = String(url);
    if (cache.has(url)) return cache.get(url);
    var p = (async function () {
      var resp;
      try { resp = await fetch(url); }
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
    cache.set(url, p);
    p.catch(function () { cache.delete(url); });
    return p;
  }

  function loadMessage(err, what) {
    var where = err.url.replace(SITE_ROOT.href, "");
    if (err.kind === "file") {
      var folder = decodeURIComponent(SITE_ROOT.pathname).replace(/\/$/, "");  // built into
      return new UserError("Your browser does not let a page opened from disk (file://) load " +
        "the files the explorer reads (" + where + ").", "Serve the folder the site was built into instead: python -m http.server -d '" + folder + "' 8000, and open http://localhost:8000/" + PAGE + location.search);
    }
    if (err.kind === "status" && err.status === 404) {
      return new UserError("Missing file: the " + what + " (" + where + ", HTTP 404).",
        "The submission may have been scored before the explorer existed: scoring it again (leaderboard score submissions/<id>) writes its explanation files.");
    }
    if (err.kind === "status") return new UserError("The " + what + " could not be loaded: " + where + " (HTTP " + err.status + ").");
    if (err.kind === "gzip") return new UserError("This browser cannot inflate gzip files (DecompressionStream); use a current Chrome, Edge, Firefox or Safari.");
    if (err.kind === "json") return new UserError("The " + what + " is damaged: " + where + " is not JSON.");
    return new UserError("The " + what + " could not be loaded (" + where + "): the network or the server did not answer.");
  }

  async function need(url, what) {
    try { return await load(url); }
    catch (e) { if (e instanceof LoadError) throw loadMessage(e, what); throw e; }
  }

  var index = null;

  function submission(slug) {
    var sub = index.submissions[slug];
    if (!sub) {
      var close = closest(slug, Object.keys(index.submissions));
      throw new UserError("There is no verified submission \u201c" + slug + "\u201d.",
        close.length ? "Did you mean " + close.join(", ") + "?" : "Pick one below.");
    }
    return sub;
  }

  function taskInfo(tid) {
    var t = index.tasks[tid];
    if (!t) throw new UserError("\u201c" + tid + "\u201d is not a task any verified submission has scores for.",
      "Task ids look like followtable/wtr or pi-indic-val150/t1/hin.");
    return t;
  }

  // A file of a submission's explanation folder. ``base`` is a URL prefix, or (a store
  // whose URL template puts the path elsewhere, leaderboard/submission/explain_files.py) holds
  // {+rel} or {rel} where the file's path goes, '/' kept or escaped as the store wants.
  function fileUrl(sub, rel) {
    var base = sub.base;
    if (base.indexOf("{+rel}") !== -1) return new URL(base.replace("{+rel}", encodeURI(rel)), SITE_ROOT);
    if (base.indexOf("{rel}") !== -1) return new URL(base.replace("{rel}", encodeURIComponent(rel)), SITE_ROOT);
    return new URL(base + rel, SITE_ROOT);
  }

  function explained(sub, slug) {
    if (!sub.base) {
      throw new UserError("\u201c" + sub.name + "\u201d has per-query scores but no explanation files, so its queries cannot be shown.",
        "It was scored before the explorer existed: scoring it again (leaderboard score submissions/" + sub.id + ") writes them.");
    }
  }

  async function queryList(slug, tid) {
    var sub = submission(slug);
    taskInfo(tid);
    explained(sub, slug);
    var doc = await need(fileUrl(sub, tid + ".queries.json.gz"), "query list of " + sub.name + " on " + tid);
    if (doc.kind !== "queries" || doc.task !== tid || !Array.isArray(doc.queries)) {
      throw new UserError("The query list of " + sub.name + " on " + tid + " is not a FollowBoard explanation file.");
    }
    return doc;
  }

  // The slice of a task's cards that holds the query at ``position`` in its list.
  async function cardFile(slug, list, position) {
    var sub = submission(slug), tid = list.task;
    var starts = list.card_files || [0], part = 0;
    while (part + 1 < starts.length && starts[part + 1] <= position) part++;
    var doc = await need(fileUrl(sub, tid + ".cards." + part + ".json.gz"), "query cards of " + sub.name + " on " + tid);
    if (doc.kind !== "cards" || !doc.cards) throw new UserError("The cards of " + sub.name + " on " + tid + " are not a FollowBoard explanation file.");
    return doc;
  }

  // [[slug, primary mean, has explanation files], ...], best first (the file names each
  // submission by its position in the index).
  async function taskSubmissions(tid) {
    var doc = await need(new URL(taskInfo(tid).file, SITE_ROOT), "list of submissions on " + tid);
    var slugs = index.order;
    return doc.submissions.map(function (e) { return [slugs[e[0]], e[1], e[2]]; });
  }

  // The texts a task's cards show: parts named "queries:<role>", "docs", "pairs".
  async function texts(slug, list) {
    if (!list.texts || !list.texts.refs) return null;
    var sub = submission(slug);
    // Copied into the site, text parts are shared by every submission; in a store, each
    // submission's own folder holds those its cards show.
    var names = Object.keys(list.texts.refs);
    var out = { licence: list.texts.licence, source: list.texts.source };
    await Promise.all(names.map(async function (name) {
      var file = list.texts.refs[name] + ".json.gz";
      try {
        var doc = await load(sub.texts ? new URL(sub.texts + file, SITE_ROOT) : fileUrl(sub, "texts/" + file));
        out[name] = doc.texts || {};
      } catch (e) { out[name] = null; }   // a card still shows its figures without texts
    }));
    return out;
  }

  function rowsOf(list) {
    var metrics = list.metrics;
    return list.queries.map(function (q) {
      var values = {};
      metrics.forEach(function (m, i) { values[m] = q[3][i]; });
      return { task: list.task, query: q[0], original: q[1], group: q[2], values: values };
    });
  }

  function moveOf(fields, m) {
    var out = {};
    fields.forEach(function (f, i) { out[f] = m[i]; });
    return out;
  }

  /* ------------------------------------------------------------------ small utilities */

  function closest(word, words) {
    function dist(a, b) {
      var prev = [], cur;
      for (var j = 0; j <= b.length; j++) prev[j] = j;
      for (var i = 1; i <= a.length; i++) {
        cur = [i];
        for (var k = 1; k <= b.length; k++) {
          cur[k] = Math.min(prev[k] + 1, cur[k - 1] + 1, prev[k - 1] + (a[i - 1] === b[k - 1] ? 0 : 1));
        }
        prev = cur;
      }
      return prev[b.length];
    }
    return words.map(function (w) { return [dist(word, w), w]; })
      .filter(function (x) { return x[0] <= Math.max(2, word.length / 3); })
      .sort(function (a, b) { return a[0] - b[0] || (a[1] < b[1] ? -1 : 1); })
      .slice(0, 3).map(function (x) { return x[1]; });
  }

  function href(params) {
    var p = new URLSearchParams();
    Object.keys(params).forEach(function (k) {
      if (params[k] !== null && params[k] !== undefined && params[k] !== "") p.set(k, params[k]);
    });
    var q = p.toString();
    return PAGE + (q ? "?" + q : "");
  }

  function go(url) {
    history.pushState(null, "", url);
    route();
  }

  // Links inside the explorer change the view without reloading the page (files already
  // loaded stay in memory); they are real links, so a new tab or a copied URL works too.
  host.addEventListener("click", function (e) {
    var a = e.target.closest("a[data-nav]");
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    go(a.getAttribute("href"));
  });
  window.addEventListener("popstate", route);

  function nav(text, params, attrs) {
    var a = h("a", attrs || {}, text);
    a.href = href(params);
    a.setAttribute("data-nav", "");
    return a;
  }

  function submissionName(slug) {
    var sub = index.submissions[slug];
    return sub ? sub.name : slug;
  }

  function subPage(slug) {
    var sub = index.submissions[slug];
    return h("a", { href: new URL(sub.page, SITE_ROOT).href }, sub.name);
  }

  /* ------------------------------------------------------------------ page frame */

  var renderId = 0;

  function show(title, body, state) {
    host.textContent = "";
    if (title) add(host, title);
    add(host, body);
    host.setAttribute("data-state", state || "ready");
  }

  function errorBox(err) {
    var box = h("div", { cls: "fb-x-error", role: "alert" },
      h("p", { cls: "fb-x-error-title" }, err.message),
      err.hint ? h("p", null, err.hint) : null,
      h("p", null, nav("Start again from the list of submissions", {})));
    return box;
  }

  function crumbs(items) {
    var out = h("nav", { cls: "fb-x-crumbs", "aria-label": "Where you are in the explorer" });
    items.forEach(function (it, i) {
      if (i) add(out, h("span", { "aria-hidden": "true" }, " \u203a "));
      add(out, it);
    });
    return out;
  }

  function taskTitle(tids) {
    if (tids.length === 1) return index.tasks[tids[0]].title;
    var fam = index.families[index.tasks[tids[0]].family];
    return (fam ? fam.title : tids[0]) + " (" + tids.length + " tasks)";
  }

  /* ------------------------------------------------------------------ start views */

  function renderStart() {
    var slugs = Object.keys(index.submissions).sort(function (a, b) {
      return index.submissions[a].name.toLowerCase() < index.submissions[b].name.toLowerCase() ? -1 : 1;
    });
    var body = h("div", { cls: "fb-x-start" });
    if (!slugs.length) {
      add(body, h("p", { cls: "fb-x-empty" }, "No verified submission yet: the explorer shows the queries of submissions scored here."));
      return show(null, body);
    }
    var filter = h("input", { type: "search", placeholder: "filter by name", "aria-label": "Filter the submissions by name", autocomplete: "off" });
    var list = h("ul", { cls: "fb-x-subs" });
    slugs.forEach(function (slug) {
      var sub = index.submissions[slug];
      var li = h("li", { "data-slug": slug },
        nav(sub.name, { s: slug }), " ",
        h("span", { cls: "fb-x-muted" }, sub.type + " \u00b7 " + sub.tasks + " task(s)" +
          (sub.base ? "" : " \u00b7 no explanation files")));
      add(list, li);
    });
    filter.addEventListener("input", function () {
      var q = filter.value.trim().toLowerCase();
      Array.prototype.forEach.call(list.children, function (li) {
        li.hidden = q && li.textContent.toLowerCase().indexOf(q) === -1;
      });
    });
    add(body, h("h2", null, "Verified submissions"),
      h("p", { cls: "fb-x-note" }, "Pick one to see its tasks, then a task to list its queries. Every verified score on the leaderboard also links to the queries behind it."),
      h("label", { cls: "fb-x-filter" }, "Name ", filter), list);
    add(body, h("h2", null, "Heatmaps of queries against submissions"), familyLinks());
    show(null, body);
  }

  // One line per heatmap family; a cross-lingual task's families ("... from Hindi") share
  // one line, each query language a link.
  function familyLinks() {
    var ul = h("ul", { cls: "fb-x-families" });
    var lines = {}, order = [];
    Object.keys(index.families).forEach(function (fid) {
      var fam = index.families[fid];
      var at = fam.title.lastIndexOf(" from ");
      var base = at === -1 ? fam.title : fam.title.slice(0, at);
      if (!lines[base]) { lines[base] = []; order.push(base); }
      lines[base].push([at === -1 ? null : fam.title.slice(at + 1), fam]);
    });
    order.forEach(function (base) {
      var items = lines[base];
      var fam = items[0][1];
      var li = h("li", null);
      if (items.length === 1 && !items[0][0]) {
        add(li, nav(base, { view: "heatmap", t: fam.tasks[0] }),
          h("span", { cls: "fb-x-muted" }, " \u00b7 " + fam.tasks.length + " task(s), by " + fam.group_by));
      } else {
        add(li, base + ": ");
        items.forEach(function (it, i) {
          if (i) add(li, " \u00b7 ");
          add(li, nav(it[0], { view: "heatmap", t: it[1].tasks[0] }));
        });
      }
      add(ul, li);
    });
    return ul;
  }

  async function renderSubmission(p) {
    var slug = p.get("s");
    var sub = submission(slug);
    explained(sub, slug);
    var manifest = await need(fileUrl(sub, "manifest.json"), "list of explained tasks of " + sub.name);
    var tids = Object.keys(manifest.tasks || {});
    var byFamily = {};
    tids.forEach(function (tid) {
      var t = index.tasks[tid];
      if (!t) return;
      (byFamily[t.family] = byFamily[t.family] || []).push(tid);
    });
    var body = h("div", { cls: "fb-x-tasks" },
      h("p", null, "Pick a task to list its queries with ", subPage(slug), "\u2019s own scores; a family\u2019s name lists all its queries at once, and \u201cheatmap\u201d sets them against the other submissions."));
    var dl = h("dl", { cls: "fb-x-family-list" });
    Object.keys(index.families).forEach(function (fid) {
      var mine = byFamily[fid];
      if (!mine) return;
      var fam = index.families[fid];
      var dd = h("dd");
      mine.forEach(function (tid, i) {
        if (i) add(dd, " \u00b7 ");
        add(dd, nav(index.tasks[tid].label, { s: slug, t: tid }, { title: index.tasks[tid].title }));
      });
      add(dl, h("dt", null, nav(fam.title, { s: slug, t: mine.join(",") }, { title: mine.length > 1 ? "all " + mine.length + " tasks' queries" : null }), " ",
        h("span", { cls: "fb-x-muted" }, "(", nav("heatmap", { view: "heatmap", t: mine[0] }), ")")), mine.length > 1 ? dd : null);
    });
    add(body, dl);
    show(h("h2", null, sub.name), [crumbs([nav("Explorer", {}), h("span", null, sub.name)]), body]);
  }

  /* ------------------------------------------------------------------ query list */

  function taskIds(p) {
    var raw = (p.get("t") || "").split(",").map(function (x) { return x.trim(); }).filter(Boolean);
    if (!raw.length) throw new UserError("No task given.", "Add t=TASK to the address, e.g. t=followtable/wtr.");
    raw.forEach(taskInfo);
    return raw;
  }

  async function loadLists(slug, tids) {
    var lists = await Promise.all(tids.map(function (tid) { return queryList(slug, tid); }));
    return lists;
  }

  function sortRows(rows, key, dir) {
    rows.sort(function (a, b) {
      var x = key === "query" ? a.query : key === "group" ? (a.group || "") : key === "task" ? a.task : a.values[key];
      var y = key === "query" ? b.query : key === "group" ? (b.group || "") : key === "task" ? b.task : b.values[key];
      var xn = x === null || x === undefined, yn = y === null || y === undefined;
      if (xn || yn) return xn === yn ? 0 : xn ? 1 : -1;   // missing values last
      if (typeof x === "string") return dir * x.localeCompare(y, undefined, { numeric: true });
      return dir * (x - y);
    });
  }

  // The primary metric first, then p-MRR/IRS, then the original run's, then the altered's.
  function orderMetrics(metrics, primary) {
    function rank(m) {
      return m === primary ? 0 : signedMetric(m) ? 1 : m.indexOf("original/") === 0 ? 2 : m.indexOf("altered/") === 0 ? 3 : 4;
    }
    return metrics.slice().sort(function (a, b) { return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0); });
  }

  function groupName(g) { return (index.group_names && index.group_names[g]) || g; }

  function defaultMetric(metrics, primary, wanted) {
    if (wanted && metrics.indexOf(wanted) !== -1) return wanted;
    if (metrics.indexOf(primary) !== -1) return primary;
    return metrics[0];
  }

  async function renderList(p) {
    var slug = p.get("s");
    var tids = taskIds(p);
    var sub = submission(slug);
    var lists = await loadLists(slug, tids);
    var metrics = [];
    lists.forEach(function (l) { l.metrics.forEach(function (m) { if (metrics.indexOf(m) === -1) metrics.push(m); }); });
    var rows = [].concat.apply([], lists.map(rowsOf));
    var multi = tids.length > 1;
    var primary = index.tasks[tids[0]].primary;
    metrics = orderMetrics(metrics, primary);
    var sortKey = defaultMetric(metrics, primary, p.get("m"));
    var sortDir = 1;   // worst first: where the model fails
    var groups = [];
    rows.forEach(function (r) { if (r.group && groups.indexOf(r.group) === -1) groups.push(r.group); });
    groups.sort();
    var hasOriginal = rows.some(function (r) { return r.original; });

    var search = h("input", { type: "search", name: "q", placeholder: "query id", autocomplete: "off", "aria-label": "Filter queries by id" });
    var groupSel = h("select", { name: "g", "aria-label": "Constraint type" }, h("option", { value: "" }, "all"),
      groups.map(function (g) { return h("option", { value: g }, groupName(g)); }));
    if (p.get("g") && groups.indexOf(p.get("g")) !== -1) groupSel.value = p.get("g");
    var taskSel = h("select", { name: "task", "aria-label": "Task" }, h("option", { value: "" }, "all"),
      tids.map(function (t) { return h("option", { value: t }, index.tasks[t].label); }));
    var signed = metrics.filter(function (m) { return signedMetric(m); });
    var only = h("select", { name: "only", "aria-label": "Which queries" }, h("option", { value: "" }, "all queries"),
      signed.map(function (m) { return h("option", { value: m }, m + " below 0 (the wrong way)"); }));
    var form = h("form", { cls: "fb-x-filters", role: "search", onsubmit: function (e) { e.preventDefault(); } },
      h("label", null, "Query ", search),
      groups.length ? h("label", null, "Constraint ", groupSel) : null,
      multi ? h("label", null, "Task ", taskSel) : null,
      signed.length ? h("label", null, "Show ", only) : null,
      compareSelect(tids[0], slug, function (other) { return href({ s: slug, t: tids.join(","), vs: other, m: sortKey }); }));
    var count = h("p", { cls: "fb-x-count", "aria-live": "polite" });
    var table = h("table", { cls: "fb-x-table fb-x-list" });
    var wrap = h("div", { cls: "fb-x-wrap" }, table);
    var more = h("button", { type: "button", cls: "md-button fb-x-more" });
    var showAll = false;
    more.addEventListener("click", function () { showAll = !showAll; draw(); });

    var cols = [{ key: "query", label: "Query", text: true }];
    if (hasOriginal) cols.push({ key: "original", label: "Original query", text: true, nosort: true,
      help: "the query the altered one is compared with (FollowTable: the topic alone)" });
    if (groups.length) cols.push({ key: "group", label: "Constraint", text: true, help: "FollowTable's constraint type of the instruction" });
    if (multi) cols.push({ key: "task", label: "Task", text: true });
    metrics.forEach(function (m) { cols.push({ key: m, label: metricLabel(m), help: metricHelp(m) }); });

    function head() {
      var tr = h("tr");
      cols.forEach(function (c) {
        var th = h("th", { scope: "col", title: c.help || null, "data-key": c.key });
        if (c.nosort) { th.textContent = c.label; }
        else {
          var btn = h("button", { type: "button", cls: "fb-x-sort" }, c.label);
          btn.addEventListener("click", function () {
            if (sortKey === c.key) sortDir = -sortDir; else { sortKey = c.key; sortDir = 1; }
            draw();
          });
          add(th, btn);
          if (sortKey === c.key) th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
        }
        add(tr, th);
      });
      return h("thead", null, tr);
    }

    function draw() {
      // Redrawing replaces the header: keep the keyboard focus on the column it was on.
      var focused = document.activeElement && document.activeElement.closest &&
        document.activeElement.closest("th[data-key]");
      var refocus = focused && table.contains(focused) ? focused.getAttribute("data-key") : null;
      var q = search.value.trim().toLowerCase(), g = groupSel.value, t = taskSel.value, o = only.value;
      var shown = rows.filter(function (r) {
        return (!q || r.query.toLowerCase().indexOf(q) !== -1 || (r.original || "").toLowerCase() === q) &&
          (!g || r.group === g) && (!t || r.task === t) &&
          (!o || (r.values[o] !== null && r.values[o] !== undefined && r.values[o] < 0));
      });
      sortRows(shown, sortKey, sortDir);
      var body = h("tbody");
      var limit = showAll ? shown.length : Math.min(shown.length, LIST_LIMIT);
      for (var i = 0; i < limit; i++) {
        var r = shown[i];
        var tr = h("tr", { "data-q": r.query, "data-task": r.task });
        add(tr, h("td", { cls: "fb-x-id" }, nav(r.query, { s: slug, t: r.task, query: r.query }, { title: "Open the card of query " + r.query })));
        if (hasOriginal) add(tr, h("td", { cls: "fb-x-id" }, r.original || ""));
        if (groups.length) add(tr, h("td", { title: r.group ? groupName(r.group) : null }, r.group || ""));
        if (multi) add(tr, h("td", null, index.tasks[r.task].label));
        metrics.forEach(function (m) {
          var v = r.values[m];
          add(tr, h("td", { "data-v": exact(v), "data-metric": m, cls: v !== null && v !== undefined && signedMetric(m) && v < 0 ? "fb-x-neg" : null },
            fmt(v, signedMetric(m))));
        });
        add(body, tr);
      }
      table.textContent = "";
      add(table, head(), body);
      if (refocus) table.querySelector('th[data-key="' + refocus + '"] button').focus();
      count.textContent = shown.length === rows.length
        ? rows.length + " queries" + (limit < shown.length ? ", the first " + limit + " shown" : "")
        : shown.length + " of " + rows.length + " queries match" + (limit < shown.length ? ", the first " + limit + " shown" : "");
      more.hidden = shown.length <= LIST_LIMIT;
      more.textContent = showAll ? "Show the first " + LIST_LIMIT : "Show all " + shown.length;
    }
    // Redraw only when a filter really changed: a search box also fires "change" when it
    // loses focus, which would replace the row under a click on its query (no click).
    var filterKey = null;
    function refilter(e) {
      if (e && e.target.classList.contains("fb-x-compare-pick")) return;
      var key = [search.value, groupSel.value, taskSel.value, only.value].join("\u0000");
      if (key === filterKey) return;
      filterKey = key;
      draw();
    }
    form.addEventListener("input", refilter);
    form.addEventListener("change", refilter);
    refilter();
    var intro = h("p", { cls: "fb-x-note" },
      "Each query with ", subPage(slug), "\u2019s own scores (\u00d7100), worst first on " + metricLabel(sortKey) +
      ". Click a query for its card; click a column to sort. ",
      nav("Heatmap of these queries against other submissions", { view: "heatmap", t: tids[0], m: sortKey }), ".");
    show(h("h2", null, "Queries of " + sub.name + " on " + taskTitle(tids)),
      [crumbs([nav("Explorer", {}), nav(sub.name, { s: slug }), h("span", null, taskTitle(tids))]),
       intro, form, count, wrap, more]);
  }

  // A select of the other submissions with this task; picking one opens compare mode.
  function compareSelect(tid, slug, target) {
    var sel = h("select", { cls: "fb-x-compare-pick", "aria-label": "Compare with another submission" },
      h("option", { value: "" }, "pick a submission\u2026"));
    var label = h("label", { cls: "fb-x-compare" }, "Compare with ", sel);
    taskSubmissions(tid).then(function (subs) {
      subs.forEach(function (e) {
        if (e[0] === slug || !e[2]) return;
        add(sel, h("option", { value: e[0] }, submissionName(e[0]) + " (" + fmt(e[1], signedMetric(index.tasks[tid].primary)) + ")"));
      });
      if (sel.options.length === 1) { sel.disabled = true; sel.options[0].textContent = "no other submission has this task"; }
    }).catch(function () { sel.disabled = true; });
    sel.addEventListener("change", function () { if (sel.value) go(target(sel.value)); });
    return label;
  }

  /* ------------------------------------------------------------------ compare list */

  async function renderCompareList(p) {
    var a = p.get("s"), b = p.get("vs");
    var tids = taskIds(p);
    var subA = submission(a), subB = submission(b);
    var got = await Promise.all([loadLists(a, tids), loadLists(b, tids)]);
    var rowsA = [].concat.apply([], got[0].map(rowsOf)), rowsB = [].concat.apply([], got[1].map(rowsOf));
    var metrics = got[0][0].metrics.filter(function (m) { return got[1][0].metrics.indexOf(m) !== -1; });
    var primary = index.tasks[tids[0]].primary;
    var wanted = p.get("m");
    var metric = wanted && metrics.indexOf(wanted) !== -1 ? wanted
      : metrics.indexOf(primary) !== -1 ? primary : metrics.filter(function (m) { return signedMetric(m); })[0] || metrics[0];
    var byKey = {};
    rowsB.forEach(function (r) { byKey[r.task + "\u0000" + r.query] = r; });
    var pairs = [];
    rowsA.forEach(function (r) {
      var o = byKey[r.task + "\u0000" + r.query];
      if (!o) return;
      var x = r.values[metric], y = o.values[metric];
      var d = x === null || x === undefined || y === null || y === undefined ? null : y - x;
      pairs.push({ a: r, b: o, x: x, y: y, d: d });
    });
    pairs.sort(function (u, v) {
      if (u.d === null || v.d === null) return u.d === v.d ? 0 : u.d === null ? 1 : -1;
      return Math.abs(v.d) - Math.abs(u.d) || (u.a.query < v.a.query ? -1 : 1);
    });
    var better = 0, worse = 0, same = 0;
    pairs.forEach(function (x) { if (x.d === null) return; if (x.d > 0) better++; else if (x.d < 0) worse++; else same++; });
    var sel = h("select", { "aria-label": "Metric to compare" }, metrics.map(function (m) { return h("option", { value: m }, metricLabel(m)); }));
    sel.value = metric;
    sel.addEventListener("change", function () { go(href({ s: a, vs: b, t: tids.join(","), m: sel.value })); });
    var multi = tids.length > 1;
    var head = h("tr", null, h("th", { scope: "col" }, "Query"),
      pairs.some(function (x) { return x.a.group; }) ? h("th", { scope: "col" }, "Type") : null,
      multi ? h("th", { scope: "col" }, "Task") : null,
      h("th", { scope: "col", cls: "fb-x-name" }, subA.name), h("th", { scope: "col", cls: "fb-x-name" }, subB.name),
      h("th", { scope: "col", title: "second minus first" }, "Difference"));
    var body = h("tbody");
    var hasGroup = pairs.some(function (x) { return x.a.group; });
    pairs.forEach(function (x) {
      add(body, h("tr", { "data-q": x.a.query, "data-task": x.a.task },
        h("td", { cls: "fb-x-id" }, nav(x.a.query, { s: a, vs: b, t: x.a.task, query: x.a.query })),
        hasGroup ? h("td", null, x.a.group || "") : null,
        multi ? h("td", null, index.tasks[x.a.task].label) : null,
        h("td", { "data-v": exact(x.x), "data-side": "a" }, fmt(x.x, signedMetric(metric))),
        h("td", { "data-v": exact(x.y), "data-side": "b" }, fmt(x.y, signedMetric(metric))),
        h("td", { "data-v": exact(x.d), "data-side": "d", cls: x.d < 0 ? "fb-x-neg" : null }, fmt(x.d, true))));
    });
    var swap = nav("swap the two", { s: b, vs: a, t: tids.join(","), m: metric });
    show(h("h2", null, "Where " + subA.name + " and " + subB.name + " disagree"),
      [crumbs([nav("Explorer", {}), nav(subA.name, { s: a }), nav(taskTitle(tids), { s: a, t: tids.join(",") }), h("span", null, "compared with " + subB.name)]),
       h("p", { cls: "fb-x-note" }, "The queries of " + taskTitle(tids) + " ordered by how much the two submissions differ in ", h("label", null, sel),
         " (\u00d7100; difference = second \u2212 first). The second is higher on " + better + ", lower on " + worse + ", equal on " + same + " queries. Click a query to see both cards side by side (", swap, ")."),
       h("div", { cls: "fb-x-wrap" }, h("table", { cls: "fb-x-table fb-x-compare-list" }, h("thead", null, head), body))]);
  }

  /* ------------------------------------------------------------------ the card */

  // Word-level diff (longest common subsequence): [[op, word]] with op "=", "-", "+".
  function wordDiff(a, b) {
    var x = a.split(/\s+/).filter(Boolean), y = b.split(/\s+/).filter(Boolean);
    var n = x.length, m = y.length;
    var L = [];
    for (var i = 0; i <= n; i++) { L.push(new Int32Array(m + 1)); }
    for (i = n - 1; i >= 0; i--) for (var j = m - 1; j >= 0; j--) {
      L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    }
    var out = [];
    i = 0; j = 0;
    while (i < n && j < m) {
      if (x[i] === y[j]) { out.push(["=", x[i]]); i++; j++; }
      else if (L[i + 1][j] >= L[i][j + 1]) out.push(["-", x[i++]]);
      else out.push(["+", y[j++]]);
    }
    while (i < n) out.push(["-", x[i++]]);
    while (j < m) out.push(["+", y[j++]]);
    return out;
  }

  function diffView(a, b) {
    var ops = wordDiff(a, b);
    var box = h("p", { cls: "fb-x-diff" });
    ops.forEach(function (op, i) {
      if (i) add(box, " ");
      if (op[0] === "=") add(box, op[1]);
      else if (op[0] === "-") add(box, h("del", { title: "only in the original instruction" }, op[1]));
      else add(box, h("ins", { title: "only in the altered instruction" }, op[1]));
    });
    return box;
  }

  function rankText(rank, used, what) {
    if (rank !== null && rank !== undefined) return String(rank);
    return used ? "not ranked (" + what + " " + used + ")" : "not ranked";
  }

  // Ranks of each document in both runs, as lines: "up" is the way the instruction asks
  // (down the ranking for a document it made non-relevant, up for one that satisfies it).
  function slope(moves, deeperIsGood, title, axisMax) {
    var W = 420, H = 240, L = 74, R = 74, T = 16, B = 30;
    var maxRank = Math.max(10, axisMax || 0);
    moves.forEach(function (m) { maxRank = Math.max(maxRank, m.from, m.to); });
    var span = Math.log(maxRank);
    function y(r) {
      var f = Math.log(Math.max(r, 1)) / span;
      return deeperIsGood ? H - B - f * (H - T - B) : T + f * (H - T - B);
    }
    var svg = s("svg", { viewBox: "0 0 " + W + " " + H, role: "img", class: "fb-x-slope",
      "aria-label": title });
    var ticks = [1, 10, 100, 1000, 10000, 100000].filter(function (r) { return r <= maxRank; });
    // The end of the axis too (where the metric puts an unranked document), when it is
    // well past the last power of ten.
    if (maxRank > 1.5 * ticks[ticks.length - 1]) ticks.push(maxRank);
    ticks.forEach(function (r) {
      svg.appendChild(s("line", { x1: L, x2: W - R, y1: y(r), y2: y(r), class: "fb-x-grid" }));
      svg.appendChild(s("text", { x: L - 8, y: y(r) + 4, class: "fb-x-tick", "text-anchor": "end" }, "rank " + r));
    });
    // Which way is up: deeper in the ranking for documents the instruction rules out.
    svg.appendChild(s("text", { x: W - R + 8, y: T + 4, class: "fb-x-tick" }, deeperIsGood ? "\u2191 deeper" : "\u2191 higher"));
    svg.appendChild(s("text", { x: L, y: H - 8, class: "fb-x-axis", "text-anchor": "middle" }, "original run"));
    svg.appendChild(s("text", { x: W - R, y: H - 8, class: "fb-x-axis", "text-anchor": "middle" }, "altered run"));
    moves.forEach(function (m) {
      var kind = m.to === m.from ? "same" : ((m.to > m.from) === deeperIsGood ? "good" : "bad");
      var g = s("g", { class: "fb-x-move fb-x-" + kind, "data-doc": m.doc });
      g.appendChild(s("title", {}, m.doc + ": " + (m.fromRanked ? "rank " + m.from : "not ranked (" + m.from + ")") +
        " \u2192 " + (m.toRanked ? "rank " + m.to : "not ranked (" + m.to + ")")));
      g.appendChild(s("line", { x1: L, x2: W - R, y1: y(m.from), y2: y(m.to) }));
      g.appendChild(s("circle", { cx: L, cy: y(m.from), r: 3.5, class: m.fromRanked ? "" : "fb-x-unranked" }));
      g.appendChild(s("circle", { cx: W - R, cy: y(m.to), r: 3.5, class: m.toRanked ? "" : "fb-x-unranked" }));
      svg.appendChild(g);
    });
    var good = moves.filter(function (m) { return (m.to > m.from) === deeperIsGood && m.to !== m.from; }).length;
    var bad = moves.filter(function (m) { return (m.to > m.from) !== deeperIsGood && m.to !== m.from; }).length;
    return h("figure", { cls: "fb-x-slope-box" }, svg,
      h("figcaption", null, h("span", { cls: "fb-x-key fb-x-good" }, "\u2191 " + good + " moved " +
          (deeperIsGood ? "down the ranking" : "up the ranking") + ", as the instruction asks"), " ",
        h("span", { cls: "fb-x-key fb-x-bad" }, "\u2193 " + bad + " moved the wrong way"), " ",
        h("span", { cls: "fb-x-key fb-x-same" }, "\u2014 " + (moves.length - good - bad) + " did not move"), " ",
        h("span", { cls: "fb-x-key" }, "\u25cb not ranked (drawn at the rank the metric gives it)")));
  }

  function num(v, text, attrs) {
    var a = attrs || {};
    a["data-v"] = exact(v);
    return h("td", a, text);
  }

  function gainText(g) { return FBFormat.fixed(g, 4, true); }

  function docButton(doc, ctx) {
    return h("button", { type: "button", cls: "fb-x-doc", "data-doc": doc, title: "Show the text of " + doc,
      onclick: function () { openDoc(doc, ctx); } }, doc);
  }

  function movesTable(moves, kind, n, scale, ctx, single) {
    var irs = moves.some(function (m) { return m.irs_gain !== null && m.irs_gain !== undefined; });
    var head = h("tr", null, h("th", { scope: "col" }, "Document"));
    if (!single) add(head, h("th", { scope: "col" }, "Original rank"));
    add(head, h("th", { scope: "col" }, single ? "Rank in the run" : "Altered rank"));
    if (kind === "changed") {
      add(head, h("th", { scope: "col", title: "the document's term in p-MRR: R_new/R_og \u2212 1 when it moved up or stayed, 1 \u2212 R_og/R_new when it moved down" }, "p-MRR term"),
        h("th", { scope: "col", title: "term / number of changed documents: the shares add up to the query's p-MRR" }, "Share of p-MRR"));
    }
    if (irs) {
      add(head, h("th", { scope: "col", title: "the document's signed gain in IRS's S (1/log2(rank+1) differences; T\u2212 counts against S)" }, "IRS gain"));
      if (scale) add(head, h("th", { scope: "col", title: "gain / the IRS normaliser: the shares add up to the query's IRS before it is clipped to [\u22121, 1]" }, "Share of IRS"));
    }
    var body = h("tbody");
    moves.forEach(function (m) {
      var tr = h("tr", { "data-doc": m.doc }, h("td", { cls: "fb-x-id" }, docButton(m.doc, ctx)));
      if (!single) {
        add(tr, num(m.rank_original, rankText(m.rank_original, kind === "changed" ? m.p_mrr_rank_original : null, "p-MRR counts rank"),
          { "data-field": "rank_original", "data-used": kind === "changed" ? m.p_mrr_rank_original : null }));
      }
      add(tr, num(m.rank_altered, rankText(m.rank_altered, kind === "changed" && !single ? m.p_mrr_rank_altered : null, "p-MRR counts rank"),
        { "data-field": "rank_altered", "data-used": kind === "changed" && !single ? m.p_mrr_rank_altered : null }));
      if (kind === "changed") {
        add(tr, num(m.p_mrr, fmt(m.p_mrr, true), { "data-field": "p_mrr", cls: m.p_mrr < 0 ? "fb-x-neg" : null }));
        var share = n ? m.p_mrr / n : null;
        add(tr, num(share, fmt(share, true), { "data-field": "p_mrr_share" }));
      }
      if (irs) {
        add(tr, num(m.irs_gain, gainText(m.irs_gain), { "data-field": "irs_gain", cls: m.irs_gain < 0 ? "fb-x-neg" : null }));
        if (scale) { var sh = m.irs_gain / scale; add(tr, num(sh, fmt(sh, true), { "data-field": "irs_share" })); }
      }
      add(body, tr);
    });
    return h("div", { cls: "fb-x-wrap" }, h("table", { cls: "fb-x-table fb-x-moves", "data-kind": kind }, h("thead", null, head), body));
  }

  function metricsBlock(values, order) {
    var dl = h("dl", { cls: "fb-x-metrics" });
    order.forEach(function (m) {
      // A figure the query lacks (p-MRR without changed documents) is explained below.
      if (values[m] === null || values[m] === undefined) return;
      var v = values[m];
      add(dl, h("div", { cls: "fb-x-metric" }, h("dt", { title: metricHelp(m) }, metricLabel(m)),
        h("dd", { "data-v": exact(v), "data-metric": m, cls: v !== null && signedMetric(m) && v < 0 ? "fb-x-neg" : null },
          fmt(v, signedMetric(m)))));
    });
    return dl;
  }

  function marks(d, paired) {
    var out = h("span", { cls: "fb-x-marks" });
    if (d.pair_role === "changed") add(out, h("abbr", { cls: "fb-x-badge fb-x-tminus", title: "changed: the instruction made it non-relevant (T\u2212)" }, "T\u2212"));
    if (d.pair_role === "positive") add(out, h("abbr", { cls: "fb-x-badge fb-x-tplus", title: "satisfies the instruction (T+)" }, "T+"));
    function judged(v, short, what) {
      if (v === null || v === undefined) return;
      add(out, h("abbr", { cls: "fb-x-badge " + (v > 0 ? "fb-x-rel" : "fb-x-nonrel"),
        title: (v > 0 ? "judged relevant " : "judged not relevant ") + what }, short + (v > 0 ? "\u2713" : "\u2717")));
    }
    judged(d.judged_query, paired ? "Q" : "", paired ? "to the original query" : "");
    if (paired) judged(d.judged_instruction, "I", "under the altered instruction");
    return out;
  }

  function topTable(card, fields, roles, ctx) {
    var lists = roles.map(function (r) { return (card.top && card.top[r] || []).map(function (t) { return moveOf(fields.top, t); }); });
    var depth = Math.max.apply(null, lists.map(function (l) { return l.length; }).concat([0]));
    var head = h("tr", null, h("th", { scope: "col" }, "Rank"), roles.map(function (r) {
      return h("th", { scope: "col" }, (r === "run" ? "the run" : r + " run") + " (" + (card.n[r] || 0) + " ranked)");
    }));
    var body = h("tbody");
    for (var i = 0; i < depth; i++) {
      var tr = h("tr", null, h("td", { "data-v": i + 1 }, String(i + 1)));
      lists.forEach(function (l, k) {
        var d = l[i];
        add(tr, h("td", { cls: "fb-x-top", "data-role": roles[k], "data-doc": d ? d.doc : null },
          d ? [docButton(d.doc, ctx), " ", marks(d, roles.length > 1)] : ""));
      });
      add(body, tr);
    }
    if (!depth) add(body, h("tr", null, h("td", { colspan: roles.length + 1 }, "No run ranks this query.")));
    return h("div", { cls: "fb-x-wrap" }, h("table", { cls: "fb-x-table fb-x-top10" }, h("thead", null, head), body));
  }

  // PI-Indic T4: a persona's pairs, the most probable first, with the gold label, the
  // submitted probability and whether the prediction (compatible at 0.5 or more) is right.
  function pairsTable(pairs, txt) {
    var ids = txt && txt.pairs, docs = txt && txt.docs;
    var head = h("tr", null, ["Instruction", "Gold label", "Probability", "Predicted"].map(function (c) {
      return h("th", { scope: "col" }, c);
    }));
    var body = h("tbody");
    pairs.forEach(function (p) {
      var instruction = ids && ids[p.pair] ? ids[p.pair][1] : null;
      var predicted = p.probability >= 0.5;
      var right = predicted === Boolean(p.label);
      add(body, h("tr", { "data-pair": p.pair, cls: right ? null : "fb-x-wrong" },
        h("td", null, instruction ? [h("b", null, instruction), " ", docs && docs[instruction] ? docs[instruction] : ""] : p.pair),
        h("td", null, p.label ? "compatible" : "not compatible"),
        h("td", { "data-v": exact(p.probability), "data-field": "probability" }, FBFormat.fixed(p.probability, 3)),
        h("td", null, (predicted ? "compatible" : "not compatible") + (right ? "" : " \u2717"))));
    });
    return h("div", { cls: "fb-x-wrap" }, h("table", { cls: "fb-x-table fb-x-pairs" }, h("thead", null, head), body));
  }

  function textBlock(label, text, extra) {
    return h("div", { cls: "fb-x-text" }, h("h4", null, label), text === null || text === undefined
      ? h("p", { cls: "fb-x-muted" }, extra || "(no text)") : h("p", null, text));
  }

  function upstreamQuery(ctx, id, file, label) {
    var up = ctx.list.upstream;
    var box = h("div", { cls: "fb-x-text" }, h("h4", null, label));
    var out = h("p", { cls: "fb-x-muted" }, "Not copied here: FollowTable states no licence. ");
    var btn = h("button", { type: "button", cls: "md-button fb-x-load" }, "Load the text from GitHub");
    btn.addEventListener("click", async function () {
      btn.disabled = true;
      btn.textContent = "Loading from GitHub\u2026";
      try {
        var resp = await fetch(up[file]);
        if (!resp.ok) throw new Error("HTTP " + resp.status);
        var text = await resp.text();
        var found = null;
        text.split("\n").some(function (line) {
          if (!line.trim()) return false;
          var rec = JSON.parse(line);
          if (String(rec._id) === id) { found = rec.text; return true; }
          return false;
        });
        out.textContent = found === null ? "Query " + id + " is not in " + up[file] + "." : found;
        out.className = "";
        btn.remove();
      } catch (e) {
        btn.disabled = false;
        btn.textContent = "Load the text from GitHub";
        out.textContent = "Could not load it from GitHub (" + (e.message || "offline?") + "); the link below works once you are online. ";
      }
    });
    add(box, out, btn, " or ", h("a", { href: up[file], rel: "nofollow noopener" }, "open the file at the pinned commit"));
    return box;
  }

  // The dialog with a document's text (or why there is none).
  var dialog = null;
  function openDoc(doc, ctx) {
    if (!dialog) {
      dialog = h("dialog", { cls: "fb-x-dialog", "aria-labelledby": "fb-x-dialog-title" });
      document.body.appendChild(dialog);
      dialog.addEventListener("click", function (e) { if (e.target === dialog) dialog.close(); });
    }
    dialog.textContent = "";
    var close = h("button", { type: "button", cls: "md-button fb-x-close", onclick: function () { dialog.close(); } }, "Close");
    var body = h("div", { cls: "fb-x-dialog-body" });
    var docs = ctx.texts && ctx.texts.docs;
    var up = ctx.list.upstream;
    if (docs && docs[doc] !== undefined) {
      add(body, h("p", { cls: "fb-x-snippet" }, docs[doc] || "(empty document)"),
        h("p", { cls: "fb-x-muted" }, "The first 280 characters; " + ctx.texts.licence + ", " + ctx.texts.source + "."));
    } else if (up && up.doc_page) {
      var page = up.doc_page.replace("{doc}", encodeURIComponent(doc));
      var raw = up.doc_text.replace("{doc}", encodeURIComponent(doc));
      var out = h("p", { cls: "fb-x-muted" }, "FollowTable states no licence, so this site does not copy its tables. ");
      var btn = h("button", { type: "button", cls: "md-button fb-x-load" }, "Load the table from GitHub");
      btn.addEventListener("click", async function () {
        btn.disabled = true;
        try {
          var resp = await fetch(raw);
          if (!resp.ok) throw new Error("HTTP " + resp.status);
          var text = await resp.text();
          out.className = "fb-x-snippet";
          out.textContent = text.length > 2000 ? text.slice(0, 2000) + "\u2026" : text;
          btn.remove();
        } catch (e) {
          btn.disabled = false;
          out.textContent = "Could not load it from GitHub (" + (e.message || "offline?") + "); the link works once you are online.";
        }
      });
      add(body, out, btn, " ", h("a", { href: page, rel: "nofollow noopener" }, "Open table " + doc + " on GitHub"));
    } else if (ctx.texts && docs) {
      add(body, h("p", { cls: "fb-x-muted" }, "No snippet: for a collection this large the site keeps the text of judged documents only."));
    } else {
      add(body, h("p", { cls: "fb-x-muted" }, "No text for this task's documents."));
    }
    add(dialog, h("h3", { id: "fb-x-dialog-title" }, "Document " + doc), body, close);
    dialog.showModal();
    close.focus();
  }

  // A query's card; with ``shared``, its texts are left to the caller (compare mode shows
  // them once above both cards) and come back as ``texts``.
  async function cardView(slug, tid, qid, shared) {
    var list = await queryList(slug, tid);
    var rows = rowsOf(list);
    var row = null, position = -1;
    rows.some(function (r, i) { if (r.query === qid) { row = r; position = i; return true; } return false; });
    if (!row) {
      var close = closest(qid, rows.map(function (r) { return r.query; }));
      throw new UserError("Task " + tid + " has no query \u201c" + qid + "\u201d for " + submissionName(slug) + ".",
        close.length ? "Did you mean " + close.join(", ") + "?" : "Its " + rows.length + " queries are listed on the task's page.");
    }
    var got = await Promise.all([cardFile(slug, list, position), texts(slug, list)]);
    var file = got[0], txt = got[1];
    var card = file.cards[qid];
    if (!card) throw new UserError("The cards of " + submissionName(slug) + " on " + tid + " lack query " + qid + ".");
    var fields = file.fields;
    var ctx = { list: list, texts: txt };
    var box = h("article", { cls: "fb-x-card", "data-s": slug, "data-task": tid, "data-q": qid });
    var order = orderMetrics(list.metrics, list.primary);
    add(box, h("h3", { cls: "fb-x-card-title" }, subPage(slug)), metricsBlock(row.values, order));
    var roles = Object.keys(card.n || {});
    var paired = roles.indexOf("original") !== -1;

    // Texts.
    var textBox = h("section", { cls: "fb-x-texts" });
    if (card.pairs) {
      add(textBox, textBlock("Persona " + qid, txt && txt["queries:persona"] ? txt["queries:persona"][qid] : null));
      add(textBox, pairsTable(card.pairs, txt));
    } else if (paired) {
      var og = txt && txt["queries:original"], alt = txt && txt["queries:altered"];
      if (og && alt) {
        var a = og[row.original] || "", b = alt[qid] || "";
        add(textBox, textBlock("Original query " + row.original, a),
          h("div", { cls: "fb-x-text" }, h("h4", null, "Altered query " + qid + ": what changed"), diffView(a, b)));
      } else if (list.upstream) {
        add(textBox, upstreamQuery(ctx, row.original, "topics_text", "Original query " + row.original + " (topic only)"),
          upstreamQuery(ctx, qid, "queries_text", "Altered query " + qid + " (query + instruction)"));
      }
    } else {
      var qs = txt && txt["queries:run"];
      add(textBox, textBlock("Query " + qid, qs ? qs[qid] : null, "(no text)"));
    }
    var textSection = [h("h4", { cls: "fb-x-sec" }, card.pairs ? "The persona and its pairs" : paired ? "Query and instruction" : "Query"), textBox];
    if (!shared) add(box, textSection);
    if (card.pairs) return { box: box, texts: textSection };

    var move = function (m) { return moveOf(fields.move, m); };
    var changed = (card.c || []).map(move), positive = (card.p || []).map(move);
    var scale = card.s ? card.s[fields.irs.indexOf("scale")] : 0;
    if (paired) {
      var n = changed.length;
      var sec = h("section", { cls: "fb-x-changed" },
        h("h4", { cls: "fb-x-sec" }, "Documents the instruction made non-relevant (" + n + ")"),
        h("p", { cls: "fb-x-note" }, n ? "A run that follows the instruction moves them down. p-MRR is the mean of their terms (each term\u2019s share below)." :
          "The instruction changed no judgment of this query, so it has no p-MRR."));
      if (n) {
        add(sec, slope(changed.map(function (m) {
          return { doc: m.doc, from: m.p_mrr_rank_original, to: m.p_mrr_rank_altered, fromRanked: m.rank_original !== null, toRanked: m.rank_altered !== null };
        }), true, "Ranks of the changed documents in the original and the altered run",
        // The axis runs to where p-MRR puts an unranked document, the same for every
        // submission of the task, so two cards side by side draw on one scale.
        Math.max(card.n.original || 0, card.n.altered || 0) + 1));
        add(sec, movesTable(changed, "changed", n, scale, ctx, false));
      }
      add(box, sec);
      if (positive.length || card.s) {
        var psec = h("section", { cls: "fb-x-positive" },
          h("h4", { cls: "fb-x-sec" }, "Documents that satisfy the instruction, T+ (" + positive.length + ")"),
          h("p", { cls: "fb-x-note" }, "A run that follows the instruction moves them up. IRS adds up every document\u2019s gain, T+ up and T\u2212 down; a document a run leaves out counts at rank N + 1 = " + ((list.corpus_size || 0) + 1) + "."));
        if (positive.length) {
          add(psec, slope(positive.map(function (m) {
            var missing = (list.corpus_size || 0) + 1;
            return { doc: m.doc, from: m.rank_original || missing, to: m.rank_altered || missing, fromRanked: m.rank_original !== null, toRanked: m.rank_altered !== null };
          }), false, "Ranks of the documents that satisfy the instruction in both runs", (list.corpus_size || 0) + 1));
          add(psec, movesTable(positive, "positive", 0, scale, ctx, false));
        }
        if (card.s) {
          var parts = {};
          fields.irs.forEach(function (f, i) { parts[f] = card.s[i]; });
          add(psec, h("p", { cls: "fb-x-irs" }, "S = ", h("span", { "data-v": exact(parts.S), "data-field": "S" }, gainText(parts.S)),
            " (the sum of the gains), S(ideal) = ", h("span", { "data-v": exact(parts.S_ideal), "data-field": "S_ideal" }, gainText(parts.S_ideal)),
            ", S(worst) = ", h("span", { "data-v": exact(parts.S_worst), "data-field": "S_worst" }, gainText(parts.S_worst)), "; ",
            parts.scale ? "IRS = S / " + FBFormat.fixed(parts.scale, 4) + ", clipped to [\u22121, 1]." : "IRS is fixed without dividing (no ranking to normalise by)."));
        }
        add(box, psec);
      }
      add(box, h("h4", { cls: "fb-x-sec" }, "Top 10 of both runs"),
        h("p", { cls: "fb-x-note" }, "Q\u2713/Q\u2717: judged relevant / not relevant to the original query; I\u2713/I\u2717: under the altered instruction; T\u2212, T+: as above. Click a document for its text."),
        topTable(card, fields, ["original", "altered"], ctx));
    } else {
      var rel = h("section", { cls: "fb-x-changed" }, h("h4", { cls: "fb-x-sec" }, "The relevant document"),
        h("p", { cls: "fb-x-note" }, "Each query has one relevant document; R@k and RR@10 follow from its rank."));
      if (changed.length) add(rel, movesTable(changed, "relevant", 0, 0, ctx, true));
      add(box, rel, h("h4", { cls: "fb-x-sec" }, "Top 10 of the run"),
        h("p", { cls: "fb-x-note" }, "\u2713: the relevant document. Click a document for its text."),
        topTable(card, fields, ["run"], ctx));
    }
    return { box: box, texts: textSection };
  }

  async function renderCard(p) {
    var slug = p.get("s"), qid = p.get("query"), other = p.get("vs");
    var tids = taskIds(p);
    var tid = tids[0];
    var sub = submission(slug);
    var views = [cardView(slug, tid, qid, !!other)];
    if (other) { submission(other); views.push(cardView(other, tid, qid, true)); }
    var made = await Promise.all(views);
    var boxes = made.map(function (m) { return m.box; });
    var list = await queryList(slug, tid);
    var ids = list.queries.map(function (q) { return q[0]; });
    var at = ids.indexOf(qid);
    var row = list.queries[at];
    var t = index.tasks[tid];
    var title = h("h2", null, "Query " + qid + (row[1] ? " (original " + row[1] + ")" : "") + (row[2] ? ", constraint " + row[2] : "") + " \u00b7 " + t.title);
    var stepper = h("p", { cls: "fb-x-step" },
      at > 0 ? nav("\u2039 previous query", { s: slug, t: tid, query: ids[at - 1], vs: other }) : null,
      at > 0 && at < ids.length - 1 ? " \u00b7 " : null,
      at < ids.length - 1 ? nav("next query \u203a", { s: slug, t: tid, query: ids[at + 1], vs: other }) : null, " \u00b7 ",
      compareSelect(tid, slug, function (o) { return href({ s: slug, t: tid, query: qid, vs: o }); }));
    var trail = [nav("Explorer", {}), nav(sub.name, { s: slug }), nav(t.label, { s: slug, t: tid })];
    if (other) trail.push(nav("compared with " + submissionName(other), { s: slug, vs: other, t: tid }));
    trail.push(h("span", null, "query " + qid));
    // The texts are the same for both submissions: shown once, above the two cards.
    var content = other ? [h("section", { cls: "fb-x-card fb-x-shared-texts" }, made[0].texts),
                           h("div", { cls: "fb-x-side" }, boxes)] : boxes[0];
    show(title, [crumbs(trail), stepper, content]);
  }

  /* ------------------------------------------------------------------ heatmap */

  async function pool(items, work) {
    var out = new Array(items.length), next = 0;
    async function worker() {
      while (next < items.length) { var i = next++; out[i] = await work(items[i]); }
    }
    var workers = [];
    for (var k = 0; k < Math.min(FETCHES_AT_ONCE, items.length); k++) workers.push(worker());
    await Promise.all(workers);
    return out;
  }

  // A cell's colour on its metric's range (from the index): a signed metric diverges
  // from white at 0, others run from white at the low end to blue at the high end.
  function colour(v, range) {
    if (v === null || v === undefined) return null;
    if (range.signed) {
      var t = v >= 0 ? Math.min(1, v / range.high) : -Math.min(1, v / range.low);
      // blue for followed (+), red for the wrong way (-), white at 0
      return t >= 0 ? "rgb(" + Math.round(255 - 200 * t) + "," + Math.round(255 - 130 * t) + ",255)"
        : "rgb(255," + Math.round(255 + 170 * t) + "," + Math.round(255 + 170 * t) + ")";
    }
    var u = Math.max(0, Math.min(1, (v - range.low) / (range.high - range.low)));
    return "rgb(" + Math.round(255 - 205 * u) + "," + Math.round(255 - 120 * u) + "," + Math.round(255 - 60 * u) + ")";
  }

  async function renderHeatmap(p) {
    var tid0 = taskIds(p)[0];
    var fam = index.families[index.tasks[tid0].family];
    var tids = fam.tasks;
    // Columns: the submissions with explanation files, in the order the tables show them
    // (the index ranks them: best first on the mean of the family's task figures).
    var candidates = fam.ranked.map(function (i) { return index.order[i]; });
    if (!candidates.length) throw new UserError("No verified submission of " + fam.title + " has explanation files yet.");
    var picked = (p.get("subs") || "").split(",").filter(function (x) { return candidates.indexOf(x) !== -1; });
    var unknown = (p.get("subs") || "").split(",").filter(function (x) { return x && candidates.indexOf(x) === -1; });
    var cols = (picked.length ? picked : candidates.slice(0, HEAT_DEFAULT)).slice(0, HEAT_MAX);
    var jobs = [];
    tids.forEach(function (tid) { cols.forEach(function (slug) { jobs.push([tid, slug]); }); });
    var lists = await pool(jobs, function (job) {
      return queryList(job[1], job[0]).catch(function () { return null; });
    });
    var metricsAll = [];
    lists.forEach(function (l) { if (l) l.metrics.forEach(function (m) { if (metricsAll.indexOf(m) === -1) metricsAll.push(m); }); });
    var primary = index.tasks[tid0].primary;
    var metric = defaultMetric(metricsAll, primary, p.get("m"));
    var range = metricInfo(metric), signed = !!range.signed;
    // Rows: (task, query), grouped by constraint type or by task (language, collection).
    var rowsByKey = {}, rows = [];
    lists.forEach(function (l, k) {
      if (!l) return;
      var col = cols.indexOf(jobs[k][1]);
      var mi = l.metrics.indexOf(metric);
      l.queries.forEach(function (q) {
        var key = l.task + "\u0000" + q[0];
        var r = rowsByKey[key];
        if (!r) {
          r = rowsByKey[key] = { task: l.task, query: q[0], group: fam.group_by === "constraint" ? (q[2] || "\u2013") : index.tasks[l.task].label, v: new Array(cols.length).fill(null) };
          rows.push(r);
        }
        r.v[col] = mi === -1 ? null : q[3][mi];
      });
    });
    rows.forEach(function (r) {
      var vals = r.v.filter(function (x) { return x !== null; });
      r.mean = vals.length ? vals.reduce(function (a, b) { return a + b; }, 0) / vals.length : Infinity;
    });
    var groupOrder = fam.group_by === "constraint" ? null : tids.map(function (t) { return index.tasks[t].label; });
    rows.sort(function (a, b) {
      var ga = groupOrder ? groupOrder.indexOf(a.group) : a.group, gb = groupOrder ? groupOrder.indexOf(b.group) : b.group;
      if (ga !== gb) return ga < gb ? -1 : 1;
      return a.mean - b.mean || (a.query < b.query ? -1 : 1);   // hardest first
    });

    var controls = h("form", { cls: "fb-x-filters", onsubmit: function (e) { e.preventDefault(); } });
    var msel = h("select", { "aria-label": "Metric" }, metricsAll.map(function (m) { return h("option", { value: m }, metricLabel(m)); }));
    msel.value = metric;
    msel.addEventListener("change", function () { go(href({ view: "heatmap", t: tid0, m: msel.value, subs: picked.join(",") })); });
    add(controls, h("label", null, "Metric ", msel));
    var pick = h("details", { cls: "fb-x-pick" }, h("summary", null, "Submissions shown: " + cols.length + " of " + candidates.length));
    var pf = h("input", { type: "search", placeholder: "filter by name", "aria-label": "Filter the submissions to pick", autocomplete: "off" });
    var boxes = h("div", { cls: "fb-x-pick-list" });
    candidates.forEach(function (slug, i) {
      add(boxes, h("label", { "data-slug": slug }, h("input", { type: "checkbox", value: slug, checked: cols.indexOf(slug) !== -1 }),
        " " + (i + 1) + ". " + submissionName(slug)));
    });
    pf.addEventListener("input", function () {
      var q = pf.value.trim().toLowerCase();
      Array.prototype.forEach.call(boxes.children, function (l) { l.hidden = q && l.textContent.toLowerCase().indexOf(q) === -1; });
    });
    var apply = h("button", { type: "button", cls: "md-button" }, "Show the ticked submissions");
    apply.addEventListener("click", function () {
      var ticked = Array.prototype.filter.call(boxes.querySelectorAll("input"), function (b) { return b.checked; }).map(function (b) { return b.value; });
      go(href({ view: "heatmap", t: tid0, m: metric, subs: ticked.slice(0, HEAT_MAX).join(",") }));
    });
    add(pick, h("p", { cls: "fb-x-note" }, "Up to " + HEAT_MAX + " at once, best first on " + primary + "; the first " + HEAT_DEFAULT + " are shown unless you pick others."), pf, boxes, apply);
    add(controls, pick);

    // Canvas: a row per query, a column per submission; a gutter on the left names groups.
    var cellW = Math.max(12, Math.min(40, Math.floor(700 / Math.max(cols.length, 1))));
    var cellH = rows.length > 2000 ? 2 : rows.length > 600 ? 3 : rows.length > 150 ? 5 : 9;
    // A band on top names each column (the submission, turned on its side).
    var gutter = 130, top = 104;
    var width = gutter + cols.length * cellW + 4, height = top + rows.length * cellH + 4;
    var canvas = h("canvas", { tabindex: "0", cls: "fb-x-heat", role: "img",
      "aria-label": "Heatmap of " + rows.length + " queries by " + cols.length + " submissions; arrow keys move, Enter opens the query's card",
      "data-cell-w": cellW, "data-cell-h": cellH, "data-left": gutter, "data-top": top, "data-rows": rows.length, "data-cols": cols.length });
    var ratio = window.devicePixelRatio || 1;
    canvas.width = width * ratio; canvas.height = height * ratio;
    canvas.style.width = width + "px"; canvas.style.height = height + "px";
    var cx = canvas.getContext("2d");
    cx.scale(ratio, ratio);
    var styles = getComputedStyle(host);
    var fg = styles.color || "#333";
    function draw(cursor) {
      cx.clearRect(0, 0, width, height);
      cx.font = "11px sans-serif";
      cx.fillStyle = fg;
      cols.forEach(function (slug, j) {
        var name = submissionName(slug);
        cx.save();
        cx.translate(gutter + j * cellW + cellW / 2 + 4, top - 4);
        cx.rotate(-Math.PI / 2);
        cx.fillText((j + 1) + ". " + (name.length > 15 ? name.slice(0, 14) + "\u2026" : name), 0, 0);
        cx.restore();
      });
      var last = null;
      rows.forEach(function (r, i) {
        var y = top + i * cellH;
        if (r.group !== last) {
          cx.fillStyle = fg;
          cx.fillRect(gutter - 4, y, width - gutter + 4, 1);
          var label = fam.group_by === "constraint" ? groupName(r.group) : r.group;
          cx.fillText(label.length > 21 ? label.slice(0, 20) + "\u2026" : label, 2, y + 11);
          last = r.group;
        }
        r.v.forEach(function (v, j) {
          var c = colour(v, range);
          cx.fillStyle = c || "rgba(128,128,128,0.25)";
          cx.fillRect(gutter + j * cellW, y, cellW - 1, Math.max(1, cellH - (cellH > 3 ? 1 : 0)));
        });
      });
      if (cursor) {
        cx.strokeStyle = fg; cx.lineWidth = 2;
        cx.strokeRect(gutter + cursor[1] * cellW - 1, top + cursor[0] * cellH - 1, cellW + 1, cellH + 2);
      }
    }
    draw(null);
    var status = h("p", { cls: "fb-x-status", "aria-live": "polite" }, "Point at or move to a cell to see its query; click or press Enter to open its card.");
    var cursor = [0, 0];
    function describe(i, j) {
      var r = rows[i];
      var v = r.v[j];
      return r.query + " (" + index.tasks[r.task].label + (fam.group_by === "constraint" ? ", " + r.group : "") + "), " +
        submissionName(cols[j]) + ": " + metric + " " + (v === null ? "no score" : fmt(v, signed));
    }
    function cardHref(i, j) { return href({ s: cols[j], t: rows[i].task, query: rows[i].query }); }
    function cellAt(e) {
      var rect = canvas.getBoundingClientRect();
      var x = e.clientX - rect.left - gutter, y = e.clientY - rect.top - top;
      var j = Math.floor(x / cellW), i = Math.floor(y / cellH);
      return i >= 0 && i < rows.length && j >= 0 && j < cols.length && x >= 0 ? [i, j] : null;
    }
    canvas.addEventListener("mousemove", function (e) {
      var c = cellAt(e);
      canvas.title = c ? describe(c[0], c[1]) : "";
    });
    canvas.addEventListener("click", function (e) {
      var c = cellAt(e);
      if (c) go(cardHref(c[0], c[1]));
    });
    canvas.addEventListener("focus", function () { draw(cursor); status.textContent = describe(cursor[0], cursor[1]); });
    canvas.addEventListener("blur", function () { draw(null); });
    canvas.addEventListener("keydown", function (e) {
      var moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], PageUp: [-20, 0], PageDown: [20, 0] };
      if (e.key === "Enter") { e.preventDefault(); go(cardHref(cursor[0], cursor[1])); return; }
      var d = moves[e.key];
      if (e.key === "Home") d = [-rows.length, 0];
      if (e.key === "End") d = [rows.length, 0];
      if (!d) return;
      e.preventDefault();
      cursor = [Math.max(0, Math.min(rows.length - 1, cursor[0] + d[0])), Math.max(0, Math.min(cols.length - 1, cursor[1] + d[1]))];
      draw(cursor);
      status.textContent = describe(cursor[0], cursor[1]);
      var scroller = canvas.parentElement;
      var y = top + cursor[0] * cellH;
      if (y < scroller.scrollTop || y > scroller.scrollTop + scroller.clientHeight - 20) scroller.scrollTop = y - scroller.clientHeight / 2;
    });
    var heads = h("ol", { cls: "fb-x-heat-cols" }, cols.map(function (slug, j) {
      return h("li", null, nav(submissionName(slug), { s: slug, t: tids.join(",") }), " ",
        h("span", { cls: "fb-x-muted" }, "(column " + (j + 1) + ")"));
    }));
    var legend = h("p", { cls: "fb-x-legend" }, signed
      ? [h("span", { cls: "fb-x-swatch", style: "background:" + colour(range.low, range) }), " \u22121 (the wrong way) ",
         h("span", { cls: "fb-x-swatch", style: "background:" + colour(0, range) }), " 0 ",
         h("span", { cls: "fb-x-swatch", style: "background:" + colour(range.high, range) }), " +1 (as the instruction asks)"]
      : [h("span", { cls: "fb-x-swatch", style: "background:" + colour(range.low, range) }), " 0 ",
         h("span", { cls: "fb-x-swatch", style: "background:" + colour(range.high, range) }), " 1"],
      h("span", { cls: "fb-x-swatch fb-x-none" }), " no score");
    var missing = lists.filter(function (l) { return !l; }).length;
    heatHooks = { rows: rows, cols: cols, cellW: cellW, cellH: cellH, left: gutter, top: top, metric: metric };
    show(h("h2", null, "Heatmap: " + fam.title),
      [crumbs([nav("Explorer", {}), h("span", null, "heatmap of " + fam.title)]),
       h("p", { cls: "fb-x-note" }, "Each row is a query (grouped by " + fam.group_by + ", hardest first), each column a submission (left to right, best first); the colour is the query\u2019s " + metric + ". Click a cell, or focus the map and use the arrow keys and Enter, to open that query\u2019s card."),
       unknown.length ? h("p", { cls: "fb-x-error", role: "alert" }, "Not shown (no such submission with explanation files for these tasks): " + unknown.join(", ") + ".") : null,
       missing ? h("p", { cls: "fb-x-note" }, missing + " of " + jobs.length + " query lists could not be loaded; their cells are grey.") : null,
       controls, legend, status, h("div", { cls: "fb-x-heat-wrap" }, canvas), h("h4", null, "Columns"), heads]);
  }
  var heatHooks = null;

  /* ------------------------------------------------------------------ routing */

  async function route() {
    var id = ++renderId;
    host.setAttribute("data-state", "loading");
    var p = new URLSearchParams(location.search);
    try {
      if (!index) {
        var read = await need(new URL(host.getAttribute("data-index"), SITE_ROOT), "explorer's index");
        if (!read || read.format !== INDEX_FORMAT) {
          throw new UserError("The explorer's index (" + host.getAttribute("data-index") + ") is in format " +
            JSON.stringify(read && read.format) + ", and this page reads " + INDEX_FORMAT + ".",
            "The page and its files come from different versions of the site: rebuild it (leaderboard build).");
        }
        METRICS = read.metrics;
        index = read;
      }
      if (id !== renderId) return;
      if (p.get("view") === "heatmap") await renderHeatmap(p);
      else if (!p.get("s")) renderStart();
      else if (!p.get("t")) await renderSubmission(p);
      else if (p.get("query") !== null) await renderCard(p);
      else if (p.get("vs")) await renderCompareList(p);
      else await renderList(p);
    } catch (err) {
      if (id !== renderId) return;
      if (err instanceof LoadError) err = loadMessage(err, "file");
      if (!(err instanceof UserError)) {
        err = new UserError("Something went wrong while showing this view: " + (err && err.message ? err.message : err) + ".");
      }
      show(null, errorBox(err), "error");
      return;
    }
    if (id === renderId) document.dispatchEvent(new CustomEvent("fb:explorer", { detail: location.search }));
  }

  // For the browser tests and the benchmark; not an API.
  window.fbExplorer = { heat: function () { return heatHooks; }, route: route };

  route();
})();
