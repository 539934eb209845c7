/* The query list (?s=SUB&t=TASK[,TASK...]): a submission's queries with its own figures,
 * sortable and filterable, each leading to its card; and the picker that opens compare
 * mode from it or from a card.
 */
var FBXList = (function () {
  "use strict";

  var h = FBXCommon.h, add = FBXCommon.add, fmt = FBXCommon.fmt, exact = FBXCommon.exact,
    plural = FBXCommon.plural, named = FBXCommon.named, isolated = FBXCommon.isolated;
  var F = FBXFrame, D = FBXData, Rows = FBXRows, state = FBXState;
  var nav = F.nav, href = F.href;

  var LIST_LIMIT = 500;       // list rows on the page before "Show all"

  // FollowTable's constraint type, one column wherever queries are listed (the query
  // list, compare mode): its code, with the type's full name on it.
  var GROUP_COLUMN = { key: "group", label: "Constraint", text: true, help: "FollowTable's constraint type of the instruction" };
  function groupCell(group) { return h("td", { title: group ? D.groupName(group) : null }, group || ""); }

  // A list of ``tids`` (its ``lists``): its rows, metric columns in order, constraint
  // types, and its sort and filters as the address ``p`` gives them (links.js listView),
  // each kept only where the list has that column or value. By default: the primary
  // metric, worst first (where the model fails: ascending, or descending for a measure
  // the catalogue says is better lower). A card reads it too, to step through the
  // queries in the order the list showed them.
  function listModel(lists, tids, p) {
    var rows = [].concat.apply([], lists.map(function (l) { return l.rows; }));
    var primary = state.index.tasks[tids[0]].primary;
    var metrics = Rows.orderMetrics(Rows.metricsOf(lists), primary, D.signedMetric);
    var groups = [];
    rows.forEach(function (r) { if (r.group && groups.indexOf(r.group) === -1) groups.push(r.group); });
    groups.sort();
    var view = FBXLinks.listView(p);
    var keys = ["query"].concat(groups.length ? ["group"] : [], tids.length > 1 ? ["task"] : [], metrics);
    if (keys.indexOf(view.key) === -1) view.key = Rows.defaultMetric(metrics, primary, null);
    if (groups.indexOf(view.group) === -1) view.group = "";
    if (tids.length < 2 || tids.indexOf(view.task) === -1) view.task = "";
    if (metrics.filter(D.signedMetric).indexOf(view.only) === -1) view.only = "";
    sortBy(view, metrics, view.key, view.dir);
    return { rows: rows, metrics: metrics, groups: groups, view: view };
  }

  // The catalogue's direction of a column of a list of ``metrics`` (null for an id or a
  // name), the index's.
  function directionOf(metrics, key) {
    return metrics.indexOf(key) !== -1 ? D.metricInfo(key).direction : null;
  }

  // Sort ``view`` by the column ``key`` in ``dir`` (0: the column's first order, worst
  // first on a metric; rows.js firstDir), noting that first order (links.js).
  function sortBy(view, metrics, key, dir) {
    view.key = key;
    view.first = Rows.firstDir(directionOf(metrics, key));
    view.dir = dir || view.first;
  }

  // The address of a card opened from a list of ``tids`` shown as ``view``: its previous
  // and next query are those around it in that list (card.js).
  function cardParams(slug, row, tids, view) {
    return Object.assign({ s: slug, t: row.task, query: row.query,
                           list: tids.length > 1 ? tids.join(",") : "" },
                         FBXLinks.listViewParams(view));
  }

  async function renderList(p) {
    var index = state.index;
    var slug = p.get("s");
    var tids = D.taskIds(p);
    var sub = D.submission(slug);
    var lists = await D.queryLists(slug, tids);
    var model = listModel(lists, tids, p);
    var rows = model.rows, metrics = model.metrics, groups = model.groups, view = model.view;
    var multi = tids.length > 1;
    var hasOriginal = rows.some(function (r) { return r.original; });
    // The metric a heatmap or compare mode opened from here shows: the sorted one, if a metric.
    function metricKey() { return metrics.indexOf(view.key) !== -1 ? view.key : ""; }

    var search = h("input", { type: "search", name: "q", placeholder: "query id", autocomplete: "off", "aria-label": "Filter queries by id" });
    search.value = view.find;
    var groupSel = h("select", { name: "g", "aria-label": "Constraint type" }, h("option", { value: "" }, "all"),
      groups.map(function (g) { return h("option", { value: g }, D.groupName(g)); }));
    groupSel.value = view.group;
    var taskSel = h("select", { name: "task", "aria-label": "Task" }, h("option", { value: "" }, "all"),
      tids.map(function (t) { return h("option", { value: t }, index.tasks[t].label); }));
    taskSel.value = view.task;
    var signed = metrics.filter(D.signedMetric);
    var only = h("select", { name: "only", "aria-label": "Which queries" }, h("option", { value: "" }, "all queries"),
      signed.map(function (m) { return h("option", { value: m }, m + " below 0 (the wrong way)"); }));
    only.value = view.only;
    // Named: the page has another search landmark, Material's site search.
    var form = h("form", { cls: "fb-x-filters", role: "search", "aria-label": "Filter the queries", onsubmit: function (e) { e.preventDefault(); } },
      h("label", null, "Query ", search),
      groups.length ? h("label", null, "Constraint ", groupSel) : null,
      multi ? h("label", null, "Task ", taskSel) : null,
      signed.length ? h("label", null, "Show ", only) : null,
      compareSelect(tids, slug, function (other) { return href({ s: slug, t: tids.join(","), vs: other, m: metricKey() }); }));
    var count = h("p", { cls: "fb-x-count", "aria-live": "polite" });
    // What the intro says the list shows, set as it is drawn: its order in words, and the
    // heatmap of its queries on the metric sorted by. The heatmap draws one family's
    // queries: offered when the list is one family (a list of four datasets linked the
    // first dataset's heatmap under "these queries").
    var order = h("span", { cls: "fb-x-order" });
    var oneFamily = tids.every(function (t) { return index.tasks[t].family === index.tasks[tids[0]].family; });
    var heatmap = oneFamily ? nav("Heatmap of these queries against other submissions", { view: "heatmap", t: tids[0] }) : null;
    var table = h("table", { cls: "fb-x-table fb-x-list" });
    var wrap = h("div", { cls: "fb-x-wrap" }, table);
    var more = h("button", { type: "button", cls: "md-button fb-x-more" });
    var showAll = false;
    more.addEventListener("click", function () { showAll = !showAll; draw(); });

    var cols = [{ key: "query", label: "Query", text: true }];
    if (hasOriginal) cols.push({ key: "original", label: "Original query", text: true, nosort: true,
      help: "the query the altered one is compared with (FollowTable: the topic alone)" });
    if (groups.length) cols.push(GROUP_COLUMN);
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
            sortBy(view, metrics, c.key, view.key === c.key ? -view.dir : 0);
            draw();
          });
          add(th, btn);
          if (view.key === c.key) th.setAttribute("aria-sort", view.dir > 0 ? "ascending" : "descending");
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
      view.find = search.value; view.group = groupSel.value; view.task = taskSel.value; view.only = only.value;
      var shown = Rows.shownRows(rows, view);
      // The address keeps the list's order and filters: back from a card, or a copied
      // link, shows the list as it was.
      if (drawn) history.replaceState(null, "", href(Object.assign({ s: slug, t: tids.join(",") }, FBXLinks.listViewParams(view))));
      drawn = true;
      var body = h("tbody");
      var limit = showAll ? shown.length : Math.min(shown.length, LIST_LIMIT);
      for (var i = 0; i < limit; i++) {
        var r = shown[i];
        var tr = h("tr", { "data-q": r.query, "data-task": r.task });
        add(tr, h("td", { cls: "fb-x-id" }, nav(r.query, cardParams(slug, r, tids, view), { title: "Open the card of query " + r.query })));
        if (hasOriginal) add(tr, h("td", { cls: "fb-x-id" }, r.original || ""));
        if (groups.length) add(tr, groupCell(r.group));
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
      var sortCol = cols.filter(function (c) { return c.key === view.key; })[0];
      order.textContent = Rows.orderText(sortCol.label, view.dir, directionOf(metrics, view.key));
      if (heatmap) heatmap.href = href({ view: "heatmap", t: tids[0], m: metricKey() });
      if (refocus) table.querySelector('th[data-key="' + refocus + '"] button').focus();
      count.textContent = shown.length === rows.length
        ? plural(rows.length, "query") + (limit < shown.length ? ", the first " + limit + " shown" : "")
        : shown.length.toLocaleString("en-US") + " of " + plural(rows.length, "query") + " match" + (limit < shown.length ? ", the first " + limit + " shown" : "");
      more.hidden = shown.length <= LIST_LIMIT;
      more.textContent = showAll ? "Show the first " + LIST_LIMIT : "Show all " + shown.length;
    }
    // Redraw only when a filter really changed: a search box also fires "change" when it
    // loses focus, which would replace the row under a click on its query (no click).
    var filterKey = null, drawn = false;
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
      "Each query with ", F.subPage(slug), "\u2019s own scores (\u00d7100), ", order,
      ". Click a query for its card, whose previous and next query follow this list as you sort and filter it; click a column to sort (from the keyboard: Tab into the list, the arrow keys to a query or a column, Enter).",
      heatmap ? [" ", heatmap, "."] : null);
    F.show(h("h2", null, "Queries of ", named(sub.name), " on " + D.taskTitle(tids)),
      [F.crumbs([nav("Explorer", {}), nav(named(sub.name), { s: slug }), h("span", null, D.taskTitle(tids))]),
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
        add(sel, h("option", { value: e.slug }, isolated(D.submissionName(e.slug)) + " (" + fmt(s.sum / s.n, signed) + ")"));
      });
      if (sel.options.length === 1) { sel.disabled = true; sel.options[0].textContent = "no other submission has this task"; }
    }).catch(function () { sel.disabled = true; });
    sel.addEventListener("change", function () { if (sel.value) F.go(target(sel.value)); });
    return label;
  }

  return { renderList: renderList, compareSelect: compareSelect, listModel: listModel,
           GROUP_COLUMN: GROUP_COLUMN, groupCell: groupCell };
})();
