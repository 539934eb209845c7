/* FollowBoard: every verified score on a leaderboard table links to the queries behind it.
 *
 * The table's column headers say which tasks and metric a column averages (data-tasks,
 * data-metric, data-group); a verified row names its submission (data-s). A score cell of
 * such a row becomes a link to the query explorer (explore.html?s=...&t=...), so the
 * pages carry no per-cell link markup (a submission page's cells name their metric, see
 * decorateScores): rows are decorated when they enter the page (the
 * tables keep at most 100 rows in the DOM, see leaderboard.js) once the browser is idle,
 * so sorting a table is not slowed by it. Vanilla JS, no network.
 */
(function () {
  "use strict";

  // The site root, from this script's own address (assets/explorer-links.js).
  var script = document.currentScript;
  var root = script ? script.src.replace(/assets\/explorer-links\.js(\?.*)?$/, "") : "";
  var EXPLORER = root + "explore.html";

  // Column index -> the part of the link after the submission (tasks, metric, group).
  function columns(table) {
    var out = {};
    if (!table.tHead) return out;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      var tasks = th.getAttribute("data-tasks");
      if (!tasks) return;
      var params = new URLSearchParams();
      params.set("t", tasks.split(" ").join(","));
      if (th.getAttribute("data-metric")) params.set("m", th.getAttribute("data-metric"));
      if (th.getAttribute("data-group")) params.set("g", th.getAttribute("data-group"));
      out[i] = "&" + params.toString();
    });
    return out;
  }

  // The cell's text goes into the link. A cell with details has a button that opens them
  // (assets/cell-details.js): the link takes its place, so that a cell has one control,
  // whose focus opens the details as the button's did.
  function wrap(cell, a) {
    var button = cell.querySelector("button.fb-detail");
    var from = button || cell;
    while (from.firstChild) a.appendChild(from.firstChild);
    if (button) cell.replaceChild(a, button);
    else cell.appendChild(a);
  }

  function decorate(row, cols) {
    if (row._fbExplore || !row.hasAttribute("data-s")) return;
    row._fbExplore = true;
    var start = EXPLORER + "?s=" + encodeURIComponent(row.getAttribute("data-s"));
    for (var i in cols) {
      var cell = row.cells[i];
      if (!cell || !cell.getAttribute("data-v")) continue;  // no score: nothing behind it
      var a = document.createElement("a");
      a.className = "fb-x-cell";
      a.href = start + cols[i];
      a.title = "The queries behind this score (query explorer)";
      wrap(cell, a);
    }
  }

  // A submission page's score table (table.fb-scores): one submission (the table's
  // data-s), a row per leaderboard table, so each cell names its metric (data-metric) and
  // the row the tasks and group its cells share (data-tasks, data-group); a cell whose
  // tasks differ carries its own, group included.
  function decorateScores(table) {
    var start = EXPLORER + "?s=" + encodeURIComponent(table.getAttribute("data-s"));
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      Array.prototype.forEach.call(row.cells, function (cell) {
        var metric = cell.getAttribute("data-metric");
        if (!metric || !cell.getAttribute("data-v")) return;
        var own = cell.hasAttribute("data-tasks");
        var tasks = (own ? cell : row).getAttribute("data-tasks") || "";
        var group = (own ? cell : row).getAttribute("data-group");
        var params = new URLSearchParams();
        params.set("t", tasks.split(" ").join(","));
        params.set("m", metric);
        if (group) params.set("g", group);
        var a = document.createElement("a");
        a.className = "fb-x-cell";
        a.href = start + "&" + params.toString();
        wrap(cell, a);
      });
    });
  }

  function setup(table) {
    if (table.classList.contains("fb-scores")) {
      if (table.hasAttribute("data-s") && table.tBodies[0]) decorateScores(table);
      return;
    }
    var cols = columns(table);
    if (!Object.keys(cols).length || !table.tBodies[0]) return;
    var body = table.tBodies[0];
    Array.prototype.forEach.call(body.rows, function (r) { decorate(r, cols); });
    var pending = [], scheduled = false;
    function flush() {
      scheduled = false;
      pending.splice(0).forEach(function (r) { decorate(r, cols); });
    }
    new MutationObserver(function (records) {
      records.forEach(function (rec) {
        rec.addedNodes.forEach(function (n) { if (n.nodeName === "TR" && !n._fbExplore) pending.push(n); });
      });
      if (pending.length && !scheduled) {
        scheduled = true;
        // When the browser is idle, after the rows are painted (Safari has no
        // requestIdleCallback: a short timeout instead).
        if (window.requestIdleCallback) requestIdleCallback(flush, { timeout: 300 });
        else setTimeout(flush, 50);
      }
    }).observe(body, { childList: true });
  }

  function init() { document.querySelectorAll("table.fb-table").forEach(setup); }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
