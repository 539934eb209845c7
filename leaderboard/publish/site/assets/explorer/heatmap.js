/* The heatmap (?view=heatmap&t=TASK): a family's queries (rows, grouped by constraint type
 * or by language) against its submissions (columns, best first), drawn on a canvas that
 * the mouse and the keyboard both read; a cell opens that query's card.
 */
var FBXHeatmap = (function () {
  "use strict";

  var h = FBXCommon.h, add = FBXCommon.add, fmt = FBXCommon.fmt, named = FBXCommon.named,
    isolated = FBXCommon.isolated;
  var F = FBXFrame, D = FBXData, Rows = FBXRows, R = FBXRecords, state = FBXState;
  var nav = F.nav, href = F.href;

  var HEAT_DEFAULT = 20;      // columns shown at first: the best submissions
  var HEAT_MAX = 50;          // ... and at most, whatever is picked (1,000 would be unreadable)
  var FETCHES_AT_ONCE = 8;

  // work(item) for every item, at most FETCHES_AT_ONCE at a time; results in order.
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

  // The ends of the scale in the cells' own units (x100, a signed measure with its sign),
  // not as fractions beside cells that say "+3.6".
  function end(v, signed) {
    var n = Math.round(v * 100);
    return n < 0 ? "\u2212" + (-n) : (signed && n > 0 ? "+" : "") + n;
  }

  // Why a column (records.js heatColumns) its family's table gives no rank comes after
  // the ranked ones, as the table's # cell says it: scored on another revision of the
  // data than the pin, or without a figure on every task of the family (its mean is
  // \u2013); null for a ranked one.
  function unranked(c) {
    if (c.unscored) return "not ranked: not scored on every task of the family";
    return c.scoredOn ? "not ranked: scored on " + c.scoredOn + ", another revision of the data than the board\u2019s" : null;
  }

  // The end of a note on the order of ``shown`` (columns of records.js heatColumns), where
  // it holds unranked ones: those off the pin after the ranked, by their own figure
  // (``offPin``, the note's words for them), then those not scored on every task.
  function after(shown, offPin) {
    var off = shown.some(function (c) { return c.scoredOn && !c.unscored; });
    var part = shown.some(function (c) { return c.unscored; });
    return (off ? ", then " + offPin + ", by their own figure" : "") +
      (part ? ", then those not ranked, not scored on every task of the family" : "");
  }

  function legend(range, signed) {
    var colour = Rows.colour;
    return h("p", { cls: "fb-x-legend" }, signed
      ? [h("span", { cls: "fb-x-swatch", style: "background:" + colour(range.low, range) }), " " + end(range.low, true) + " (the wrong way) ",
         h("span", { cls: "fb-x-swatch", style: "background:" + colour(0, range) }), " 0 ",
         h("span", { cls: "fb-x-swatch", style: "background:" + colour(range.high, range) }), " " + end(range.high, true) + " (as the instruction asks)"]
      : [h("span", { cls: "fb-x-swatch", style: "background:" + colour(range.low, range) }), " " + end(range.low, false) + " ",
         h("span", { cls: "fb-x-swatch", style: "background:" + colour(range.high, range) }), " " + end(range.high, false)],
      h("span", { cls: "fb-x-swatch fb-x-none" }), " no score");
  }

  // The form that picks the metric and the submissions shown.
  // ``why``: slug -> why each candidate not ranked is not (after the ranked).
  // ``columns``: the candidates as records.js heatColumns gives them.
  function controls(tid0, fam, columns, why, cols, picked, metric, metrics, primary) {
    var candidates = columns.map(function (c) { return c.slug; });
    var form = h("form", { cls: "fb-x-filters", onsubmit: function (e) { e.preventDefault(); } });
    var msel = h("select", { "aria-label": "Metric" }, metrics.map(function (m) { return h("option", { value: m }, D.metricLabel(m)); }));
    msel.value = metric;
    msel.addEventListener("change", function () { F.go(href({ view: "heatmap", t: tid0, m: msel.value, subs: picked.join(",") })); });
    add(form, h("label", null, "Metric ", msel));
    var pick = h("details", { cls: "fb-x-pick" }, h("summary", null, "Submissions shown: " + cols.length + " of " + candidates.length));
    var pf = h("input", { type: "search", placeholder: "filter by name", "aria-label": "Filter the submissions to pick", autocomplete: "off" });
    var boxes = h("div", { cls: "fb-x-pick-list" });
    candidates.forEach(function (slug, i) {
      var off = why[slug];
      add(boxes, h("label", { "data-slug": slug }, h("input", { type: "checkbox", value: slug, checked: cols.indexOf(slug) !== -1 }),
        off ? " \u2013 " : " " + (i + 1) + ". ", named(D.submissionName(slug)), off ? " (" + off + ")" : null));
    });
    pf.addEventListener("input", function () {
      var q = pf.value.trim().toLowerCase();
      Array.prototype.forEach.call(boxes.children, function (l) { l.hidden = q && l.textContent.toLowerCase().indexOf(q) === -1; });
    });
    var apply = h("button", { type: "button", cls: "md-button" }, "Show the ticked submissions");
    apply.addEventListener("click", function () {
      var ticked = Array.prototype.filter.call(boxes.querySelectorAll("input"), function (b) { return b.checked; }).map(function (b) { return b.value; });
      F.go(href({ view: "heatmap", t: tid0, m: metric, subs: ticked.slice(0, HEAT_MAX).join(",") }));
    });
    add(pick, h("p", { cls: "fb-x-note" }, "Up to " + HEAT_MAX + " at once, best first on " + primary +
      after(columns, "those not ranked (scored on another revision of the data)") + "; the first " + HEAT_DEFAULT + " are shown unless you pick others."), pf, boxes, apply);
    add(form, pick);
    return form;
  }

  // The canvas: a row per query, a column per submission; a gutter on the left names
  // groups, a band on top names each column (the submission, turned on its side).
  // ``layout``: {rows, cols, cellW, cellH, left, top, metric}; ``range``: the metric's.
  function canvasView(layout, fam, range, signed, status) {
    var rows = layout.rows, cols = layout.cols, cellW = layout.cellW, cellH = layout.cellH;
    var gutter = layout.left, top = layout.top, metric = layout.metric;
    var width = gutter + cols.length * cellW + 4, height = top + rows.length * cellH + 4;
    var canvas = h("canvas", { tabindex: "0", cls: "fb-x-heat", role: "img",
      "aria-label": "Heatmap of " + rows.length + " queries by " + cols.length + " submissions; arrow keys move, Enter opens the query's card",
      "data-cell-w": cellW, "data-cell-h": cellH, "data-left": gutter, "data-top": top, "data-rows": rows.length, "data-cols": cols.length });
    var ratio = window.devicePixelRatio || 1;
    canvas.width = width * ratio; canvas.height = height * ratio;
    canvas.style.width = width + "px"; canvas.style.height = height + "px";
    var cx = canvas.getContext("2d");
    cx.scale(ratio, ratio);
    var fg = getComputedStyle(F.host).color || "#333";
    function draw(cursor) {
      cx.clearRect(0, 0, width, height);
      cx.font = "11px sans-serif";
      cx.fillStyle = fg;
      cols.forEach(function (slug, j) {
        var name = D.submissionName(slug);
        cx.save();
        cx.translate(gutter + j * cellW + cellW / 2 + 4, top - 4);
        cx.rotate(-Math.PI / 2);
        cx.fillText((j + 1) + ". " + isolated(name.length > 15 ? name.slice(0, 14) + "\u2026" : name), 0, 0);
        cx.restore();
      });
      var last = null;
      rows.forEach(function (r, i) {
        var y = top + i * cellH;
        if (r.group !== last) {
          cx.fillStyle = fg;
          cx.fillRect(gutter - 4, y, width - gutter + 4, 1);
          var label = fam.group_by === "constraint" ? D.groupName(r.group) : r.group;
          cx.fillText(label.length > 21 ? label.slice(0, 20) + "\u2026" : label, 2, y + 11);
          last = r.group;
        }
        r.v.forEach(function (v, j) {
          var c = Rows.colour(v, range);
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
    var cursor = [0, 0];
    function describe(i, j) {
      var r = rows[i];
      var v = r.v[j];
      return r.query + " (" + state.index.tasks[r.task].label + (fam.group_by === "constraint" ? ", " + D.groupName(r.group) : "") + "), " +
        isolated(D.submissionName(cols[j])) + ": " + D.metricLabel(metric) + " " + (v === null ? "no score" : fmt(v, signed));
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
      if (c) F.go(cardHref(c[0], c[1]));
    });
    canvas.addEventListener("focus", function () { draw(cursor); status.textContent = describe(cursor[0], cursor[1]); });
    canvas.addEventListener("blur", function () { draw(null); });
    canvas.addEventListener("keydown", function (e) {
      var moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], PageUp: [-20, 0], PageDown: [20, 0] };
      if (e.key === "Enter") { e.preventDefault(); F.go(cardHref(cursor[0], cursor[1])); return; }
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
    return canvas;
  }

  async function renderHeatmap(p) {
    var index = state.index;
    var tid0 = D.taskIds(p)[0];
    var fam = D.family(tid0);
    var tids = fam.tasks;
    // Columns: the submissions with explanation files, in the order the tables show them
    // (best first on the mean of the family's task figures; then those the tables give no
    // rank, scored on another revision of the data than the pin, by their own figure;
    // last those without a figure on every task of the family).
    var columns = R.heatColumns(fam, index.order);
    var candidates = columns.map(function (c) { return c.slug; });
    var why = {};
    columns.forEach(function (c) { var w = unranked(c); if (w) why[c.slug] = w; });
    if (!candidates.length) throw new FBXLoad.UserError("No verified submission of " + fam.title + " has explanation files yet.");
    var asked = (p.get("subs") || "").split(",");
    var unknown = asked.filter(function (x) { return x && candidates.indexOf(x) === -1; });
    var cols = Rows.shownColumns(candidates, asked, HEAT_DEFAULT, HEAT_MAX);
    // What the link picked, which the metric's menu keeps (none: the default columns).
    var picked = unknown.length === asked.filter(Boolean).length ? [] : cols;
    var jobs = [];
    tids.forEach(function (tid) { cols.forEach(function (slug, col) { jobs.push({ tid: tid, slug: slug, col: col }); }); });
    var lists = await pool(jobs, function (job) {
      return D.queryList(job.slug, job.tid).catch(function () { return null; });
    });
    var metrics = Rows.metricsOf(lists.filter(Boolean));
    var primary = index.tasks[tid0].primary;
    var metric = Rows.defaultMetric(metrics, primary, p.get("m"));
    var range = D.metricInfo(metric), signed = !!range.signed;
    // Rows: (task, query), grouped by constraint type or by task (language, collection).
    var byConstraint = fam.group_by === "constraint";
    var rows = Rows.heatRows(lists.map(function (l, k) { return { rows: l && l.rows, col: jobs[k].col }; }), cols.length, metric,
      function (q) { return byConstraint ? (q.group || "\u2013") : index.tasks[q.task].label; },
      byConstraint ? null : tids.map(function (t) { return index.tasks[t].label; }));

    var cellW = Math.max(12, Math.min(40, Math.floor(700 / Math.max(cols.length, 1))));
    var cellH = rows.length > 2000 ? 2 : rows.length > 600 ? 3 : rows.length > 150 ? 5 : 9;
    var layout = { rows: rows, cols: cols, cellW: cellW, cellH: cellH, left: 130, top: 104, metric: metric };
    var status = h("p", { cls: "fb-x-status", "aria-live": "polite" }, "Point at or move to a cell to see its query; click or press Enter to open its card.");
    var canvas = canvasView(layout, fam, range, signed, status);
    var heads = h("ol", { cls: "fb-x-heat-cols" }, cols.map(function (slug, j) {
      return h("li", null, nav(named(D.submissionName(slug)), { s: slug, t: tids.join(",") }), " ",
        h("span", { cls: "fb-x-muted" }, "(column " + (j + 1) + (why[slug] ? "; " + why[slug] : "") + ")"));
    }));
    var missing = lists.filter(function (l) { return !l; }).length;
    state.heat = layout;
    F.show(h("h2", null, "Heatmap: " + fam.title),
      [F.crumbs([nav("Explorer", {}), h("span", null, "heatmap of " + fam.title)]),
       h("p", { cls: "fb-x-note" }, "Each row is a query (grouped by " + fam.group_by + ", hardest first), each column a submission (left to right, best first" + after(columns.filter(function (c) { return cols.indexOf(c.slug) !== -1; }), "those not ranked, scored on another revision of the data") + "); the colour is the query\u2019s " + D.metricLabel(metric) + ". Click a cell, or focus the map and use the arrow keys and Enter, to open that query\u2019s card."),
       unknown.length ? h("p", { cls: "fb-x-error", role: "alert" }, "Not shown (no such submission with explanation files for these tasks): " + unknown.join(", ") + ".") : null,
       missing ? h("p", { cls: "fb-x-note" }, missing + " of " + jobs.length + " query lists could not be loaded; their cells are grey.") : null,
       controls(tid0, fam, columns, why, cols, picked, metric, metrics, primary), legend(range, signed), status,
       h("div", { cls: "fb-x-heat-wrap" }, canvas), h("h3", null, "Columns"), heads]);
  }

  return { renderHeatmap: renderHeatmap };
})();
