/* FollowBoard: a table cell's details, for the pointer, the keyboard and a screen reader.
 *
 * A cell's details (its source, the model's other sources, its tier and p-value) and a
 * row's marks' (an R badge's source, "+N": the model's other rows) are the title of the
 * cell or mark, written once in the page. A title is shown on hover only: phones never
 * show it, no keyboard reaches it, and most screen readers do not read it. So each such
 * cell or mark gets one control the keyboard reaches: the verified score's link to the queries
 * behind it (assets/explorer-links.js, which takes the place of the button below), an
 * R badge's link to its source, else a button made here that wraps the cell's text.
 * A tap, a click or Enter on the button opens the details in a box, a second one (or
 * Escape, or a click elsewhere) closes it; focus from the keyboard opens them too.
 * A status region says them once: not where the focused control's own title is the same
 * text, which a screen reader reads as its description already.
 *
 * Rows are decorated as they enter the page (the tables keep at most 100 rows in the DOM,
 * see leaderboard.js), so the pages carry no markup for it. The text stays the cell's
 * (sorting, filters and charts read it).
 *
 * A table holds hundreds of such controls besides its sort buttons and names, so it is one
 * Tab stop, the WAI-ARIA grid (a roving tabindex): the control last focused in it (first
 * the first header's) has tabindex 0 and every other -1, kept so as rows and links enter.
 * So is each of the query explorer's tables (GRID: its query list, compare mode's, a card's),
 * which the explorer draws as the reader moves between its views, and redraws whole as
 * they sort and filter: a grid is made of each table as it enters the page.
 * The arrow keys move by row and column, Home and End to a row's ends (with Control, the
 * table's), Page Up and Page Down by PAGE rows. A cell's stops are its controls (a name
 * cell's mark, name and "+N", one each), else the cell itself: every cell is reached.
 * An explorer table's cells hold no details buttons (a click on a query opens its card, on
 * a header sorts), but some carry a title all the same: a header's help, the Constraint
 * column's full type name, a top document's T-/T+ and judged marks. Each stop in such a
 * cell is described by them (aria-describedby, to one hidden text per wording, so a
 * screen reader says them as the stop is focused), and the box shows them while the
 * keyboard is there; a click still does what it did, and closes the box.
 * Vanilla JS, no network.
 */
(function () {
  "use strict";

  var HOLDER = "table.fb-table tbody :is(td, th, abbr, a.fb-prov)[title]";
  var GRID = "table.fb-table, table.fb-x-table";
  var FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";
  var PAGE = 10;
  var NOTED = "abbr[title]";  // a mark in an explorer cell, which no stop of it carries
  var notes = null, noteIds = {};  // the hidden texts stops are described by, by wording
  var MOVES = { ArrowLeft: 1, ArrowRight: 1, ArrowUp: 1, ArrowDown: 1, Home: 1, End: 1,
                PageUp: 1, PageDown: 1 };

  // A details button around the cell's or mark's text, unless it holds a control already:
  // marks first, so that a cell holding one (a name cell) is never a button around a button.
  function decorate(row) {
    if (row._fbDetails) return;
    row._fbDetails = true;
    var marks = Array.prototype.slice.call(row.querySelectorAll("abbr[title]"));
    marks.concat(Array.prototype.slice.call(row.querySelectorAll("td[title], th[title]"))).forEach(function (holder) {
      if (holder.querySelector("a[href], button")) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "fb-detail";
      while (holder.firstChild) button.appendChild(holder.firstChild);
      holder.appendChild(button);
    });
  }

  // Where the arrow keys stop in a cell: its controls, else the cell.
  function stops(cell) {
    var found = cell.querySelectorAll("a[href], button");
    return found.length ? Array.prototype.slice.call(found) : [cell];
  }

  // The table's one Tab stop: in the cell last focused while its row is in the page (else
  // the first header), the control last focused while it is there (else the cell's first).
  function tame(table) {
    var cell = table._fbCell;
    if (!cell || !table.contains(cell)) cell = table.rows[0] && table.rows[0].cells[0];
    if (!cell) return;
    var stop = stops(cell).indexOf(table._fbStop) < 0 ? stops(cell)[0] : table._fbStop;
    table._fbCell = cell;
    table._fbStop = stop;
    table.querySelectorAll(FOCUSABLE).forEach(function (el) {
      if (el !== stop && el.getAttribute("tabindex") !== "-1") el.setAttribute("tabindex", "-1");
    });
    stop.setAttribute("tabindex", "0");
  }

  // Where `key` goes from `stop`: none past the table's edge (focus stays, as in the grid).
  function step(table, stop, key, control) {
    var cell = stop.closest("td, th"), here = stops(cell), k = Math.max(0, here.indexOf(stop));
    var rows = table.rows, r = cell.parentNode.rowIndex, c = cell.cellIndex;
    if (key === "ArrowRight" && k < here.length - 1) return here[k + 1];
    if (key === "ArrowLeft" && k > 0) return here[k - 1];
    if (key === "ArrowRight" && c === cell.parentNode.cells.length - 1) return null;
    if (key === "ArrowRight") c++;
    else if (key === "ArrowLeft") c--;
    else if (key === "ArrowDown" || key === "ArrowUp") r += key === "ArrowDown" ? 1 : -1;
    else if (key === "PageDown") r = Math.min(r + PAGE, rows.length - 1);
    else if (key === "PageUp") r = Math.max(r - PAGE, 0);
    else {
      c = key === "Home" ? 0 : Infinity;
      if (control) r = key === "Home" ? 0 : rows.length - 1;
    }
    var to = c >= 0 && rows[r] && rows[r].cells[Math.min(c, rows[r].cells.length - 1)];
    if (!to) return null;
    var there = stops(to);
    if (key === "ArrowLeft" || key === "End") return there[there.length - 1];
    return key === "ArrowRight" || key === "Home" ? there[0] : there[Math.min(k, there.length - 1)];
  }

  // A cell the keys reached in a table that scrolls sideways is scrolled out from under
  // the row's sticky name (leaderboard.css), which focusing it leaves a part visible under.
  function unpin(to) {
    var cell = to.closest("td, th"), wrap = cell.closest(".fb-table-wrap");
    var pin = Array.prototype.filter.call(cell.parentNode.cells, function (c) {
      return getComputedStyle(c).position === "sticky";
    })[0];
    var over = pin && pin !== cell && wrap ?
      pin.getBoundingClientRect().right - cell.getBoundingClientRect().left : 0;
    if (over > 0) wrap.scrollLeft -= over;
  }

  // What an explorer cell's titles say that its stop ``stop`` does not: the cell's own
  // (a header's help, a constraint's full name), then its marks'.
  function cellNotes(cell, stop) {
    var texts = cell.title ? [cell.title] : [];
    cell.querySelectorAll(NOTED).forEach(function (m) { if (m.title) texts.push(m.title); });
    return texts.filter(function (t, i) { return texts.indexOf(t) === i && t !== (stop !== cell && stop.title); });
  }

  // The id of the hidden text ``text``, made once.
  function noteId(text) {
    if (!noteIds[text]) {
      var span = document.createElement("span");
      span.id = noteIds[text] = "fb-note-" + notes.childNodes.length;
      span.textContent = text;
      notes.appendChild(span);
    }
    return noteIds[text];
  }

  // Each stop of an explorer table's cells described by what the cell's titles say (its
  // own title first, which aria-describedby would otherwise put aside).
  function describe(table) {
    table.querySelectorAll("td[title], th[title], td " + NOTED + ", th " + NOTED).forEach(function (el) {
      var cell = el.closest("td, th");
      if (cell._fbNoted) return;
      cell._fbNoted = true;
      stops(cell).forEach(function (stop) {
        var texts = cellNotes(cell, stop);
        if (stop !== cell && stop.title) texts.unshift(stop.title);
        if (texts.length) stop.setAttribute("aria-describedby", texts.map(noteId).join(" "));
      });
    });
  }

  // A site table's cells get their details buttons (an explorer table's cells hold their
  // own controls), and every table the grid's one Tab stop.
  function watch(table, keys) {
    if (table._fbGrid) return;
    var site = table.matches("table.fb-table");
    if (site && !table.tBodies[0]) return;
    if (site) Array.prototype.forEach.call(table.tBodies[0].rows, decorate);
    table._fbGrid = true;
    table.setAttribute("role", "grid");
    table.setAttribute("aria-describedby", keys.id);
    if (!site) describe(table);
    tame(table);
    new MutationObserver(function (records) {
      records.forEach(function (rec) {
        if (site) rec.addedNodes.forEach(function (n) { if (n.nodeName === "TR") decorate(n); });
      });
      if (!site) describe(table);
      tame(table);
    }).observe(table, { childList: true, subtree: true });
  }

  function setup() {
    var box = document.createElement("div");
    box.className = "fb-tip";
    box.hidden = true;
    box.setAttribute("aria-hidden", "true");  // a screen reader hears `said`, not the box
    var said = document.createElement("div");
    said.className = "fb-said";
    said.setAttribute("role", "status");
    // How to move in a table, which a screen reader says as the table's description.
    var keys = document.createElement("p");
    keys.id = "fb-table-keys";
    keys.hidden = true;
    keys.textContent = "Move between the cells with the arrow keys, Home and End (a row's " +
      "ends) and Page Up and Page Down (" + PAGE + " rows); Tab leaves the table.";
    document.body.appendChild(box);
    document.body.appendChild(said);
    document.body.appendChild(keys);
    notes = document.createElement("div");
    notes.hidden = true;
    document.body.appendChild(notes);
    var current = null;

    // ``text``: an explorer cell's notes, which its stop is described by already.
    function show(holder, control, text) {
      current = holder;
      box.hidden = !holder;
      box.textContent = holder ? text || holder.getAttribute("title") : "";
      // The box sits at the bottom of the window, or at its top when the cell is in the
      // lower half: it never hides the cell it speaks of, the keyboard's focus among them.
      box.classList.toggle("fb-tip-top", !!holder &&
        holder.getBoundingClientRect().bottom > window.innerHeight / 2);
      said.textContent = holder && !text && !(control && control.title === box.textContent)
        ? box.textContent : "";
    }

    document.addEventListener("click", function (e) {
      var holder = e.target.closest && e.target.closest(HOLDER);
      // A link goes where it leads; a second click on the same cell closes its details.
      if (!holder || holder === current || e.target.closest("a[href]")) show(null);
      else show(holder, e.target.closest("button, a[href]"));
    });
    document.addEventListener("focusin", function (e) {
      var table = e.target.closest && e.target.closest(GRID);
      var cell = table && table._fbGrid && e.target.closest("td, th");
      if (cell && stops(cell).indexOf(e.target) >= 0 && e.target !== table._fbStop) {
        table._fbStop.setAttribute("tabindex", "-1");
        table._fbCell = cell;
        table._fbStop = e.target;
        e.target.setAttribute("tabindex", "0");
      }
      var holder = e.target.closest && e.target.closest(HOLDER);
      var texts = cell && !holder && !table.matches("table.fb-table") ? cellNotes(cell, e.target) : [];
      if (texts.length && e.target.matches(":focus-visible")) show(cell, e.target, texts.join("; "));
      else if (holder && e.target.matches(":focus-visible")) show(holder, e.target);
      else if (current && !(holder && holder === current)) show(null);
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && current) show(null);
      var table = e.target.closest && e.target.closest(GRID);
      if (!MOVES[e.key] || e.altKey || e.metaKey || e.shiftKey || !table || !table._fbGrid ||
          !e.target.closest("td, th")) return;
      e.preventDefault();  // at an edge too: the page does not scroll under the focus
      var to = step(table, e.target, e.key, e.ctrlKey);
      if (!to || to === e.target) return;
      if (!to.hasAttribute("tabindex")) to.setAttribute("tabindex", "-1");  // a cell
      to.focus();
      unpin(to);
    });
    return keys;
  }

  function init() {
    var keys = setup();
    document.querySelectorAll(GRID).forEach(function (t) { watch(t, keys); });
    // The explorer's views come and go after the page has loaded (assets/explorer/).
    var explorer = document.getElementById("fb-explorer");
    if (!explorer) return;
    new MutationObserver(function (records) {
      records.forEach(function (rec) {
        rec.addedNodes.forEach(function (n) {
          if (n.nodeType !== 1) return;
          if (n.matches(GRID)) watch(n, keys);
          else n.querySelectorAll(GRID).forEach(function (t) { watch(t, keys); });
        });
      });
    }).observe(explorer, { childList: true, subtree: true });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
