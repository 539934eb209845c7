/* FollowBoard query explorer: why a model follows an instruction, or not.
 *
 * One static page (explore.html) with five views, chosen by its query string:
 *   (nothing)                  pick a submission and a task            start.js
 *   ?s=SUB                     the tasks of a submission               start.js
 *   ?s=SUB&t=TASK[,TASK...]    the query list (sortable, filterable)   list.js
 *   ?s=SUB&t=TASK&query=QUERY  a query's card                          card.js
 *   (a list's m, dir, find, g, task, only and, from a list of several tasks, list=TASKS:
 *   its sort and filters, links.js listView; a card steps through the queries so)
 *   ...&vs=OTHER               compare mode: the queries ordered by how much the two
 *                              submissions disagree (compare.js), or both cards side
 *                              by side (card.js)
 *   ?view=heatmap&t=TASK       queries x submissions, grouped by constraint or language
 *                                                                       heatmap.js
 *
 * Data: explore/index.json and explore/tasks/<task>.json (written by the site build) and
 * each submission's explanation files (written when it was scored), fetched on demand and
 * inflated here (load.js), each checked against its format and mapped to records by field
 * name (records.js, data.js). Every figure shown is the scorer's own, read from those
 * files; its exact value is kept in the element's data-v attribute. Text from files
 * reaches the page through textContent only. Vanilla JS, no dependencies, no network
 * beyond this site and the submission's store (and GitHub, only when a reader asks for a
 * FollowTable text). What outlives a view is in state.js.
 *
 * This part is the router, loaded last: the address says which view to draw; links
 * inside the explorer and the browser's back and forward draw the view their address
 * names, and any failure draws a message instead.
 */
(function () {
  "use strict";

  var F = FBXFrame, D = FBXData, L = FBXLoad, state = FBXState;
  var host = F.host;

  async function route() {
    var id = ++state.view;
    host.setAttribute("data-state", "loading");
    var p = new URLSearchParams(location.search);
    try {
      if (!state.index) await D.readIndex(host.getAttribute("data-index"));
      if (id !== state.view) return;
      if (p.get("view") === "heatmap") await FBXHeatmap.renderHeatmap(p);
      else if (!p.get("s")) FBXStart.renderStart();
      else if (!p.get("t")) await FBXStart.renderSubmission(p);
      else if (p.get("query") !== null) await FBXCard.renderCard(p);
      else if (p.get("vs")) await FBXCompare.renderCompareList(p);
      else await FBXList.renderList(p);
    } catch (err) {
      if (id !== state.view) return;
      if (err instanceof L.LoadError) err = L.loadMessage(err, "file");
      if (!(err instanceof L.UserError)) {
        err = new L.UserError("Something went wrong while showing this view: " + (err && err.message ? err.message : err) + ".");
      }
      // A file missing or of another format, after a deploy since the page was loaded:
      // the deploy is the reason, and reloading the fix.
      if (err.file && !err.reload && await D.siteUpdated()) {
        if (id !== state.view) return;
        err = L.updated("site\u2019s index", new URL(host.getAttribute("data-index"), F.SITE_ROOT));
      }
      F.show(null, F.errorBox(err), "error");
      return;
    }
    if (id === state.view) document.dispatchEvent(new CustomEvent("fb:explorer", { detail: location.search }));
  }

  // A plain click on a link between views (data-nav) changes the view without reloading
  // the page; a click with a modifier key opens it as the browser would.
  host.addEventListener("click", function (e) {
    var a = e.target.closest("a[data-nav]");
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    F.go(a.getAttribute("href"));
  });
  host.addEventListener(F.NAVIGATED, route);
  window.addEventListener("popstate", route);

  // For the browser tests and the benchmark; not an API.
  window.fbExplorer = { heat: function () { return state.heat; }, route: route };

  route();
})();
