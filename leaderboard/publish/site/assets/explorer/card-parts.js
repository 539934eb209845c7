/* The figures on a query's card: its metrics, the slope chart of the documents' ranks in
 * both runs, the tables of those documents with their terms in p-MRR and IRS, the top
 * of each run, and T4's pairs. Every figure keeps its exact value in data-v.
 */
var FBXCardParts = (function () {
  "use strict";

  var h = FBXCommon.h, add = FBXCommon.add, svg = FBXCommon.svg, fmt = FBXCommon.fmt;
  var exact = FBXCommon.exact, gainText = FBXCommon.gainText;
  var D = FBXData;

  function rankText(rank, used, what) {
    if (rank !== null && rank !== undefined) return String(rank);
    return used ? "not ranked (" + what + " " + used + ")" : "not ranked";
  }

  // A wrong-way move's line is dashed, in the chart and in its key, as well as red: the
  // kind of a move is not told by colour alone (a reader who does not tell blue from red,
  // forced colours). An attribute, so it holds whatever the style sheet does to colours.
  var DASHES = { bad: "6 4" };

  function moveLine(kind, attrs) {
    if (DASHES[kind]) attrs["stroke-dasharray"] = DASHES[kind];
    return svg("line", attrs);
  }

  // The key's sample of a kind of move: a short line drawn as the chart draws it.
  function sample(kind) {
    var s = svg("svg", { class: "fb-x-sample", viewBox: "0 0 24 8", width: 24, height: 8,
      "aria-hidden": "true", focusable: "false" });
    s.appendChild(moveLine(kind, { x1: 1, x2: 23, y1: 4, y2: 4 }));
    return s;
  }

  // Ranks of each document in both runs, as lines, rank 1 at the top in every chart (a
  // card's two charts read the same way); colour and dashes (DASHES) say whether a move is
  // the way the instruction asks (down the ranking for a document it made non-relevant,
  // ``deeperIsGood``, up for one that satisfies it). ``moves``: {doc, from, to, fromRanked,
  // toRanked}; the axis runs to at least ``axisMax``.
  function slope(moves, deeperIsGood, title, axisMax) {
    var W = 420, H = 240, L = 74, R = 74, T = 16, B = 30;
    var maxRank = Math.max(10, axisMax || 0);
    moves.forEach(function (m) { maxRank = Math.max(maxRank, m.from, m.to); });
    var span = Math.log(maxRank);
    function y(r) {
      return T + Math.log(Math.max(r, 1)) / span * (H - T - B);
    }
    var chart = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", class: "fb-x-slope",
      "aria-label": title });
    var ticks = [1, 10, 100, 1000, 10000, 100000].filter(function (r) { return r <= maxRank; });
    // The end of the axis too (where the metric puts an unranked document), when it is
    // well past the last power of ten.
    if (maxRank > 1.5 * ticks[ticks.length - 1]) ticks.push(maxRank);
    ticks.forEach(function (r) {
      chart.appendChild(svg("line", { x1: L, x2: W - R, y1: y(r), y2: y(r), class: "fb-x-grid" }));
      chart.appendChild(svg("text", { x: L - 8, y: y(r) + 4, class: "fb-x-tick", "text-anchor": "end" }, "rank " + r));
    });
    // Which way the instruction asks the documents to go.
    chart.appendChild(svg("text", { x: W - R + 8, y: deeperIsGood ? H - B : T + 4, class: "fb-x-tick" }, deeperIsGood ? "\u2193 asked" : "\u2191 asked"));
    chart.appendChild(svg("text", { x: L, y: H - 8, class: "fb-x-axis", "text-anchor": "middle" }, "original run"));
    chart.appendChild(svg("text", { x: W - R, y: H - 8, class: "fb-x-axis", "text-anchor": "middle" }, "altered run"));
    moves.forEach(function (m) {
      var kind = m.to === m.from ? "same" : ((m.to > m.from) === deeperIsGood ? "good" : "bad");
      var g = svg("g", { class: "fb-x-move fb-x-" + kind, "data-doc": m.doc });
      g.appendChild(svg("title", {}, m.doc + ": " + (m.fromRanked ? "rank " + m.from : "not ranked (" + m.from + ")") +
        " \u2192 " + (m.toRanked ? "rank " + m.to : "not ranked (" + m.to + ")")));
      g.appendChild(moveLine(kind, { x1: L, x2: W - R, y1: y(m.from), y2: y(m.to) }));
      g.appendChild(svg("circle", { cx: L, cy: y(m.from), r: 3.5, class: m.fromRanked ? "" : "fb-x-unranked" }));
      g.appendChild(svg("circle", { cx: W - R, cy: y(m.to), r: 3.5, class: m.toRanked ? "" : "fb-x-unranked" }));
      chart.appendChild(g);
    });
    var good = moves.filter(function (m) { return (m.to > m.from) === deeperIsGood && m.to !== m.from; }).length;
    var bad = moves.filter(function (m) { return (m.to > m.from) !== deeperIsGood && m.to !== m.from; }).length;
    return h("figure", { cls: "fb-x-slope-box" }, chart,
      h("figcaption", null, h("span", { cls: "fb-x-key" }, "Rank 1 at the top."), " ",
        h("span", { cls: "fb-x-key fb-x-good" }, sample("good"), (deeperIsGood ? " \u2193 " : " \u2191 ") + good + " moved " +
          (deeperIsGood ? "down the ranking" : "up the ranking") + ", as the instruction asks"), " ",
        h("span", { cls: "fb-x-key fb-x-bad" }, sample("bad"), (deeperIsGood ? " \u2191 " : " \u2193 ") + bad + " moved the wrong way (dashed)"), " ",
        h("span", { cls: "fb-x-key fb-x-same" }, sample("same"), " " + (moves.length - good - bad) + " did not move"), " ",
        h("span", { cls: "fb-x-key" }, "\u25cb not ranked (drawn at the rank the metric gives it)")));
  }

  // Where the T+ chart's axis ends: at rank N + 1 (``unranked``) only when a run leaves
  // one of the documents out; a run that ranks every one draws to the deepest rank it
  // gives them (0: no minimum), not to the end of the corpus.
  function positiveAxis(positive, unranked) {
    return positive.some(function (m) { return m.rank_original === null || m.rank_altered === null; }) ? unranked : 0;
  }

  function num(v, text, attrs) {
    var a = attrs || {};
    a["data-v"] = exact(v);
    return h("td", a, text);
  }

  function docButton(doc, ctx) {
    return h("button", { type: "button", cls: "fb-x-doc", "data-doc": doc, title: "Show the text of " + doc,
      onclick: function () { FBXCardTexts.openDoc(doc, ctx); } }, doc);
  }

  // The documents of a card (records.js card: changed or positive) with their ranks and
  // terms: ``kind`` "changed" (p-MRR's, ``n`` of them), "positive" or "relevant";
  // ``scale`` the IRS normaliser (0: no shares); ``single`` one run only.
  function movesTable(moves, kind, n, scale, ctx, single) {
    var irs = moves.some(function (m) { return m.irs_gain !== null && m.irs_gain !== undefined; });
    var head = h("tr", null, h("th", { scope: "col" }, "Document"));
    if (!single) add(head, h("th", { scope: "col" }, "Original rank"));
    add(head, h("th", { scope: "col" }, single ? "Rank in the run" : "Altered rank"));
    if (kind === "changed") {
      add(head, h("th", { scope: "col", title: "the document's term in p-MRR: R_new/R_og \u2212 1 when it moved up or stayed, 1 \u2212 R_og/R_new when it moved down" }, "p-MRR term"),
        h("th", { scope: "col", title: "term / number of changed documents: the shares add up to the query's p-MRR" }, "Share of p-MRR"));
    }
    if (irs) {
      add(head, h("th", { scope: "col", title: "the document's signed gain in IRS's S (1/log2(rank+1) differences; T\u2212 counts against S)" }, "IRS gain"));
      if (scale) add(head, h("th", { scope: "col", title: "gain / the IRS normaliser: the shares add up to the query's IRS before it is clipped to [\u22121, 1]" }, "Share of IRS"));
    }
    var body = h("tbody");
    moves.forEach(function (m) {
      var tr = h("tr", { "data-doc": m.doc }, h("td", { cls: "fb-x-id" }, docButton(m.doc, ctx)));
      if (!single) {
        add(tr, num(m.rank_original, rankText(m.rank_original, kind === "changed" ? m.p_mrr_rank_original : null, "p-MRR counts rank"),
          { "data-field": "rank_original", "data-used": kind === "changed" ? m.p_mrr_rank_original : null }));
      }
      add(tr, num(m.rank_altered, rankText(m.rank_altered, kind === "changed" && !single ? m.p_mrr_rank_altered : null, "p-MRR counts rank"),
        { "data-field": "rank_altered", "data-used": kind === "changed" && !single ? m.p_mrr_rank_altered : null }));
      if (kind === "changed") {
        add(tr, num(m.p_mrr, fmt(m.p_mrr, true), { "data-field": "p_mrr", cls: m.p_mrr < 0 ? "fb-x-neg" : null }));
        var share = n ? m.p_mrr / n : null;
        add(tr, num(share, fmt(share, true), { "data-field": "p_mrr_share" }));
      }
      if (irs) {
        add(tr, num(m.irs_gain, gainText(m.irs_gain), { "data-field": "irs_gain", cls: m.irs_gain < 0 ? "fb-x-neg" : null }));
        if (scale) { var sh = m.irs_gain / scale; add(tr, num(sh, fmt(sh, true), { "data-field": "irs_share" })); }
      }
      add(body, tr);
    });
    return h("div", { cls: "fb-x-wrap" }, h("table", { cls: "fb-x-table fb-x-moves", "data-kind": kind }, h("thead", null, head), body));
  }

  // A query's figures (its list row's values), in ``order``.
  // Each metric's help is a text of its own after the figure, shown by the (?) button in
  // its name (a title on the name reached a mouse only: a <dt> takes no focus, and
  // screen readers seldom read a title). Ids are unique on the page (compare mode shows
  // two cards).
  var helpCount = 0;
  function metricsBlock(values, order) {
    var dl = h("dl", { cls: "fb-x-metrics" });
    order.forEach(function (m) {
      // A figure the query lacks (p-MRR without changed documents) is explained below.
      if (values[m] === null || values[m] === undefined) return;
      var v = values[m];
      var id = "fb-x-metric-help-" + (++helpCount);
      var help = h("dd", { cls: "fb-x-metric-help", id: id, hidden: true }, D.metricHelp(m));
      var toggle = h("button", { type: "button", cls: "fb-x-help", "aria-expanded": "false", "aria-controls": id,
        "aria-label": "What " + D.metricLabel(m) + " means", title: D.metricHelp(m) }, "?");
      toggle.addEventListener("click", function () {
        var open = toggle.getAttribute("aria-expanded") !== "true";
        toggle.setAttribute("aria-expanded", String(open));
        if (open) help.removeAttribute("hidden");
        else help.setAttribute("hidden", "");
      });
      add(dl, h("div", { cls: "fb-x-metric" }, h("dt", null, D.metricLabel(m), " ", toggle),
        h("dd", { "data-v": exact(v), "data-metric": m, cls: v !== null && D.signedMetric(m) && v < 0 ? "fb-x-neg" : null },
          fmt(v, D.signedMetric(m))), help));
    });
    return dl;
  }

  // A top document's marks: T-/T+ and how it is judged.
  function marks(d, paired) {
    var out = h("span", { cls: "fb-x-marks" });
    if (d.pair_role === "changed") add(out, h("abbr", { cls: "fb-x-badge fb-x-tminus", title: "changed: the instruction made it non-relevant (T\u2212)" }, "T\u2212"));
    if (d.pair_role === "positive") add(out, h("abbr", { cls: "fb-x-badge fb-x-tplus", title: "satisfies the instruction (T+)" }, "T+"));
    function judged(v, short, what) {
      if (v === null || v === undefined) return;
      add(out, h("abbr", { cls: "fb-x-badge " + (v > 0 ? "fb-x-rel" : "fb-x-nonrel"),
        title: (v > 0 ? "judged relevant " : "judged not relevant ") + what }, short + (v > 0 ? "\u2713" : "\u2717")));
    }
    judged(d.judged_query, paired ? "Q" : "", paired ? "to the original query" : "");
    if (paired) judged(d.judged_instruction, "I", "under the altered instruction");
    return out;
  }

  // The top of each run (``roles``) side by side.
  function topTable(card, roles, ctx) {
    var lists = roles.map(function (r) { return card.top[r] || []; });
    var depth = Math.max.apply(null, lists.map(function (l) { return l.length; }).concat([0]));
    var head = h("tr", null, h("th", { scope: "col" }, "Rank"), roles.map(function (r) {
      return h("th", { scope: "col" }, (r === "run" ? "the run" : r + " run") + " (" + (card.ranked[r] || 0) + " ranked)");
    }));
    var body = h("tbody");
    for (var i = 0; i < depth; i++) {
      var tr = h("tr", null, h("td", { "data-v": i + 1 }, String(i + 1)));
      lists.forEach(function (l, k) {
        var d = l[i];
        add(tr, h("td", { cls: "fb-x-top", "data-role": roles[k], "data-doc": d ? d.doc : null },
          d ? [docButton(d.doc, ctx), " ", marks(d, roles.length > 1)] : ""));
      });
      add(body, tr);
    }
    if (!depth) add(body, h("tr", null, h("td", { colspan: roles.length + 1 }, "No run ranks this query.")));
    return h("div", { cls: "fb-x-wrap" }, h("table", { cls: "fb-x-table fb-x-top10" }, h("thead", null, head), body));
  }

  // PI-Indic T4: a persona's pairs, the most probable first, with the gold label, the
  // submitted probability and whether the prediction (compatible at 0.5 or more) is right;
  // each instruction's text marked with ``language`` ({lang, dir}), its id left English.
  // A document's copied text in its language, and where it was cut (``cut``), an
  // ellipsis and the words saying how much of it is shown (common.js snippet).
  function snippetText(text, language, cut) {
    var shown = FBXCommon.snippet(text, cut);
    return [h("span", { lang: language.lang, dir: language.dir }, shown.text),
            shown.cut ? [" ", h("span", { cls: "fb-x-muted fb-x-cut" }, "(" + shown.words + ")")] : null];
  }

  function pairsTable(pairs, txt, language) {
    var docs = txt && txt.docs;
    var head = h("tr", null, ["Instruction", "Gold label", "Probability", "Predicted"].map(function (c) {
      return h("th", { scope: "col" }, c);
    }));
    var body = h("tbody");
    pairs.forEach(function (p) {
      var joined = FBXRecords.pairOf(txt && txt.pairs, p.pair);
      var instruction = joined ? joined.instruction : null;
      var predicted = p.probability >= 0.5;
      var right = predicted === Boolean(p.label);
      add(body, h("tr", { "data-pair": p.pair, cls: right ? null : "fb-x-wrong" },
        h("td", null, instruction ? [h("b", null, instruction), " ", docs && docs[instruction]
          ? snippetText(docs[instruction], language, Boolean(txt.cut && txt.cut[instruction])) : ""] : p.pair),
        h("td", null, p.label ? "compatible" : "not compatible"),
        h("td", { "data-v": exact(p.probability), "data-field": "probability" }, FBFormat.fixed(p.probability, 3)),
        h("td", null, (predicted ? "compatible" : "not compatible") + (right ? "" : " \u2717"))));
    });
    return h("div", { cls: "fb-x-wrap" }, h("table", { cls: "fb-x-table fb-x-pairs" }, h("thead", null, head), body));
  }

  return { slope: slope, positiveAxis: positiveAxis, movesTable: movesTable, metricsBlock: metricsBlock, topTable: topTable,
           pairsTable: pairsTable };
})();

if (typeof module !== "undefined") module.exports = FBXCardParts;
