/* Pure address functions of the explorer: a view's link (its query string says which
 * view, see main.js) and where a submission's explanation file is. No DOM; tested under
 * node (tests/js/explorer-links.test.js).
 */
var FBXLinks = (function () {
  "use strict";

  // ``page`` with the parameters that have a value (null, undefined and "" are left
  // out), in the order given.
  function href(page, params) {
    var p = new URLSearchParams();
    Object.keys(params).forEach(function (k) {
      if (params[k] !== null && params[k] !== undefined && params[k] !== "") p.set(k, params[k]);
    });
    var q = p.toString();
    return page + (q ? "?" + q : "");
  }

  // A file of a submission's explanation folder, resolved against ``root`` (the site).
  // ``base`` is a URL prefix, or (a store whose URL template puts the path elsewhere,
  // leaderboard/submission/explain_files.py) holds {+rel} or {rel} where the file's path
  // goes, '/' kept or escaped as the store wants.
  function fileUrl(base, rel, root) {
    if (base.indexOf("{+rel}") !== -1) return new URL(base.replace("{+rel}", encodeURI(rel)), root);
    if (base.indexOf("{rel}") !== -1) return new URL(base.replace("{rel}", encodeURIComponent(rel)), root);
    return new URL(base + rel, root);
  }

  // The task ids of a "t" parameter ("a,b" -> ["a", "b"]; blanks dropped).
  function taskIdsOf(value) {
    return (value || "").split(",").map(function (x) { return x.trim(); }).filter(Boolean);
  }

  // The query list's sort and filters as its address carries them, and so do the links
  // from it to a card and between cards, which step in the order the list showed:
  // m, the column sorted by; dir, desc or asc, absent when the column's first order
  // (rows.js firstDir: worst first on a metric), read as 0; find, g, task and only, the
  // filters (rows.js shownRows). Read as given: the list checks them against its columns
  // and sets ``first``, the sorted column's first order.
  function listView(params) {
    var dir = params.get("dir");
    return { key: params.get("m") || "", dir: dir === "desc" ? -1 : dir === "asc" ? 1 : 0,
             find: params.get("find") || "", group: params.get("g") || "",
             task: params.get("task") || "", only: params.get("only") || "" };
  }

  function listViewParams(view) {
    var dir = !view.dir || view.dir === (view.first || 1) ? "" : view.dir < 0 ? "desc" : "asc";
    return { m: view.key, dir: dir, find: view.find, g: view.group, task: view.task, only: view.only };
  }

  return { href: href, fileUrl: fileUrl, taskIdsOf: taskIdsOf, listView: listView,
           listViewParams: listViewParams };
})();

if (typeof module !== "undefined") module.exports = FBXLinks;
