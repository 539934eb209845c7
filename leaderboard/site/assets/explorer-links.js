/* FollowBoard: every verified score on a leaderboard table links to the queries behind it.
 *
 * The table's column headers say which tasks and metric a column averages (data-tasks,
 * data-metric, data-group); a verified row names its submission (data-s). A score cell of
 * such a row becomes a link to the query explorer (explore.html?s=...&t=...), so the
 * pages carry no per-cell link markup: rows are decorated when they enter the page (the
 * tables keep at most 100 rows in the DOM, see leaderboard.js). Vanilla JS, no network.
 */
(function () {
  "use strict";

  // The site root, from this script's own address (assets/explorer-links.js).
  var script = document.currentScript;
  var root = script ? script.src.replace(/assets\/explorer-links\.js(\?.*)?$/, "") : "";
  var EXPLORER = root + "explore.html";

  function columns(table) {
    var out = {};
    if (!table.tHead) return out;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      var tasks = th.getAttribute("data-tasks");
      if (tasks) out[i] = th;
    });
    return out;
  }

  function href(slug, th) {
    var params = new URLSearchParams();
    params.set("s", slug);
    params.set("t", th.getAttribute("data-tasks").split(" ").join(","));
    var metric = th.getAttribute("data-metric");
    if (metric) params.set("m", metric);
    var group = th.getAttribute("data-group");
    if (group) params.set("g", group);
    return EXPLORER + "?" + params.toString();
  }

  function decorate(row, cols) {
    if (row._fbExplore || !row.hasAttribute("data-s")) return;
    row._fbExplore = true;
    var slug = row.getAttribute("data-s");
    for (var i in cols) {
      var cell = row.cells[i];
      if (!cell || !cell.getAttribute("data-v")) continue;  // no score: nothing behind it
      var a = document.createElement("a");
      a.className = "fb-x-cell";
      a.href = href(slug, cols[i]);
      a.title = "The queries behind this score (query explorer)";
      while (cell.firstChild) a.appendChild(cell.firstChild);
      cell.appendChild(a);
    }
  }

  function setup(table) {
    var cols = columns(table);
    if (!Object.keys(cols).length || !table.tBodies[0]) return;
    var body = table.tBodies[0];
    Array.prototype.forEach.call(body.rows, function (r) { decorate(r, cols); });
    new MutationObserver(function (records) {
      records.forEach(function (rec) {
        rec.addedNodes.forEach(function (n) { if (n.nodeName === "TR") decorate(n, cols); });
      });
    }).observe(body, { childList: true });
  }

  function init() { document.querySelectorAll("table.fb-table").forEach(setup); }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
