/* A query's card (?s=SUB&t=TASK&query=QUERY), alone or beside another submission's
 * (&vs=OTHER): its figures, texts, the documents the instruction changed and how each run
 * moved them, and the top of each run.
 */
var FBXCard = (function () {
  "use strict";

  var h = FBXCommon.h, add = FBXCommon.add, exact = FBXCommon.exact, gainText = FBXCommon.gainText,
    named = FBXCommon.named, isolated = FBXCommon.isolated;
  var F = FBXFrame, D = FBXData, P = FBXCardParts, T = FBXCardTexts, state = FBXState;
  var nav = F.nav;

  // The query's texts: a T4 persona and its pairs, an original query and what the
  // altered instruction changed, or a query alone, each marked with its language.
  // Under a card's title (h3) its heading is an h4; ``shared`` (compare mode, shown once
  // above both cards, under the page's h2) an h3.
  function textSection(card, row, list, txt, qid, shared) {
    var paired = "original" in card.ranked;
    var lang = D.textLanguage(list.task, "query");
    var textBox = h("section", { cls: "fb-x-texts" });
    if (card.pairs) {
      add(textBox, T.textBlock("Persona " + qid, txt && txt["queries:persona"] ? txt["queries:persona"][qid] : null, null, lang));
      add(textBox, P.pairsTable(card.pairs, txt, D.textLanguage(list.task, "docs")));
    } else if (paired) {
      var og = txt && txt["queries:original"], alt = txt && txt["queries:altered"];
      if (og && alt) {
        var a = og[row.original] || "", b = alt[qid] || "";
        add(textBox, T.textBlock("Original query " + row.original, a, null, lang),
          h("div", { cls: "fb-x-text" }, h("h4", null, "Altered query " + qid + ": what changed"), T.diffView(a, b, lang)));
      } else if (list.upstream) {
        add(textBox, T.upstreamQuery(list, row.original, "topics_text", "Original query " + row.original + " (topic only)"),
          T.upstreamQuery(list, qid, "queries_text", "Altered query " + qid + " (query + instruction)"));
      }
    } else {
      var qs = txt && txt["queries:run"];
      add(textBox, T.textBlock("Query " + qid, qs ? qs[qid] : null, "(no text)", lang));
    }
    return [h(shared && !card.pairs ? "h3" : "h4", { cls: "fb-x-sec" }, card.pairs ? "The persona and its pairs" : paired ? "Query and instruction" : "Query"), textBox];
  }

  // FollowIR-style cards: the changed documents (p-MRR), those that satisfy the
  // instruction (IRS) and the top of both runs.
  function pairedSections(card, list, ctx) {
    var out = [];
    var changed = card.changed, positive = card.positive;
    var scale = card.irs ? card.irs.scale : 0;
    var n = changed.length;
    var sec = h("section", { cls: "fb-x-changed" },
      h("h4", { cls: "fb-x-sec" }, "Documents the instruction made non-relevant (" + n + ")"),
      h("p", { cls: "fb-x-note" }, n ? "A run that follows the instruction moves them down. p-MRR is the mean of their terms (each term\u2019s share below)." :
        "The instruction changed no judgment of this query, so it has no p-MRR."));
    if (n) {
      add(sec, P.slope(changed.map(function (m) {
        return { doc: m.doc, from: m.p_mrr_rank_original, to: m.p_mrr_rank_altered, fromRanked: m.rank_original !== null, toRanked: m.rank_altered !== null };
      }), true, "Ranks of the changed documents in the original and the altered run",
      // The axis runs to where p-MRR puts an unranked document, the same for every
      // submission of the task, so two cards side by side draw on one scale.
      Math.max(card.ranked.original || 0, card.ranked.altered || 0) + 1));
      add(sec, P.movesTable(changed, "changed", n, scale, ctx, false));
    }
    out.push(sec);
    if (positive.length || card.irs) {
      var unranked = list.corpusSize + 1;
      var psec = h("section", { cls: "fb-x-positive" },
        h("h4", { cls: "fb-x-sec" }, "Documents that satisfy the instruction, T+ (" + positive.length + ")"),
        h("p", { cls: "fb-x-note" }, "A run that follows the instruction moves them up. IRS adds up every document\u2019s gain, T+ up and T\u2212 down; a document a run leaves out counts at rank N + 1 = " + unranked + "."));
      if (positive.length) {
        add(psec, P.slope(positive.map(function (m) {
          return { doc: m.doc, from: m.rank_original || unranked, to: m.rank_altered || unranked, fromRanked: m.rank_original !== null, toRanked: m.rank_altered !== null };
        }), false, "Ranks of the documents that satisfy the instruction in both runs",
        P.positiveAxis(positive, unranked)));
        add(psec, P.movesTable(positive, "positive", 0, scale, ctx, false));
      }
      if (card.irs) {
        var parts = card.irs;
        add(psec, h("p", { cls: "fb-x-irs" }, "S = ", h("span", { "data-v": exact(parts.S), "data-field": "S" }, gainText(parts.S)),
          " (the sum of the gains), S(ideal) = ", h("span", { "data-v": exact(parts.S_ideal), "data-field": "S_ideal" }, gainText(parts.S_ideal)),
          ", S(worst) = ", h("span", { "data-v": exact(parts.S_worst), "data-field": "S_worst" }, gainText(parts.S_worst)), "; ",
          parts.scale ? "IRS = S / " + FBFormat.fixed(parts.scale, 4) + ", clipped to [\u2212100, 100] (\u00d7100, as every figure here)." : "IRS is fixed without dividing (no ranking to normalise by)."));
      }
      out.push(psec);
    }
    out.push(h("h4", { cls: "fb-x-sec" }, "Top 10 of both runs"),
      h("p", { cls: "fb-x-note" }, "Q\u2713/Q\u2717: judged relevant / not relevant to the original query; I\u2713/I\u2717: under the altered instruction; T\u2212, T+: as above. Click a document for its text."),
      P.topTable(card, ["original", "altered"], ctx));
    return out;
  }

  // A query's card; with ``shared``, its texts are left to the caller (compare mode shows
  // them once above both cards) and come back as ``texts``.
  async function cardView(slug, tid, qid, shared) {
    var list = await D.queryList(slug, tid);
    var rows = list.rows;
    var position = -1;
    for (var i = 0; i < rows.length; i++) if (rows[i].query === qid) { position = i; break; }
    if (position === -1) {
      var close = FBXText.closest(qid, rows.map(function (r) { return r.query; }));
      throw new FBXLoad.UserError("Task " + tid + " has no query \u201c" + qid + "\u201d for " + isolated(D.submissionName(slug)) + ".",
        close.length ? "Did you mean " + close.join(", ") + "?" : "Its " + rows.length + " queries are listed on the task's page.");
    }
    var row = rows[position];
    var got = await Promise.all([D.card(slug, list, position, qid), D.texts(slug, list)]);
    var card = got[0], txt = got[1];
    var ctx = { list: list, texts: txt, docs: D.textLanguage(tid, "docs") };
    var box = h("article", { cls: "fb-x-card", "data-s": slug, "data-task": tid, "data-q": qid });
    var order = FBXRows.orderMetrics(list.metrics, list.primary, D.signedMetric);
    add(box, h("h3", { cls: "fb-x-card-title" }, F.subPage(slug)), P.metricsBlock(row.values, order));
    var texts = textSection(card, row, list, txt, qid, shared);
    // A T4 persona's pairs carry this submission's probabilities and predictions: they
    // stay in its own card, compared or not (shown once above both cards, the second
    // submission's were nowhere and the first's read as both's).
    if (!shared || card.pairs) add(box, texts);
    if (card.pairs) return { box: box, texts: texts, own: true };
    if ("original" in card.ranked) add(box, pairedSections(card, list, ctx));
    else {
      var rel = h("section", { cls: "fb-x-changed" }, h("h4", { cls: "fb-x-sec" }, "The relevant document"),
        h("p", { cls: "fb-x-note" }, "Each query has one relevant document; R@k and RR@10 follow from its rank."));
      if (card.changed.length) add(rel, P.movesTable(card.changed, "relevant", 0, 0, ctx, true));
      add(box, rel, h("h4", { cls: "fb-x-sec" }, "Top 10 of the run"),
        h("p", { cls: "fb-x-note" }, "\u2713: the relevant document. Click a document for its text."),
        P.topTable(card, ["run"], ctx));
    }
    return { box: box, texts: texts };
  }

  // The queries a card steps through: those of the list it was opened from, in the order
  // the reader saw them there (its address carries list=TASKS when the list had several,
  // and the list's sort and filters, links.js listView), or, compared with ``other``,
  // compare mode's order of disagreement. A query the filters leave out steps through
  // the whole list in its sort. ``params``: what links to the next card and back to the
  // list carry.
  async function stepOrder(p, slug, tid, qid, other) {
    var listed = FBXLinks.taskIdsOf(p.get("list"));
    var tids = listed.indexOf(tid) !== -1 ? listed : [tid];
    tids.forEach(D.taskInfo);
    if (other) {
      var got = await Promise.all([D.queryLists(slug, tids), D.queryLists(other, tids)]);
      var cmp = FBXCompare.comparison(got[0], got[1], tids, p.get("m"));
      return { tids: tids, ordered: cmp.found.pairs.map(function (x) { return x.a; }), params: { m: cmp.metric } };
    }
    var model = FBXList.listModel(await D.queryLists(slug, tids), tids, p);
    var view = model.view;
    var ordered = FBXRows.shownRows(model.rows, view);
    if (FBXRows.neighbours(ordered, tid, qid).at === -1) {
      view.find = view.group = view.task = view.only = "";
      ordered = FBXRows.shownRows(model.rows, view);
    }
    return { tids: tids, ordered: ordered, params: FBXLinks.listViewParams(view) };
  }

  async function renderCard(p) {
    var slug = p.get("s"), qid = p.get("query"), other = p.get("vs");
    var tids = D.taskIds(p);
    var tid = tids[0];
    var sub = D.submission(slug);
    var views = [cardView(slug, tid, qid, !!other)];
    if (other) { D.submission(other); views.push(cardView(other, tid, qid, true)); }
    var made = await Promise.all(views);
    var boxes = made.map(function (m) { return m.box; });
    var list = await D.queryList(slug, tid);
    var row = list.rows.filter(function (r) { return r.query === qid; })[0];
    var t = state.index.tasks[tid];
    var title = h("h2", null, "Query " + qid + (row.original ? " (original " + row.original + ")" : "") + (row.group ? ", constraint " + D.groupName(row.group) : "") + " \u00b7 " + t.title);
    var step = await stepOrder(p, slug, tid, qid, other);
    var around = FBXRows.neighbours(step.ordered, tid, qid);
    var listed = step.tids.length > 1 ? step.tids.join(",") : "";
    function stepLink(text, r) {
      return nav(text, Object.assign({ s: slug, t: r.task, query: r.query, vs: other, list: listed }, step.params));
    }
    var stepper = h("p", { cls: "fb-x-step" },
      around.prev ? stepLink("\u2039 previous query", around.prev) : null,
      around.prev && around.next ? " \u00b7 " : null,
      around.next ? stepLink("next query \u203a", around.next) : null, " \u00b7 ",
      FBXList.compareSelect(tid, slug, function (o) { return F.href({ s: slug, t: tid, query: qid, vs: o, list: listed, m: step.params.m }); }));
    var listTitle = step.tids.length > 1 ? D.taskTitle(step.tids) : t.label;
    var trail = [nav("Explorer", {}), nav(named(sub.name), { s: slug }),
      nav(listTitle, Object.assign({ s: slug, t: step.tids.join(",") }, other ? { m: step.params.m } : step.params))];
    if (other) trail.push(nav(["compared with ", named(D.submissionName(other))], { s: slug, vs: other, t: step.tids.join(","), m: step.params.m }));
    trail.push(h("span", null, "query " + qid));
    // The texts are the same for both submissions: shown once, above the two cards (a
    // T4 card keeps its own, which hold the submission's answers).
    var content = !other ? boxes[0] : made[0].own ? h("div", { cls: "fb-x-side" }, boxes)
      : [h("section", { cls: "fb-x-card fb-x-shared-texts" }, made[0].texts),
         h("div", { cls: "fb-x-side" }, boxes)];
    F.show(title, [F.crumbs(trail), stepper, content]);
  }

  return { renderCard: renderCard };
})();
