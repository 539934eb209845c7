/* Pure functions behind the explorer's tables and heatmap: the order of rows and metric
 * columns, compare mode's pairs of queries, the heatmap's rows and its colour scale.
 * Rows are the records of records.js. No DOM; tested under node
 * (tests/js/explorer-rows.test.js).
 */
var FBXRows = (function () {
  "use strict";

  function missing(v) { return v === null || v === undefined; }

  function sortValue(row, key) {
    if (key === "query") return row.query;
    if (key === "group") return row.group || "";
    if (key === "task") return row.task;
    return row.values[key];
  }

  // Sort list rows in place by a column ("query", "group", "task" or a metric key),
  // ``dir`` 1 ascending or -1 descending; a missing figure last either way. Ids compare
  // with their numbers as numbers ("q2" before "q10").
  function sortRows(rows, key, dir) {
    rows.sort(function (a, b) {
      var x = sortValue(a, key), y = sortValue(b, key);
      var xn = missing(x), yn = missing(y);
      if (xn || yn) return xn === yn ? 0 : xn ? 1 : -1;
      if (typeof x === "string") return dir * x.localeCompare(y, undefined, { numeric: true });
      return dir * (x - y);
    });
    return rows;
  }

  // The order a list sorted by a column starts in (1 ascending, -1 descending): worst
  // first for a measure the catalogue says is better higher or lower (``direction``, the
  // index's: ascending, descending); ascending for any other column ("neither", a share
  // that describes the data, sorts as "higher", measures.py; ids and names).
  function firstDir(direction) { return direction === "lower" ? -1 : 1; }

  // The order of a list sorted by the column ``label`` in ``dir``, in words: "worst
  // first on p-MRR", "best first on ECE", or, for a column neither better higher nor
  // lower (``direction`` "neither", or none: an id, a name), "sorted by Query, ascending".
  function orderText(label, dir, direction) {
    if (direction === "higher" || direction === "lower") {
      return (dir === firstDir(direction) ? "worst" : "best") + " first on " + label;
    }
    return "sorted by " + label + (dir > 0 ? ", ascending" : ", descending");
  }

  // The query list's rows as the reader sees them: those its filters keep (``view``:
  // find, a part of the query's id or an original query's whole id; group; task; only, a
  // signed metric below 0; each blank for all) in its sort (view.key, view.dir; sortRows).
  // A new array: ``rows`` keep their order.
  function shownRows(rows, view) {
    var q = (view.find || "").trim().toLowerCase(), o = view.only;
    return sortRows(rows.filter(function (r) {
      return (!q || r.query.toLowerCase().indexOf(q) !== -1 || (r.original || "").toLowerCase() === q) &&
        (!view.group || r.group === view.group) && (!view.task || r.task === view.task) &&
        (!o || (!missing(r.values[o]) && r.values[o] < 0));
    }), view.key, view.dir);
  }

  // Where the query (task, query) is in ``ordered`` rows, and the rows before and after
  // it (null at either end): a card's previous and next query. ``at`` is -1 when absent.
  function neighbours(ordered, task, query) {
    var at = -1;
    for (var i = 0; i < ordered.length; i++) {
      if (ordered[i].task === task && ordered[i].query === query) { at = i; break; }
    }
    return { at: at, prev: at > 0 ? ordered[at - 1] : null,
             next: at !== -1 && at < ordered.length - 1 ? ordered[at + 1] : null };
  }

  // The primary metric first, then the signed ones (p-MRR, IRS), then the original run's,
  // then the altered's, then the rest; by key within each.
  function orderMetrics(metrics, primary, isSigned) {
    function rank(m) {
      return m === primary ? 0 : isSigned(m) ? 1 : m.indexOf("original/") === 0 ? 2 : m.indexOf("altered/") === 0 ? 3 : 4;
    }
    return metrics.slice().sort(function (a, b) { return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0); });
  }

  // The metric a view shows first: the one asked for, else the primary, else ``fallback``
  // (the first of ``metrics`` unless given).
  function defaultMetric(metrics, primary, wanted, fallback) {
    if (wanted && metrics.indexOf(wanted) !== -1) return wanted;
    if (metrics.indexOf(primary) !== -1) return primary;
    return fallback === undefined ? metrics[0] : fallback;
  }

  // Every metric of ``lists`` once, in the order they first appear.
  function metricsOf(lists) {
    var out = [];
    lists.forEach(function (l) { l.metrics.forEach(function (m) { if (out.indexOf(m) === -1) out.push(m); }); });
    return out;
  }

  // Compare mode: the queries both submissions have, as {a, b, x, y, d} (their rows, their
  // figures on ``metric`` and d = y - x), ordered by |d|, largest first, a missing
  // difference last; and how many of them the second is higher, lower and equal on.
  function disagreements(rowsA, rowsB, metric) {
    var byKey = {};
    rowsB.forEach(function (r) { byKey[r.task + "\u0000" + r.query] = r; });
    var pairs = [];
    rowsA.forEach(function (r) {
      var o = byKey[r.task + "\u0000" + r.query];
      if (!o) return;
      var x = r.values[metric], y = o.values[metric];
      var d = missing(x) || missing(y) ? null : y - x;
      pairs.push({ a: r, b: o, x: x, y: y, d: d });
    });
    pairs.sort(function (u, v) {
      if (u.d === null || v.d === null) return u.d === v.d ? 0 : u.d === null ? 1 : -1;
      return Math.abs(v.d) - Math.abs(u.d) || (u.a.query < v.a.query ? -1 : 1);
    });
    var counts = { better: 0, worse: 0, same: 0 };
    pairs.forEach(function (p) {
      if (p.d === null) return;
      if (p.d > 0) counts.better++; else if (p.d < 0) counts.worse++; else counts.same++;
    });
    return { pairs: pairs, better: counts.better, worse: counts.worse, same: counts.same };
  }

  // The heatmap's rows: one per (task, query) of ``columns`` (each {rows: a list's rows or
  // null when it could not be loaded, col: its column}), {task, query, group, v: the
  // figure on ``metric`` per column or null, mean}, grouped by ``groupOf(row)`` (in
  // ``groupOrder`` when given, else by name), hardest first (lowest mean) in a group.
  function heatRows(columns, ncols, metric, groupOf, groupOrder) {
    var byKey = {}, rows = [];
    columns.forEach(function (c) {
      if (!c.rows) return;
      c.rows.forEach(function (q) {
        var key = q.task + "\u0000" + q.query;
        var r = byKey[key];
        if (!r) {
          r = byKey[key] = { task: q.task, query: q.query, group: groupOf(q), v: new Array(ncols).fill(null) };
          rows.push(r);
        }
        var v = q.values[metric];
        r.v[c.col] = v === undefined ? null : v;
      });
    });
    rows.forEach(function (r) {
      var vals = r.v.filter(function (x) { return x !== null; });
      r.mean = vals.length ? vals.reduce(function (a, b) { return a + b; }, 0) / vals.length : Infinity;
    });
    rows.sort(function (a, b) {
      var ga = groupOrder ? groupOrder.indexOf(a.group) : a.group, gb = groupOrder ? groupOrder.indexOf(b.group) : b.group;
      if (ga !== gb) return ga < gb ? -1 : 1;
      return a.mean - b.mean || (a.query < b.query ? -1 : 1);
    });
    return rows;
  }

  // The heatmap's columns: those of ``candidates`` (the family's submissions, in the
  // tables' order) that ``asked`` (a link's subs) names, each once and in that order,
  // whatever order the link names them in (the note above the map says best first, and
  // the picker's button writes them so); the first ``shown`` when it names none of them;
  // at most ``max``, the best of those named.
  function shownColumns(candidates, asked, shown, max) {
    var picked = candidates.filter(function (slug) { return asked.indexOf(slug) !== -1; });
    return (picked.length ? picked : candidates.slice(0, shown)).slice(0, max);
  }

  // A cell's colour on its metric's range ({signed, low, high}, from the index): a signed
  // metric diverges from white at 0, blue for followed (+), red for the wrong way (-);
  // others run from white at the low end to blue at the high end. Null for no figure.
  function colour(v, range) {
    if (missing(v)) return null;
    if (range.signed) {
      var t = v >= 0 ? Math.min(1, v / range.high) : -Math.min(1, v / range.low);
      return t >= 0 ? "rgb(" + Math.round(255 - 200 * t) + "," + Math.round(255 - 130 * t) + ",255)"
        : "rgb(255," + Math.round(255 + 170 * t) + "," + Math.round(255 + 170 * t) + ")";
    }
    var u = Math.max(0, Math.min(1, (v - range.low) / (range.high - range.low)));
    return "rgb(" + Math.round(255 - 205 * u) + "," + Math.round(255 - 120 * u) + "," + Math.round(255 - 60 * u) + ")";
  }

  return { sortRows: sortRows, firstDir: firstDir, orderText: orderText, shownRows: shownRows, neighbours: neighbours, orderMetrics: orderMetrics, defaultMetric: defaultMetric,
           metricsOf: metricsOf, disagreements: disagreements, heatRows: heatRows,
           shownColumns: shownColumns, colour: colour };
})();

if (typeof module !== "undefined") module.exports = FBXRows;
