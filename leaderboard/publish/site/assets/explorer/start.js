/* The explorer's first two views: every verified submission and the heatmaps (no
 * parameters), and a submission's tasks by family (?s=SUB).
 */
var FBXStart = (function () {
  "use strict";

  var h = FBXCommon.h, add = FBXCommon.add, plural = FBXCommon.plural, named = FBXCommon.named;
  var F = FBXFrame, D = FBXData, state = FBXState;
  var nav = F.nav;

  function renderStart() {
    var index = state.index;
    var slugs = Object.keys(index.submissions).sort(function (a, b) {
      return index.submissions[a].name.toLowerCase() < index.submissions[b].name.toLowerCase() ? -1 : 1;
    });
    var body = h("div", { cls: "fb-x-start" });
    if (!slugs.length) {
      add(body, h("p", { cls: "fb-x-empty" }, "No verified submission yet: the explorer shows the queries of submissions scored here."));
      return F.show(null, body);
    }
    var filter = h("input", { type: "search", placeholder: "filter by name", "aria-label": "Filter the submissions by name", autocomplete: "off" });
    var list = h("ul", { cls: "fb-x-subs" });
    slugs.forEach(function (slug) {
      var sub = index.submissions[slug];
      var li = h("li", { "data-slug": slug },
        nav(named(sub.name), { s: slug }), " ",
        h("span", { cls: "fb-x-muted" }, sub.type + " \u00b7 " + plural(sub.tasks, "task") +
          (sub.base ? "" : " \u00b7 no explanation files")));
      add(list, li);
    });
    filter.addEventListener("input", function () {
      var q = filter.value.trim().toLowerCase();
      Array.prototype.forEach.call(list.children, function (li) {
        li.hidden = q && li.textContent.toLowerCase().indexOf(q) === -1;
      });
    });
    add(body, h("h2", null, "Verified submissions"),
      h("p", { cls: "fb-x-note" }, "Pick one to see its tasks, then a task to list its queries. Every verified score on the leaderboard also links to the queries behind it."),
      h("label", { cls: "fb-x-filter" }, "Name ", filter), list);
    add(body, h("h2", null, "Heatmaps of queries against submissions"), familyLinks());
    F.show(null, body);
  }

  // One line per line of heatmap families (the index says which share one: a
  // cross-lingual task's, each query language a link).
  function familyLinks() {
    var ul = h("ul", { cls: "fb-x-families" });
    FBXRecords.familyLines(state.index.families).forEach(function (line) {
      var li = h("li", null);
      var first = line.families[0];
      if (line.families.length === 1 && !first.part) {
        add(li, nav(line.title, { view: "heatmap", t: first.family.tasks[0] }),
          h("span", { cls: "fb-x-muted" }, " \u00b7 " + plural(first.family.tasks.length, "task") + ", by " + first.family.group_by));
      } else {
        add(li, line.title + ": ");
        line.families.forEach(function (it, i) {
          if (i) add(li, " \u00b7 ");
          // The part ("from Assamese") read alone, in a screen reader's list of links, says
          // nothing of its task (T2's and T3's lines each have one): the family's full
          // title is the link's name, holding the part shown, as a task's link on a
          // submission's page.
          var title = it.family.title;
          add(li, nav(it.part, { view: "heatmap", t: it.family.tasks[0] },
            { "aria-label": title.indexOf(it.part) === -1 ? it.part + ": " + title : title }));
        });
      }
      add(ul, li);
    });
    return ul;
  }

  async function renderSubmission(p) {
    var index = state.index;
    var slug = p.get("s");
    var sub = D.submission(slug);
    var tids = await D.explainedTasks(slug);
    var byFamily = {};
    tids.forEach(function (tid) {
      var t = index.tasks[tid];
      if (!t) return;
      (byFamily[t.family] = byFamily[t.family] || []).push(tid);
    });
    var body = h("div", { cls: "fb-x-tasks" },
      h("p", null, "Pick a task to list its queries with ", F.subPage(slug), "\u2019s own scores; a family\u2019s name lists all its queries at once, and \u201cheatmap\u201d sets them against the other submissions."));
    var dl = h("dl", { cls: "fb-x-family-list" });
    Object.keys(index.families).forEach(function (fid) {
      var mine = byFamily[fid];
      if (!mine) return;
      var fam = index.families[fid];
      var dd = h("dd");
      mine.forEach(function (tid, i) {
        if (i) add(dd, " \u00b7 ");
        // The short label ("to Bengali") read alone, in a screen reader's list of links,
        // says nothing of its task: the full title is the link's name (with the label in
        // it, as voice control says what it sees), not only a mouse's title.
        var task = index.tasks[tid];
        add(dd, nav(task.label, { s: slug, t: tid }, { title: task.title,
          "aria-label": task.title.indexOf(task.label) === -1 ? task.label + ": " + task.title : task.title }));
      });
      // A family of several tasks: its link opens all their queries, and says so in its
      // own text (its name as a screen reader lists it, shown on touch too), not only in
      // a mouse's title.
      var all = mine.length > 1 ? h("span", { cls: "fb-x-all" }, ": all " + mine.length + " tasks\u2019 queries") : null;
      add(dl, h("dt", null, nav([fam.title, all], { s: slug, t: mine.join(",") }), " ",
        // "heatmap" alone, a link beside every family, said whose to no screen reader.
        h("span", { cls: "fb-x-muted" }, "(", nav("heatmap", { view: "heatmap", t: mine[0] }, { "aria-label": "heatmap of " + fam.title }), ")")), mine.length > 1 ? dd : null);
    });
    add(body, dl);
    F.show(h("h2", null, named(sub.name)), [F.crumbs([nav("Explorer", {}), h("span", null, named(sub.name))]), body]);
  }

  return { renderStart: renderStart, renderSubmission: renderSubmission };
})();
