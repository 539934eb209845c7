/* FollowBoard: a table cell's details, for the pointer, the keyboard and a screen reader.
 *
 * A cell's details (its source, the model's other sources, its tier and p-value) and a
 * row's marks' (an R badge's source, "+N": the model's other rows) are the title of the
 * cell or mark, written once in the page. A title is shown on hover only: phones never
 * show it, no keyboard reaches it, and most screen readers do not read it. So each such
 * cell or mark gets one control Tab reaches: the verified score's link to the queries
 * behind it (assets/explorer-links.js, which takes the place of the button below), an
 * R badge's link to its source, else a button made here that wraps the cell's text.
 * A tap, a click or Enter on the button opens the details in a box, a second one (or
 * Escape, or a click elsewhere) closes it; focus from the keyboard opens them too.
 * A status region says them once: not where the focused control's own title is the same
 * text, which a screen reader reads as its description already.
 *
 * Rows are decorated as they enter the page (the tables keep at most 100 rows in the DOM,
 * see leaderboard.js), so the pages carry no markup for it. The text stays the cell's
 * (sorting, filters and charts read it). Vanilla JS, no network.
 */
(function () {
  "use strict";

  var HOLDER = "table.fb-table tbody :is(td, th, abbr, a.fb-prov)[title]";

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

  function watch(table) {
    var body = table.tBodies[0];
    if (!body) return;
    Array.prototype.forEach.call(body.rows, decorate);
    new MutationObserver(function (records) {
      records.forEach(function (rec) {
        rec.addedNodes.forEach(function (n) { if (n.nodeName === "TR") decorate(n); });
      });
    }).observe(body, { childList: true });
  }

  function setup() {
    var box = document.createElement("div");
    box.className = "fb-tip";
    box.hidden = true;
    box.setAttribute("aria-hidden", "true");  // a screen reader hears `said`, not the box
    var said = document.createElement("div");
    said.className = "fb-said";
    said.setAttribute("role", "status");
    document.body.appendChild(box);
    document.body.appendChild(said);
    var current = null;

    function show(holder, control) {
      current = holder;
      box.hidden = !holder;
      box.textContent = holder ? holder.getAttribute("title") : "";
      // The box sits at the bottom of the window, or at its top when the cell is in the
      // lower half: it never hides the cell it speaks of, the keyboard's focus among them.
      box.classList.toggle("fb-tip-top", !!holder &&
        holder.getBoundingClientRect().bottom > window.innerHeight / 2);
      said.textContent = holder && !(control && control.title === box.textContent)
        ? box.textContent : "";
    }

    document.addEventListener("click", function (e) {
      var holder = e.target.closest && e.target.closest(HOLDER);
      // A link goes where it leads; a second click on the same cell closes its details.
      if (!holder || holder === current || e.target.closest("a[href]")) show(null);
      else show(holder, e.target.closest("button, a[href]"));
    });
    document.addEventListener("focusin", function (e) {
      var holder = e.target.closest && e.target.closest(HOLDER);
      if (holder && e.target.matches(":focus-visible")) show(holder, e.target);
      else if (current && !(holder && holder === current)) show(null);
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && current) show(null);
    });
  }

  function init() {
    setup();
    document.querySelectorAll("table.fb-table").forEach(watch);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
