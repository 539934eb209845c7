/* Pure text functions of the explorer: what changed between an original and an altered
 * instruction, and the ids closest to a mistyped one. No DOM; tested under node
 * (tests/js/explorer-text.test.js).
 */
var FBXText = (function () {
  "use strict";

  // The words of ``text`` as [word, space]: ``space`` what separates it from the word
  // before (" " or "", whitespace of any kind being one space; the first word takes the
  // second's). The words are those of the text's language ``lang`` (a BCP 47 tag; empty:
  // the default rules), punctuation apart, by Intl.Segmenter: Chinese, which puts no space
  // between words, was one "word" a sentence, so a changed instruction showed as all
  // deleted and all inserted. Without Intl.Segmenter: the runs between spaces.
  function words(text, lang) {
    var out = [];
    if (typeof Intl !== "undefined" && Intl.Segmenter) {
      var space = "";
      Array.from(new Intl.Segmenter(lang || undefined, { granularity: "word" }).segment(text)).forEach(function (s) {
        if (/^\s+$/.test(s.segment)) { space = " "; return; }
        out.push([s.segment, space]);
        space = "";
      });
    } else {
      out = text.split(/\s+/).filter(Boolean).map(function (w) { return [w, " "]; });
    }
    if (out.length) out[0][1] = out.length > 1 ? out[1][1] : "";
    return out;
  }

  // Word-level diff (longest common subsequence) of two texts in language ``lang``:
  // [[op, word, space]] with op "=", "-", "+" and the space before the word in its text
  // (the original's for a kept word).
  function wordDiff(a, b, lang) {
    var x = words(a, lang), y = words(b, lang);
    var n = x.length, m = y.length;
    var L = [];
    for (var i = 0; i <= n; i++) { L.push(new Int32Array(m + 1)); }
    for (i = n - 1; i >= 0; i--) for (var j = m - 1; j >= 0; j--) {
      L[i][j] = x[i][0] === y[j][0] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    }
    var out = [];
    i = 0; j = 0;
    function take(op, w) { out.push([op, w[0], w[1]]); }
    while (i < n && j < m) {
      if (x[i][0] === y[j][0]) { take("=", x[i]); i++; j++; }
      else if (L[i + 1][j] >= L[i][j + 1]) take("-", x[i++]);
      else take("+", y[j++]);
    }
    while (i < n) take("-", x[i++]);
    while (j < m) take("+", y[j++]);
    return out;
  }

  // Levenshtein distance (insertions, deletions and substitutions each cost 1).
  function editDistance(a, b) {
    var prev = [], cur;
    for (var j = 0; j <= b.length; j++) prev[j] = j;
    for (var i = 1; i <= a.length; i++) {
      cur = [i];
      for (var k = 1; k <= b.length; k++) {
        cur[k] = Math.min(prev[k] + 1, cur[k - 1] + 1, prev[k - 1] + (a[i - 1] === b[k - 1] ? 0 : 1));
      }
      prev = cur;
    }
    return prev[b.length];
  }

  // Up to three of ``words`` within max(2, a third of its length) edits of ``word``,
  // closest first (ties in code-unit order): the "Did you mean" of an unknown id.
  function closest(word, words) {
    return words.map(function (w) { return [editDistance(word, w), w]; })
      .filter(function (x) { return x[0] <= Math.max(2, word.length / 3); })
      .sort(function (a, b) { return a[0] - b[0] || (a[1] < b[1] ? -1 : 1); })
      .slice(0, 3).map(function (x) { return x[1]; });
  }

  // What several titles share: their common leading words, without a trailing
  // connective ("from", "to", a comma) — "FollowTable" of "FollowTable WQT" and
  // "FollowTable WTR"; "" when they share no word.
  function sharedTitle(titles) {
    if (titles.length === 1) return titles[0];
    var words = titles[0].split(" ");
    titles.slice(1).forEach(function (t) {
      var other = t.split(" "), n = 0;
      while (n < words.length && n < other.length && words[n] === other[n]) n++;
      words = words.slice(0, n);
    });
    while (words.length && /^(from|to|of|on|and|in)$|^\W*$/.test(words[words.length - 1])) words.pop();
    return words.join(" ").replace(/[,;:]$/, "");
  }

  return { wordDiff: wordDiff, editDistance: editDistance, closest: closest, sharedTitle: sharedTitle };
})();

if (typeof module !== "undefined") module.exports = FBXText;
