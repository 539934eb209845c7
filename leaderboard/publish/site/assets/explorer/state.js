/* Everything the explorer keeps between views, in one place: no other part has a
 * variable that outlives the view it draws (a view's own controls keep theirs in its
 * closure). Set only where this says.
 */
var FBXState = (function () {
  "use strict";

  return {
    // The explorer's index, once read and checked (data.js readIndex).
    index: null,
    // URL -> promise of the file's JSON, so a file is fetched once per page (load.js);
    // a failed fetch leaves it, to be tried again.
    files: new Map(),
    // URL -> promise of a query list as records (data.js queryList): mapped once.
    lists: new Map(),
    // The number of the view being drawn (main.js route): a slower earlier one that
    // finishes later must not draw over it.
    view: 0,
    // The heatmap on the page: its rows, columns and cell layout (heatmap.js), for the
    // browser tests and the benchmark (window.fbExplorer.heat()).
    heat: null,
    // The dialog that shows a document's text, made on first use (card-texts.js).
    dialog: null,
  };
})();
