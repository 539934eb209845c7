/* Compare mode's list (?s=SUB&vs=OTHER&t=TASK[,TASK...]): the queries two submissions have,
 * ordered by how much they disagree on a metric.
 */
var FBXCompare = (function () {
  "use strict";

  var h = FBXCommon.h, add = FBXCommon.add, fmt = FBXCommon.fmt, exact = FBXCommon.exact,
    named = FBXCommon.named;
  var F = FBXFrame, D = FBXData, Rows = FBXRows, state = FBXState;
  var nav = F.nav;

  // The comparison of two submissions' lists of ``tids`` (``listsA``, ``listsB``) on the
  // metric ``wanted``, else the primary, else the first signed one: the metrics both
  // have, the one compared, and the queries in order of disagreement (rows.js). A card
  // compared from here steps through the queries in that order.
  function comparison(listsA, listsB, tids, wanted) {
    function rowsOf(lists) { return [].concat.apply([], lists.map(function (l) { return l.rows; })); }
    var metrics = listsA[0].metrics.filter(function (m) { return listsB[0].metrics.indexOf(m) !== -1; });
    var primary = state.index.tasks[tids[0]].primary;
    var metric = Rows.defaultMetric(metrics, primary, wanted, metrics.filter(D.signedMetric)[0] || metrics[0]);
    return { metrics: metrics, metric: metric, found: Rows.disagreements(rowsOf(listsA), rowsOf(listsB), metric) };
  }

  async function renderCompareList(p) {
    var index = state.index;
    var a = p.get("s"), b = p.get("vs");
    var tids = D.taskIds(p);
    var subA = D.submission(a), subB = D.submission(b);
    var got = await Promise.all([D.queryLists(a, tids), D.queryLists(b, tids)]);
    var cmp = comparison(got[0], got[1], tids, p.get("m"));
    var metrics = cmp.metrics, metric = cmp.metric, found = cmp.found;
    var signed = D.signedMetric(metric);
    var pairs = found.pairs;
    var sel = h("select", { "aria-label": "Metric to compare" }, metrics.map(function (m) { return h("option", { value: m }, D.metricLabel(m)); }));
    sel.value = metric;
    sel.addEventListener("change", function () { F.go(F.href({ s: a, vs: b, t: tids.join(","), m: sel.value })); });
    var multi = tids.length > 1;
    var hasGroup = pairs.some(function (x) { return x.a.group; });
    var head = h("tr", null, h("th", { scope: "col" }, "Query"),
      hasGroup ? h("th", { scope: "col", title: FBXList.GROUP_COLUMN.help }, FBXList.GROUP_COLUMN.label) : null,
      multi ? h("th", { scope: "col" }, "Task") : null,
      h("th", { scope: "col", cls: "fb-x-name", dir: "auto" }, subA.name), h("th", { scope: "col", cls: "fb-x-name", dir: "auto" }, subB.name),
      h("th", { scope: "col", title: "second minus first" }, "Difference"));
    var body = h("tbody");
    pairs.forEach(function (x) {
      add(body, h("tr", { "data-q": x.a.query, "data-task": x.a.task },
        h("td", { cls: "fb-x-id" }, nav(x.a.query, { s: a, vs: b, t: x.a.task, query: x.a.query, list: multi ? tids.join(",") : "", m: metric })),
        hasGroup ? FBXList.groupCell(x.a.group) : null,
        multi ? h("td", null, index.tasks[x.a.task].label) : null,
        h("td", { "data-v": exact(x.x), "data-side": "a" }, fmt(x.x, signed)),
        h("td", { "data-v": exact(x.y), "data-side": "b" }, fmt(x.y, signed)),
        h("td", { "data-v": exact(x.d), "data-side": "d", cls: x.d < 0 ? "fb-x-neg" : null }, fmt(x.d, true))));
    });
    var swap = nav("swap the two", { s: b, vs: a, t: tids.join(","), m: metric });
    var title = D.taskTitle(tids);
    F.show(h("h2", null, "Where ", named(subA.name), " and ", named(subB.name), " disagree"),
      [F.crumbs([nav("Explorer", {}), nav(named(subA.name), { s: a }), nav(title, { s: a, t: tids.join(",") }), h("span", null, "compared with ", named(subB.name))]),
       h("p", { cls: "fb-x-note" }, "The queries of " + title + " ordered by how much the two submissions differ in ", h("label", null, sel),
         " (\u00d7100; difference = second \u2212 first). The second is higher on " + found.better + ", lower on " + found.worse + ", equal on " + found.same + " queries. Click a query to see both cards side by side (", swap, ")."),
       h("div", { cls: "fb-x-wrap" }, h("table", { cls: "fb-x-table fb-x-compare-list" }, h("thead", null, head), body))]);
  }

  return { renderCompareList: renderCompareList, comparison: comparison };
})();
