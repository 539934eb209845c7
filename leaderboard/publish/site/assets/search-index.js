/* FollowBoard: Material's search fetches its index named by its content.
 *
 * Material's script asks for the index by a name that is the same in every build
 * (search/search_index.json, an XMLHttpRequest of its bundle), and the server lets a
 * browser or proxy keep a file for a while (GitHub Pages: max-age=600): after a deploy,
 * the search box could list the previous deploy's pages and text beside the new pages.
 * The build names the index by a hash of its bytes (mkdocs_hooks.on_post_build writes it
 * into this script's data-search-key on every page), and this script, which runs before
 * Material's (theme/main.html), has that request ask for search_index.json?v=<hash>:
 * another index, another address. Every other request goes as it was asked for.
 */
var FBSearchIndex = (function () {
  "use strict";

  // The address to ask for ``url`` at: the index's (``index``, absolute) named with its
  // ``key``; any other address, or no key (a page the build did not name one in), as given.
  function keyed(url, index, key) {
    if (!key || String(url) !== index) return url;
    return index + "?v=" + encodeURIComponent(key);
  }

  return { keyed: keyed };
})();

if (typeof module !== "undefined") {
  module.exports = FBSearchIndex;
} else {
  (function () {
    "use strict";
    // data-index: the index as Material finds it, relative to this page (its base URL's
    // search/search_index.json), made absolute as Material makes it.
    var script = document.currentScript;
    if (!script || !window.XMLHttpRequest) return;
    var index = new URL(script.getAttribute("data-index"), location.href).href;
    var key = script.getAttribute("data-search-key");
    var open = XMLHttpRequest.prototype.open;
    XMLHttpRequest.prototype.open = function (method, url) {
      var args = Array.prototype.slice.call(arguments);
      args[1] = FBSearchIndex.keyed(url, index, key);
      return open.apply(this, args);
    };
  })();
}
