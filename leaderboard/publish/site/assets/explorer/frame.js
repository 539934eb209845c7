/* The explorer's page: where it draws (#fb-explorer), its links between views, and the
 * frame every view shares (title, breadcrumbs, error box).
 */
var FBXFrame = (function () {
  "use strict";

  var h = FBXCommon.h, add = FBXCommon.add;
  var state = FBXState;

  var host = document.getElementById("fb-explorer");
  var PAGE = location.pathname.split("/").pop() || "explore.html";
  var SITE_ROOT = new URL(".", location.href);   // explore.html sits at the site root
  // The build this page is of (leaderboard/publish/site/scripts.py build_id): every file
  // of the site is fetched named with it (load.js).
  var BUILD = host.getAttribute("data-build");
  // Fired on the host when a link inside the explorer changed the address (main.js
  // draws the view it names, as it does on the browser's back and forward).
  var NAVIGATED = "fb:x-navigated";

  function href(params) { return FBXLinks.href(PAGE, params); }

  // Change the view without reloading the page (the files already loaded stay in memory).
  function go(url) {
    history.pushState(null, "", url);
    host.dispatchEvent(new CustomEvent(NAVIGATED));
  }

  // A link to another view: a real link, so a new tab or a copied URL works too; a plain
  // click on it is handled by go (main.js).
  function nav(text, params, attrs) {
    var a = h("a", attrs || {}, text);
    a.href = href(params);
    a.setAttribute("data-nav", "");
    return a;
  }

  function show(title, body, viewState) {
    host.textContent = "";
    if (title) add(host, title);
    add(host, body);
    host.setAttribute("data-state", viewState || "ready");
  }

  // A message ({message, hint}) in place of a view, with the way back to the start, or,
  // when reloading the page is what to do (err.reload: the site was updated since it was
  // loaded), a button that does.
  function errorBox(err) {
    return h("div", { cls: "fb-x-error", role: "alert" },
      h("p", { cls: "fb-x-error-title" }, err.message),
      err.hint ? h("p", null, err.hint) : null,
      h("p", null, err.reload
        ? h("button", { type: "button", cls: "fb-x-reload", onclick: function () { location.reload(); } }, "Reload the page")
        : nav("Start again from the list of submissions", {})));
  }

  function crumbs(items) {
    var out = h("nav", { cls: "fb-x-crumbs", "aria-label": "Where you are in the explorer" });
    items.forEach(function (it, i) {
      if (i) add(out, h("span", { "aria-hidden": "true" }, " \u203a "));
      add(out, it);
    });
    return out;
  }

  // A link to a submission's page on the leaderboard.
  function subPage(slug) {
    var sub = state.index.submissions[slug];
    return h("a", { href: new URL(sub.page, SITE_ROOT).href, dir: "auto" }, sub.name);
  }

  return { host: host, PAGE: PAGE, SITE_ROOT: SITE_ROOT, BUILD: BUILD, NAVIGATED: NAVIGATED, href: href,
           go: go, nav: nav, show: show, errorBox: errorBox, crumbs: crumbs, subPage: subPage };
})();
