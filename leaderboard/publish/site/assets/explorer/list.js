/* The query list (?s=SUB&t=TASK[,TASK...]): a submission's queries with its own figures,
 * sortable and filterable, each leading to its card; and the picker that opens compare
 * mode from it or from a card.
 */
var FBXList = (function () {
  "use strict";

  var h = FBXCommon.h, add = FBXCommon.add, fmt = FBXCommon.fmt, exact = FBXCommon.exact;
  var F = FBXFrame, D = FBXData, Rows = FBXRows, state = FBXState;
  var nav = F.nav, href = F.href;

  var LIST_LIMIT = 500;       // list rows on the page before "Show all"

  async function renderList(p) {
    var index = state.index;
    var slug = p.get("s");
    var tids = D.taskIds(p);
    var sub = D.submission(slug);
    var lists = await D.queryLists(slug, tids);
    var rows = [].concat.apply([], lists.map(function (l) { return l.rows; }));
    var multi = tids.length > 1;
    var primary = index.tasks[tids[0]].primary;
    var metrics = Rows.orderMetrics(Rows.metricsOf(lists), primary, D.signedMetric);
    var sortKey = Rows.defaultMetric(metrics, primary, p.get("m"));
    var sortDir = 1;   // worst first: where the model fails
    var groups = [];
    rows.forEach(function (r) { if (r.group && groups.indexOf(r.group) === -1) groups.push(r.group); });
    groups.sort();
    var hasOriginal = rows.some(function (r) { return r.original; });

    var search = h("input", { type: "search", name: "q", placeholder: "query id", autocomplete: "off", "aria-label": "Filter queries by id" });
    var groupSel = h("select", { name: "g", "aria-label": "Constraint type" }, h("option", { value: "" }, "all"),
      groups.map(function (g) { return h("option", { value: g }, D.groupName(g)); }));
    if (p.get("g") && groups.indexOf(p.get("g")) !== -1) groupSel.value = p.get("g");
    var taskSel = h("select", { name: "task", "aria-label": "Task" }, h("option", { value: "" }, "all"),
      tids.map(function (t) { return h("option", { value: t }, index.tasks[t].label); }));
    var signed = metrics.filter(D.signedMetric);
    var only = h("select", { name: "only", "aria-label": "Which queries" }, h("option", { value: "" }, "all queries"),
      signed.map(function (m) { return h("option", { value: m }, m + " below 0 (the wrong way)"); }));
    var form = h("form", { cls: "fb-x-filters", role: "search", onsubmit: function (e) { e.preventDefault(); } },
      h("label", null, "Query ", search),
      groups.length ? h("label", null, "Constraint ", groupSel) : null,
      multi ? h("label", null, "Task ", taskSel) : null,
      signed.length ? h("label", null, "Show ", only) : null,
      compareSelect(tids, slug, function (other) { return href({ s: slug, t: tids.join(","), vs: other, m: sortKey }); }));
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
    metrics.forEach(function (m) { cols.push({ key: m, label: D.metricLabel(m), help: D.metricHelp(m) }); });

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
      Rows.sortRows(shown, sortKey, sortDir);
      var body = h("tbody");
      var limit = showAll ? shown.length : Math.min(shown.length, LIST_LIMIT);
      for (var i = 0; i < limit; i++) {
        var r = shown[i];
        var tr = h("tr", { "data-q": r.query, "data-task": r.task });
        add(tr, h("td", { cls: "fb-x-id" }, nav(r.query, { s: slug, t: r.task, query: r.query }, { title: "Open the card of query " + r.query })));
        if (hasOriginal) add(tr, h("td", { cls: "fb-x-id" }, r.original || ""));
        if (groups.length) add(tr, h("td", { title: r.group ? D.groupName(r.group) : null }, r.group || ""));
        if (multi) add(tr, h("td", null, index.tasks[r.task].label));
        metrics.forEach(function (m) {
          var v = r.values[m];
          add(tr, h("td", { "data-v": exact(v), "data-metric": m, cls: v !== null && v !== undefined && D.signedMetric(m) && v < 0 ? "fb-x-neg" : null },
            fmt(v, D.signedMetric(m))));
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
    // The heatmap draws one family's queries: offered when the list is one family (a list
    // of four datasets linked the first dataset's heatmap under "these queries").
    var oneFamily = tids.every(function (t) { return index.tasks[t].family === index.tasks[tids[0]].family; });
    var intro = h("p", { cls: "fb-x-note" },
      "Each query with ", F.subPage(slug), "\u2019s own scores (\u00d7100), worst first on " + D.metricLabel(sortKey) +
      ". Click a query for its card; click a column to sort.",
      oneFamily ? [" ", nav("Heatmap of these queries against other submissions", { view: "heatmap", t: tids[0], m: sortKey }), "."] : null);
    F.show(h("h2", null, "Queries of " + sub.name + " on " + D.taskTitle(tids)),
      [F.crumbs([nav("Explorer", {}), nav(sub.name, { s: slug }), h("span", null, D.taskTitle(tids))]),
       intro, form, count, wrap, more]);
  }

  // A select of the other submissions with explanation files on this task; picking one
  // goes to ``target(slug)``.
  // ``tids``: a task id, or the tasks of a list; each option shows the submission's mean of
  // their primary figures, as the table's average does (it showed the first task's).
  function compareSelect(tids, slug, target) {
    tids = [].concat(tids);
    var sel = h("select", { cls: "fb-x-compare-pick", "aria-label": "Compare with another submission" },
      h("option", { value: "" }, "pick a submission\u2026"));
    var label = h("label", { cls: "fb-x-compare" }, "Compare with ", sel);
    var signed = D.signedMetric(state.index.tasks[tids[0]].primary);
    Promise.all(tids.map(D.taskSubmissions)).then(function (perTask) {
      var seen = {};
      perTask.forEach(function (subs) {
        subs.forEach(function (e) {
          var s = seen[e.slug] || (seen[e.slug] = { n: 0, sum: 0, explained: true });
          s.n += 1; s.sum += e.primary; s.explained = s.explained && e.explained;
        });
      });
      perTask[0].forEach(function (e) {
        var s = seen[e.slug];
        if (e.slug === slug || !s.explained || s.n !== tids.length) return;
        add(sel, h("option", { value: e.slug }, D.submissionName(e.slug) + " (" + fmt(s.sum / s.n, signed) + ")"));
      });
      if (sel.options.length === 1) { sel.disabled = true; sel.options[0].textContent = "no other submission has this task"; }
    }).catch(function () { sel.disabled = true; });
    sel.addEventListener("change", function () { if (sel.value) F.go(target(sel.value)); });
    return label;
  }

  return { renderList: renderList, compareSelect: compareSelect };
})();
