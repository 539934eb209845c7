/* The explorer's shared helpers: building DOM nodes (text always through textContent) and
 * printing numbers (by the one display rule, assets/format.js, loaded before the explorer).
 */
var FBXCommon = (function () {
  "use strict";

  // An element: h("a", {href: ..., cls: ..., text: ..., onclick: fn}, child, ...).
  // An attribute that is null, undefined or false is left out; true sets it empty.
  function h(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) continue;
        if (k === "text") node.textContent = v;
        else if (k === "cls") node.className = v;
        else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
        else node.setAttribute(k, v === true ? "" : String(v));
      }
    }
    for (var i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }

  // Append children (nodes, strings, arrays of them; null and false are skipped).
  function add(node) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) { child.forEach(function (c) { add(node, c); }); continue; }
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
  }

  var SVGNS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVGNS, tag);
    for (var k in attrs) node.setAttribute(k, attrs[k]);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // A fraction as the leaderboard shows it: x100, one decimal, by the rule the tables
  // follow too (assets/format.js).
  function fmt(v, signed) { return FBFormat.score(v, signed); }

  // An IRS gain (or S) on the card's one scale, x100 like p-MRR's terms, two decimals.
  function gainText(g) { return FBFormat.score(g, true, 2); }

  // The exact value, for data-v: JavaScript's shortest round-trip form of the double.
  function exact(v) { return v === null || v === undefined ? "" : String(v); }

  // A count and its noun, singular for 1 ("1 task", "1,386 queries"), as the Python
  // side's core.report.plural words them.
  function plural(n, noun, pluralForm) {
    if (n === 1) return "1 " + noun;
    if (!pluralForm) {
      pluralForm = /[^aeiou]y$/.test(noun) ? noun.slice(0, -1) + "ies" : noun + "s";
    }
    return n.toLocaleString("en-US") + " " + pluralForm;
  }

  // A name or text a submitter gave (a model's name), set apart from the text around it:
  // a name in Arabic or Hebrew script, or one ending in digits, otherwise takes the
  // neighbouring words and numbers into its own direction and reorders them. ``named``:
  // an element of its own (<bdi>, dir=auto); ``isolated``: the same in plain text (first
  // strong isolate ... pop directional isolate), where no element can be (an option's
  // label, a canvas, a message).
  function named(text) { return h("bdi", null, text); }
  function isolated(text) { return "\u2068" + text + "\u2069"; }

  // A document's copied text and how much of it is shown: ``cut`` is true when the
  // scorer cut it (its text part's "cut" names it), and then it ends in an ellipsis and
  // the words say it is the start of the text. Not "the first N characters": N would
  // count code points, and the cut falls between characters as a reader sees them (a
  // conjunct is one, of several).
  function snippet(text, cut) {
    cut = cut === true;
    return { text: cut ? text + "\u2026" : text, cut: cut,
             words: cut ? "the start of the text" : "the whole text" };
  }

  // The entry ``key`` of ``map`` (an object read from JSON), or undefined when the map
  // does not hold it itself: an id from the address ("constructor", "__proto__",
  // "toString") is otherwise found among what every object inherits.
  function own(map, key) {
    return map && Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
  }

  return { h: h, add: add, svg: svg, fmt: fmt, gainText: gainText, exact: exact,
           plural: plural, named: named, isolated: isolated, snippet: snippet, own: own };
})();

if (typeof module !== "undefined") module.exports = FBXCommon;
