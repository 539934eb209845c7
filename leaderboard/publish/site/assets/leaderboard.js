/* FollowBoard site behaviour: sortable and filterable tables, tab permalinks, charts.
 *
 * Vanilla JS, no dependencies, no network. Tables are server-rendered HTML; every
 * numeric cell carries its exact value in data-v, which sorting and the charts read, so
 * there is no second copy of the data. Text that reaches the DOM goes through
 * textContent (never innerHTML), so names from metadata stay text.
 */
(function () {
  "use strict";

  var SVG = "http://www.w3.org/2000/svg";
  // Rows on screen before "Show all": the browser lays out every row in the DOM on each
  // sort, which for 1,000 rows costs hundreds of milliseconds; 100 keep it interactive.
  var ROW_LIMIT = 100;

  /* ------------------------------------------------------------------ row model */

  // Each table keeps all its rows, in the current order, in a JS array; only the rows
  // that pass the filters, up to ROW_LIMIT unless "Show all" is on, sit in the DOM.
  // A row's `hidden` property records whether the filters let it through.
  var models = new WeakMap();

  function model(table) {
    var m = models.get(table);
    if (!m) {
      m = { rows: Array.prototype.slice.call(table.tBodies[0] ? table.tBodies[0].rows : []),
            all: false };
      models.set(table, m);
    }
    return m;
  }

  // Forget the model and rebuild it from the rows now in the DOM (used by tests that
  // grow a table in place).
  function resetModel(table) {
    var m = model(table);
    var body = table.tBodies[0];
    var inDom = Array.prototype.slice.call(body.rows);
    var seen = new Set(inDom);
    m.rows.forEach(function (r) { if (!seen.has(r)) inDom.push(r); });
    m.rows = inDom;
    render(table);
  }

  function render(table) {
    var m = model(table);
    var body = table.tBodies[0];
    if (!body) return;
    var frag = document.createDocumentFragment();
    var passing = 0, shown = 0;
    for (var i = 0; i < m.rows.length; i++) {
      var row = m.rows[i];
      if (row.hidden) continue;
      passing++;
      if (m.all || passing <= ROW_LIMIT) { frag.appendChild(row); shown++; }
    }
    body.textContent = "";
    body.appendChild(frag);
    var view = table.closest(".fb-view");
    if (!view) return;
    var count = view.querySelector(".fb-count");
    if (count) {
      var total = m.rows.length;
      count.textContent = passing === total
        ? (shown < passing ? "top " + shown + " of " + passing + " rows" : "")
        : shown + " of " + passing + " matching rows (" + total + " in all)";
    }
    var button = view.querySelector("button.fb-more");
    if (passing > ROW_LIMIT) {
      if (!button) {
        button = document.createElement("button");
        button.type = "button";
        button.className = "fb-more md-button";
        button.addEventListener("click", function () {
          model(table).all = !model(table).all;
          render(table);
        });
        var wrap = view.querySelector(".fb-table-wrap");
        wrap.parentNode.insertBefore(button, wrap.nextSibling);
      }
      button.style.display = "";
      button.textContent = m.all ? "Show the top " + ROW_LIMIT + " rows" : "Show all " + passing + " rows";
    } else if (button) {
      button.style.display = "none";  // Material's .md-button would override [hidden]
    }
  }

  /* ------------------------------------------------------------------ sorting */

  // A numeric cell's key is its data-v; an unranked row's # cell (data-v empty) keeps its
  // place in the default order in data-o.
  function cellKey(cell, numeric) {
    if (!cell) return null;
    if (numeric) {
      var raw = cell.getAttribute("data-v");
      if (raw === "" && cell.hasAttribute("data-o")) raw = cell.getAttribute("data-o");
      if (raw === null || raw === "") return null;
      var v = parseFloat(raw);
      return isNaN(v) ? null : v;
    }
    var named = cell.querySelector(".fb-n");  // the name, without its provenance badge
    var t = (named || cell).textContent.trim().toLowerCase();
    return t === "" || t === "–" ? null : t;
  }

  // Sort a table by column `index`. Missing values always go last, whatever the
  // direction, and before them the figures not ranked with the others (ordered among
  // themselves): those scored on another data revision than the board's (data-o), and
  // those of the provenance the column's header does not rank (unrankedIn); equal values
  // keep their current order (the sort is stable).
  function sortTable(table, index, descending) {
    if (!table.tBodies[0]) return;
    var m = model(table);
    var th = table.tHead.rows[0].cells[index];
    var numeric = th.getAttribute("data-sort") === "num";
    var apart = unrankedIn(table, index);
    var rows = m.rows;
    var keyed = new Array(rows.length);
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      // Keys are read from the DOM once per row and column, then kept on the row.
      var cache = row._fbKeys || (row._fbKeys = {});
      if (!(index in cache)) cache[index] = cellKey(row.cells[index], numeric);
      keyed[i] = { row: row, key: cache[index], pos: i,
                   off: offPin(row.cells[index]) || apartRow(row, apart) };
    }
    var dir = descending ? -1 : 1;
    keyed.sort(function (a, b) {
      if (a.key === null || b.key === null) {
        if (a.key === b.key) return a.pos - b.pos;
        return a.key === null ? 1 : -1;
      }
      if (a.off !== b.off) return a.off ? 1 : -1;
      if (a.key < b.key) return -dir;
      if (a.key > b.key) return dir;
      return a.pos - b.pos;
    });
    for (var j = 0; j < keyed.length; j++) rows[j] = keyed[j].row;
    renumber(table, index, numeric, apart);
    render(table);
    var heads = table.tHead.rows[0].cells;
    for (var k = 0; k < heads.length; k++) heads[k].removeAttribute("aria-sort");
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    table.setAttribute("data-sorted-col", index);
    revealColumn(table, index);
  }

  function offPin(cell) {
    return !!cell && cell.hasAttribute("data-o");
  }

  // The provenance ("reported") whose figures column `index` does not rank against the
  // others' (its header's data-unranked: a source's convention the board's figures are not
  // on, as the table's note says), or null: none, or no other row has a figure there to
  // be ranked against, and those figures then rank among themselves.
  function unrankedIn(table, index) {
    var th = table.tHead.rows[0].cells[index];
    var apart = th && th.getAttribute("data-unranked");
    if (!apart) return null;
    var others = model(table).rows.some(function (row) {
      var p = row.getAttribute("data-p"), cell = row.cells[index];
      return p !== apart && p !== "reference" && !!cell && cell.getAttribute("data-v") !== "";
    });
    return others ? apart : null;
  }

  function apartRow(row, apart) {
    return apart !== null && row.getAttribute("data-p") === apart;
  }

  // After a sort the # column shows each row's position in the new order (rows without a
  // value in the sorted column, or whose value there is not ranked with the others: scored
  // on another data revision than the board's, or of the provenance `apart` the column
  // does not rank, and the no-skill reference row, get none); its data-v keeps the
  // default position (data-o an unranked row's), so sorting by # restores the default
  // order.
  function renumber(table, index, numeric, apart) {
    var heads = table.tHead.rows[0].cells;
    if (!heads[0] || heads[0].textContent !== "#") return;
    var n = 0;
    model(table).rows.forEach(function (row) {
      var cell = row.cells[0];
      var ref = row.getAttribute("data-p") === "reference";
      var has = index === 0 ? cell.getAttribute("data-v") !== "" :
        (!numeric || (row.cells[index] && row.cells[index].getAttribute("data-v") !== "" &&
                      !offPin(row.cells[index]) && !apartRow(row, apart)));
      cell.textContent = ref || !has ? "–" : String(++n);
    });
  }

  // Scroll a wide table sideways so that column `index` sits just right of the sticky
  // name column: on a phone the sorted column is otherwise off-screen.
  function revealColumn(table, index) {
    var wrap = table.closest(".fb-table-wrap");
    var th = table.tHead && table.tHead.rows[0].cells[index];
    // Only a table that scrolls (markOverflow marks it) is measured: reading positions
    // forces a layout, which a sort of a table that fits should not pay for.
    if (!wrap || !th || !wrap.classList.contains("fb-scrolls")) return;
    var sticky = table.tHead.rows[0].cells[1];
    var left = sticky ? sticky.offsetLeft + sticky.offsetWidth : 0;
    var start = th.offsetLeft, end = start + th.offsetWidth;
    if (start >= wrap.scrollLeft + left && end <= wrap.scrollLeft + wrap.clientWidth) return;
    wrap.scrollLeft = Math.max(0, Math.min(start - left, wrap.scrollWidth - wrap.clientWidth));
  }

  // A sortable header's label goes into a button (the WAI-ARIA sortable table): a screen
  // reader names it as a button that sorts, and the button takes Enter and Space itself.
  // aria-sort stays on the th; the th keeps its title, and its textContent the label.
  // The click is heard on the th, so the whole cell sorts, as before.
  function setupSorting(table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, index) {
      if (!th.hasAttribute("data-sort")) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "fb-sort";
      // The header's help, which a screen reader reads as the button's description.
      if (th.title) button.title = th.title;
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      th.classList.add("fb-sortable");
      function activate() {
        var current = th.getAttribute("aria-sort");
        var descending;
        if (current) descending = current !== "descending";
        else if (th.getAttribute("data-sort") === "num") descending = !th.hasAttribute("data-low") && th.textContent !== "#";
        else descending = false;
        sortTable(table, index, descending);
      }
      th.addEventListener("click", activate);
    });
  }

  /* ------------------------------------------------------------------ filters */

  function applyFilters(form) {
    var type = form.elements.type.value;
    var prov = form.elements.prov ? form.elements.prov.value : "";  // none on the list of submissions
    var it = form.elements.it.value;
    var q = form.elements.q.value.trim().toLowerCase();
    document.querySelectorAll(".fb-view").forEach(function (view) {
      var table = view.querySelector("table.fb-table");
      if (!table) return;
      model(table).rows.forEach(function (row) {
        var named = row.cells[1] && row.cells[1].querySelector(".fb-n");
        var name = named ? named.textContent.toLowerCase() : "";
        if (row.getAttribute("data-p") === "reference") { row.hidden = false; return; }
        var ok = (!type || row.getAttribute("data-t") === type) &&
                 (!prov || row.getAttribute("data-p") === prov) &&
                 (!it || row.getAttribute("data-i") === it) &&
                 (!q || name.indexOf(q) !== -1);
        row.hidden = !ok;
      });
      render(table);
    });
    document.dispatchEvent(new CustomEvent("fb:filtered"));
  }

  function setupFilters() {
    var form = document.querySelector("form.fb-filters");
    if (!form) return;
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    form.addEventListener("change", function () { applyFilters(form); });
    form.addEventListener("input", function () { applyFilters(form); });
    // A search result for a system without a page of its own opens its benchmark page
    // as page.html?fb-name=NAME: show that system, with the filter visible to clear.
    var params = new URLSearchParams(location.search);
    var name = params.get("fb-name");
    if (name) {
      form.elements.q.value = name;
      applyFilters(form);
      var view = params.get("fb-view") && document.getElementById(params.get("fb-view"));
      if (view && !location.hash) { revealTab(view); view.scrollIntoView(); }
    }
  }

  /* ------------------------------------------------------------------ tabs + permalinks */

  // Select the content tab that holds `el` (Material's tabbed markup: radio inputs
  // followed by labels and one block per tab).
  function revealTab(el) {
    var block = el.closest(".tabbed-block");
    while (block) {
      var set = block.closest(".tabbed-set");
      var blocks = Array.prototype.slice.call(block.parentElement.children);
      var index = blocks.indexOf(block);
      var inputs = set.querySelectorAll(":scope > input");
      if (inputs[index]) inputs[index].checked = true;
      block = set.parentElement ? set.parentElement.closest(".tabbed-block") : null;
    }
  }

  function followHash() {
    var id = location.hash.slice(1);
    // A fragment that is no valid percent-encoding (a link cut short) names no table; it
    // must not stop the rest of the page's script.
    try { id = decodeURIComponent(id); } catch (e) { return; }
    if (!id) return;
    var el = document.getElementById(id);
    if (!el || !el.classList.contains("fb-view")) return;
    revealTab(el);
    el.scrollIntoView();
  }

  function setupTabs() {
    document.querySelectorAll(".fb-tabs").forEach(function (set) {
      var blocks = set.querySelectorAll(":scope > .tabbed-content > .tabbed-block");
      set.querySelectorAll(":scope > input").forEach(function (input, i) {
        input.addEventListener("change", function () {
          var view = blocks[i] && blocks[i].querySelector(".fb-view");
          // Keep the address bar a permalink to the table on screen.
          if (view && input.checked) history.replaceState(null, "", location.pathname + location.search + "#" + view.id);
          document.dispatchEvent(new CustomEvent("fb:tab", { detail: view ? view.id : null }));
          revealSorted();
        });
      });
    });
    window.addEventListener("hashchange", followHash);
    followHash();
  }

  /* ------------------------------------------------------------------ charts */

  function el(name, attrs, text) {
    var node = document.createElementNS(SVG, name);
    for (var k in attrs) node.setAttribute(k, attrs[k]);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // x100, one decimal, by the rule every number on the site follows (assets/format.js);
  // a signed measure (p-MRR, IRS) with its sign, as its column shows it.
  function fmt(v, signed) { return FBFormat.score(v, signed); }

  // Whether a view's column shows its values signed (its header says data-signed).
  function columnSigned(anchor, columnId) {
    var view = document.getElementById(anchor);
    var th = view && view.querySelector('table.fb-table th[data-col="' + columnId + '"]');
    return !!(th && th.hasAttribute("data-signed"));
  }

  // The values of one column of a view's table, by row key, for visible rows only.
  function columnValues(anchor, columnId) {
    var view = document.getElementById(anchor);
    var out = {};
    if (!view) return out;
    var table = view.querySelector("table.fb-table");
    if (!table) return out;
    var index = -1;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (th.getAttribute("data-col") === columnId) index = i;
    });
    if (index < 0) return out;
    model(table).rows.forEach(function (row) {
      if (row.getAttribute("data-p") === "reference") return;
      var raw = row.cells[index].getAttribute("data-v");
      if (raw === null || raw === "") return;
      // text: the cell as the table shows it, its marks (*, †, ‡) left off. Charts label
      // points and bars with it rather than formatting data-v again: data-v is rounded for
      // sorting (6 significant digits), and rounding it again could differ from the cell.
      out[row.getAttribute("data-k")] = {
        v: parseFloat(raw), name: row.querySelector(".fb-n").textContent,
        prov: row.getAttribute("data-p"), hidden: row.hidden,
        text: row.cells[index].textContent.trim().replace(/[^0-9]+$/, "")
      };
    });
    return out;
  }

  // The no-skill reference of one column of a view's table (its reference row), or null.
  function referenceValue(anchor, columnId) {
    var view = document.getElementById(anchor);
    var table = view && view.querySelector("table.fb-table");
    var ref = table && table.querySelector('tr[data-p="reference"]');
    if (!ref) return null;
    var value = null;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (th.getAttribute("data-col") === columnId) {
        var raw = ref.cells[i] && ref.cells[i].getAttribute("data-v");
        if (raw) value = parseFloat(raw);
      }
    });
    return value;
  }

  function niceTicks(lo, hi, n) {
    var span = hi - lo || 1;
    var step = Math.pow(10, Math.floor(Math.log10(span / n)));
    var err = span / n / step;
    if (err >= 7.5) step *= 10; else if (err >= 3.5) step *= 5; else if (err >= 1.5) step *= 2;
    var ticks = [];
    for (var t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(t);
    return ticks;
  }

  function extent(values, pad) {
    var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    if (lo > 0 && lo < 0.5 * hi) lo = 0;   // start at 0 when it is close anyway
    if (hi < 0 && hi > 0.5 * lo) hi = 0;
    if (lo === hi) { lo -= 0.01; hi += 0.01; }
    var p = (hi - lo) * pad;
    return [lo - p, hi + p];
  }

  function drawScatter(box) {
    var target = box.querySelector(".fb-scatter .fb-svg");
    var anchor = box.querySelector(".fb-scatter-view").value;
    var xs = columnValues(anchor, box.getAttribute("data-x"));
    var ys = columnValues(anchor, box.getAttribute("data-y"));
    var pts = [];
    Object.keys(xs).forEach(function (k) {
      if (ys[k] && !xs[k].hidden) {
        pts.push({ x: xs[k].v, y: ys[k].v, name: xs[k].name, prov: xs[k].prov,
                   xText: xs[k].text, yText: ys[k].text });
      }
    });
    target.textContent = "";
    if (!pts.length) { target.textContent = "No rows with both values in this table."; return; }
    var W = 560, H = 340, L = 52, R = 12, T = 12, B = 44;
    var xRef = referenceValue(anchor, box.getAttribute("data-x"));
    var yRef = referenceValue(anchor, box.getAttribute("data-y"));
    var xr = extent(pts.map(function (p) { return p.x; }).concat(xRef === null ? [] : [xRef]), 0.05);
    var yr = extent(pts.map(function (p) { return p.y; }).concat([yRef === null ? 0 : yRef]), 0.08);
    function sx(v) { return L + (v - xr[0]) / (xr[1] - xr[0]) * (W - L - R); }
    function sy(v) { return T + (1 - (v - yr[0]) / (yr[1] - yr[0])) * (H - T - B); }
    // A group, not an image: an image's parts are not read, and the points are reached
    // by Tab, each named by its system and both figures.
    var xLabel = box.getAttribute("data-xlabel"), yLabel = box.getAttribute("data-ylabel");
    var svg = el("svg", { viewBox: "0 0 " + W + " " + H, role: "group", class: "fb-plot",
      "aria-label": xLabel + " against " + yLabel + ", one point per system" });
    var xSigned = columnSigned(anchor, box.getAttribute("data-x"));
    var ySigned = columnSigned(anchor, box.getAttribute("data-y"));
    niceTicks(xr[0], xr[1], 6).forEach(function (t) {
      svg.appendChild(el("line", { x1: sx(t), x2: sx(t), y1: T, y2: H - B, class: "fb-grid" }));
      svg.appendChild(el("text", { x: sx(t), y: H - B + 16, class: "fb-tick", "text-anchor": "middle", "aria-hidden": "true" }, fmt(t, xSigned)));
    });
    niceTicks(yr[0], yr[1], 6).forEach(function (t) {
      svg.appendChild(el("line", { x1: L, x2: W - R, y1: sy(t), y2: sy(t), class: Math.abs(t) < 1e-12 ? "fb-zero" : "fb-grid" }));
      svg.appendChild(el("text", { x: L - 6, y: sy(t) + 4, class: "fb-tick", "text-anchor": "end", "aria-hidden": "true" }, fmt(t, ySigned)));
    });
    svg.appendChild(el("text", { x: (L + W - R) / 2, y: H - 6, class: "fb-axis", "text-anchor": "middle" }, box.getAttribute("data-xlabel") + " (×100)"));
    svg.appendChild(el("text", { x: 14, y: (T + H - B) / 2, class: "fb-axis", "text-anchor": "middle",
      transform: "rotate(-90 14 " + (T + H - B) / 2 + ")" }, box.getAttribute("data-ylabel") + " (×100)"));
    // No-skill references as dashed lines: a point left of or below them is no better
    // than chance on that metric.
    if (xRef !== null) {
      svg.appendChild(el("line", { x1: sx(xRef), x2: sx(xRef), y1: T, y2: H - B, class: "fb-refline" }));
    }
    if (yRef !== null) {
      svg.appendChild(el("line", { x1: L, x2: W - R, y1: sy(yRef), y2: sy(yRef), class: "fb-refline" }));
      svg.appendChild(el("text", { x: W - R - 4, y: sy(yRef) - 4, class: "fb-tick", "text-anchor": "end" }, "no skill"));
    }
    pts.forEach(function (p) {
      var said = p.name + " (" + p.prov + "): " + xLabel + " " + p.xText + ", " + yLabel + " " + p.yText;
      var c = el("circle", { cx: sx(p.x), cy: sy(p.y), r: 4.5, class: "fb-point fb-point-" + p.prov, tabindex: 0,
                             role: "img", "aria-label": said });
      c.appendChild(el("title", {}, said));
      svg.appendChild(c);
    });
    target.appendChild(svg);
  }

  function drawBars(box) {
    var target = box.querySelector(".fb-bars .fb-svg");
    if (!target) return;
    var key = box.querySelector(".fb-bars-system").value;
    var bars = JSON.parse(box.getAttribute("data-bars"));
    var data = bars.map(function (b) {
      var vals = columnValues(b[0], b[2]);
      return { label: b[1], metric: b[2], v: vals[key] ? vals[key].v : null,
               text: vals[key] ? vals[key].text : "" };
    });
    target.textContent = "";
    var W = 560, rowH = 24, L = 120, R = 56, T = 8;
    var H = T * 2 + rowH * data.length;
    var present = data.filter(function (d) { return d.v !== null; }).map(function (d) { return d.v; });
    var lo = Math.min(0, Math.min.apply(null, present.concat([0])));
    var hi = Math.max(0, Math.max.apply(null, present.concat([0])));
    if (hi === lo) hi = lo + 0.01;
    function sx(v) { return L + (v - lo) / (hi - lo) * (W - L - R); }
    // An image named by its figures (its text is not read inside an image): the system,
    // then each bar's label and figure as the bar shows it.
    var chosen = box.querySelector(".fb-bars-system").selectedOptions[0];
    var said = data.map(function (d) { return d.label + " " + (d.v === null ? "no score" : d.text); });
    var svg = el("svg", { viewBox: "0 0 " + W + " " + H, role: "img", class: "fb-plot",
      "aria-label": "Scores of " + (chosen ? chosen.textContent : "the chosen system") + " (\u00d7100): " + said.join(", ") });
    data.forEach(function (d, i) {
      var y = T + i * rowH;
      svg.appendChild(el("text", { x: L - 8, y: y + rowH / 2 + 4, class: "fb-tick", "text-anchor": "end" }, d.label));
      if (d.v === null) {
        svg.appendChild(el("text", { x: sx(0) + 4, y: y + rowH / 2 + 4, class: "fb-tick fb-missing" }, "no score"));
        return;
      }
      var x0 = sx(Math.min(0, d.v)), x1 = sx(Math.max(0, d.v));
      var rect = el("rect", { x: x0, y: y + 4, width: Math.max(1, x1 - x0), height: rowH - 8, class: d.v < 0 ? "fb-bar fb-bar-neg" : "fb-bar" });
      rect.appendChild(el("title", {}, d.label + " " + d.metric + ": " + d.text));
      svg.appendChild(rect);
      // Value labels sit right of the bar (of the zero line for negative bars), so they
      // never run into the category labels on the left.
      svg.appendChild(el("text", { x: (d.v < 0 ? sx(0) : x1) + 4, y: y + rowH / 2 + 4, class: "fb-tick" }, d.text));
    });
    svg.appendChild(el("line", { x1: sx(0), x2: sx(0), y1: T, y2: H - T, class: "fb-zero" }));
    target.appendChild(svg);
  }

  function setupCharts() {
    document.querySelectorAll(".fb-charts").forEach(function (box) {
      var views = JSON.parse(box.getAttribute("data-views"));
      var viewSelect = box.querySelector(".fb-scatter-view");
      // Offer only tables with at least one row that has both values: a table of
      // reported rows with one metric each would otherwise open on an empty plot.
      var plottable = views.filter(function (v) {
        var xs = columnValues(v[0], box.getAttribute("data-x"));
        var ys = columnValues(v[0], box.getAttribute("data-y"));
        return Object.keys(xs).some(function (k) { return ys[k]; });
      });
      if (!plottable.length) box.querySelector(".fb-scatter").hidden = true;
      plottable.forEach(function (v) {
        var opt = document.createElement("option");
        opt.value = v[0];
        opt.textContent = v[1];
        viewSelect.appendChild(opt);
      });
      viewSelect.addEventListener("change", function () { drawScatter(box); });
      var sysSelect = box.querySelector(".fb-bars-system");
      if (sysSelect) {
        // Only systems with a score in at least one bar, those with the most bars first
        // (ties in the order of the section's first table, its leader first), so the
        // chart never opens on a system it has nothing to draw for.
        var bars = JSON.parse(box.getAttribute("data-bars"));
        var anchors = views.slice(0, 1).map(function (v) { return v[0]; })
          .concat(bars.map(function (b) { return b[0]; }));
        var perBar = bars.map(function (b) { return columnValues(b[0], b[2]); });
        var seen = {}, systems = [];
        anchors.forEach(function (anchor) {
          var view = document.getElementById(anchor);
          if (!view) return;
          var table = view.querySelector("table.fb-table");
          (table ? model(table).rows : []).forEach(function (r) {
            var k = r.getAttribute("data-k");
            if (seen[k]) return;
            seen[k] = true;
            var n = perBar.filter(function (vals) { return vals[k]; }).length;
            if (n) systems.push({ row: r, key: k, n: n, pos: systems.length });
          });
        });
        systems.sort(function (a, b) { return b.n - a.n || a.pos - b.pos; });
        systems.forEach(function (s) {
          var opt = document.createElement("option");
          opt.value = s.key;
          opt.textContent = s.row.querySelector(".fb-n").textContent +
            (s.row.getAttribute("data-p") === "reported" ? " (reported)" : "");
          sysSelect.appendChild(opt);
        });
        if (systems.length) {
          sysSelect.addEventListener("change", function () { drawBars(box); });
          drawBars(box);
        } else {
          box.querySelector(".fb-bars").hidden = true;
        }
      }
      if (plottable.length) {
        drawScatter(box);
        document.addEventListener("fb:filtered", function () { drawScatter(box); });
      }
      // The scatter follows the tab on screen (switching C1 -> C2 redraws it for C2).
      document.addEventListener("fb:tab", function (e) {
        var anchor = e.detail;
        if (!anchor || anchor === viewSelect.value) return;
        if (!viewSelect.querySelector('option[value="' + anchor + '"]')) return;
        viewSelect.value = anchor;
        drawScatter(box);
      });
    });
  }

  /* ------------------------------------------------------------------ wide tables */

  // A table wider than its box scrolls sideways (its name column stays put, see the
  // CSS); mark such boxes so they show a visible scroll bar, an edge shadow and a hint.
  function markOverflow() {
    document.querySelectorAll(".fb-table-wrap").forEach(function (wrap) {
      if (!wrap.offsetParent) return;  // in a hidden tab: measured when it is shown
      var over = wrap.scrollWidth > wrap.clientWidth + 1;
      wrap.classList.toggle("fb-scrolls", over);
      var hint = wrap.previousElementSibling;
      var has = hint && hint.classList.contains("fb-scroll-hint");
      if (over && !has) {
        hint = document.createElement("p");
        hint.className = "fb-scroll-hint";
        hint.textContent = "Scroll the table sideways for more columns \u2192";
        wrap.parentNode.insertBefore(hint, wrap);
      } else if (!over && has) {
        hint.remove();
      }
    });
  }

  /* ------------------------------------------------------------------ heatmaps */

  // Grid columns (data-heat on the table lists their ids) are coloured by value: signed
  // metrics (p-MRR, IRS) red below 0 and blue above, scaled by the column's largest |v|;
  // the others from the column's lowest (pale) to its highest (blue). Lower-is-better
  // columns are reversed. The colour is set on the cell, so it follows every sort.
  function heatmap(table) {
    var ids = (table.getAttribute("data-heat") || "").split(" ").filter(Boolean);
    if (!ids.length) return;
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, i) {
      if (ids.indexOf(th.getAttribute("data-col")) < 0) return;
      var signed = th.hasAttribute("data-signed"), low = th.hasAttribute("data-low");
      var cells = [];
      model(table).rows.forEach(function (row) {
        if (row.getAttribute("data-p") === "reference") return;
        var c = row.cells[i], raw = c && c.getAttribute("data-v");
        if (raw) cells.push([c, parseFloat(raw)]);
      });
      if (!cells.length) return;
      var vals = cells.map(function (x) { return x[1]; });
      var lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals);
      var big = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
      cells.forEach(function (x) {
        var t = signed ? x[1] / big : (hi > lo ? (x[1] - lo) / (hi - lo) : 0.5);
        if (low) t = signed ? -t : 1 - t;
        var hue = signed && t < 0 ? "var(--fb-heat-neg)" : "var(--fb-heat-pos)";
        var strength = Math.round(Math.min(1, Math.abs(t)) * 55);
        x[0].style.background = "color-mix(in srgb, " + hue + " " + strength + "%, transparent)";
        x[0].classList.add("fb-heat");
      });
    });
  }

  /* ------------------------------------------------------------------ rank words */

  // A tested row's rank interval (span.fb-ri, "1–3" from its data-r) is worded when the
  // pointer first reaches it, so the pages do not repeat the sentence on every row.
  function rankWords(span) {
    var r = span.getAttribute("data-r") || "";
    var tied = /^1\u2013/.test(r) ? "; tied for first" : "";
    return "rank " + r + " among the tested rows (95%, for all rows at once)" + tied;
  }

  function setupRankWords() {
    document.addEventListener("mouseover", function (e) {
      var span = e.target.closest && e.target.closest("span.fb-ri[data-r]");
      if (span && !span.title) span.title = rankWords(span);
    });
  }

  function init() {
    // What works only with this script (the filters, sorting) is hidden in the HTML, so
    // that a page read without JavaScript offers no control that does nothing.
    document.querySelectorAll("[hidden][data-js]").forEach(function (el) { el.hidden = false; });
    // A title that speaks of them (data-js-title) takes the place of the one true without it.
    document.querySelectorAll("[data-js-title]").forEach(function (el) {
      el.title = el.getAttribute("data-js-title");
    });
    // Material's search box is a dialog without a name: a screen reader said only "dialog".
    var search = document.querySelector(".md-search[role=dialog]:not([aria-label])");
    if (search) search.setAttribute("aria-label", "Search this site");
    document.querySelectorAll("table.fb-table").forEach(function (table) {
      setupSorting(table);
      if (table.closest(".fb-view")) render(table);
      heatmap(table);
    });
    setupRankWords();
    setupFilters();
    setupTabs();
    setupCharts();
    revealSorted();
    window.addEventListener("resize", markOverflow);
  }

  // Every visible wide table opens with its sorted column in view (and a table in a tab
  // when the tab is shown).
  function revealSorted() {
    markOverflow();
    document.querySelectorAll("table.fb-table").forEach(function (table) {
      if (!table.offsetParent) return;
      var heads = table.tHead ? table.tHead.rows[0].cells : [];
      for (var i = 0; i < heads.length; i++) {
        if (heads[i].hasAttribute("aria-sort")) { revealColumn(table, i); return; }
      }
    });
  }

  // For the browser tests and the benchmark; not an API.
  window.fbTables = { sort: sortTable, reset: resetModel,
                      rows: function (table) { return model(table).rows; } };

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
