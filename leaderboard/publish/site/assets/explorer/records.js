/* The explorer's files as records: each file's format checked, and its rows mapped to
 * objects by field name, once, here; no other part of the script reads a row by position.
 * No DOM; tested under node (tests/js/explorer-records.test.js).
 *
 * Who writes what: the index and the task files, leaderboard/publish/site/explorer.py
 * (INDEX_FORMAT, TASK_FILE_FIELDS); a submission's query lists and cards,
 * leaderboard/core/explain.py (EXPLAIN_FORMAT, MOVE_FIELDS, TOP_FIELDS, IRS_FIELDS) split
 * by leaderboard/submission/explain_files.py, which writes its manifest
 * (MANIFEST_FORMAT) and text parts (explain.py TEXT_FORMAT). A file of another format
 * than the one named here is refused with both formats named, never misread.
 */
var FBXRecords = (function () {
  "use strict";

  var INDEX_FORMAT = "followboard-explorer/9";
  var EXPLAIN_FORMAT = "followboard-explain/1";
  var TEXTS_FORMAT = "followboard-texts/2";
  var MANIFEST_FORMAT = "followboard-explain-manifest/2";

  // Rows whose file names no fields, so its format fixes their order:
  // a query list's queries (explain.py explanation_record: the figures in the order of
  // the list's "metrics") and a T4 text part's pairs (explain_files.py _pair_parts).
  var QUERY_FIELDS = ["query", "original", "group", "values"];
  var PAIR_FIELDS = ["persona", "instruction"];
  // Fields this script reads from files that name theirs ("fields"): a task file's
  // entries and a card's documents, top lists and IRS parts.
  var TASK_FILE_FIELDS = ["submission", "primary", "explained"];
  var CARD_FIELDS = {
    move: ["doc", "rank_original", "rank_altered", "p_mrr_rank_original", "p_mrr_rank_altered",
           "p_mrr", "irs_gain"],
    top: ["doc", "judged_query", "judged_instruction", "pair_role"],
    irs: ["S", "S_ideal", "S_worst", "scale"],
  };
  // What the index must hold (each task and family too), beyond its format.
  var INDEX_KEYS = ["metrics", "submissions", "order", "tasks", "families", "group_names", "directions"];
  var INDEX_TASK_KEYS = ["title", "label", "primary", "family", "file", "lang"];
  var INDEX_FAMILY_KEYS = ["title", "line", "part", "group_by", "tasks", "columns", "unranked", "unscored"];

  function isObject(x) { return x !== null && typeof x === "object" && !Array.isArray(x); }

  // {field: value} of a row, by the names in ``fields``.
  function record(fields, row) {
    var out = {};
    for (var i = 0; i < fields.length; i++) out[fields[i]] = row[i];
    return out;
  }

  function missingKeys(doc, keys) {
    return keys.filter(function (k) { return !(k in doc); });
  }

  function missingFields(fields, needed) {
    if (!Array.isArray(fields)) return needed.slice();
    return needed.filter(function (f) { return fields.indexOf(f) === -1; });
  }

  function quoted(names) {
    return names.map(function (n) { return "\u201c" + n + "\u201d"; }).join(", ");
  }

  // Whether ``found`` is a later version of the format ``known`` ("name/N": the same name,
  // a greater N), as the Python readers tell one (core/fileio.py newer_version).
  function newerFormat(found, known) {
    var f = /^(.{1,80})\/([0-9]{1,9})$/.exec(typeof found === "string" ? found : "");
    var k = /^(.+)\/([0-9]+)$/.exec(known);
    return !!f && !!k && f[1] === k[1] && Number(f[2]) > Number(k[2]);
  }

  // Whether ``doc`` is a file of one of the explorer's formats that a newer version of
  // FollowBoard writes than built this page.
  function newerFile(doc) {
    return isObject(doc) && [INDEX_FORMAT, EXPLAIN_FORMAT, TEXTS_FORMAT, MANIFEST_FORMAT]
      .some(function (known) { return newerFormat(doc.format, known); });
  }

  // Whether ``doc``, a file the site's build writes (the index, a task file: their "build",
  // leaderboard/publish/site/explorer.py stamp_build), is of another build than the page's
  // (``build``, its element's data-build): the site was deployed anew since the page was
  // loaded, and the server gives the new file for the old page's ?v=<build>. Asked before
  // the file's format, which then says nothing of the file. A page that names no build
  // asks nothing; a file that names none is of a build before builds were named.
  function otherBuild(doc, build) {
    return !!build && isObject(doc) && doc.build !== build;
  }

  // What is wrong with ``doc`` as a file of ``want`` ({format, kind, task}), as the end
  // of a sentence naming the file ("... is in format X, and this page reads Y"); null
  // when nothing is.
  function fileProblem(doc, want) {
    if (!isObject(doc)) return "is not a FollowBoard file (not a JSON object)";
    if (newerFormat(doc.format, want.format)) {
      return "is in format " + JSON.stringify(doc.format) + ", newer than this page reads (" +
        want.format + ")";
    }
    if (doc.format !== want.format) {
      return "is in format " + JSON.stringify(doc.format === undefined ? null : doc.format) +
        ", and this page reads " + want.format;
    }
    if (want.kind && doc.kind !== want.kind) {
      return "holds " + JSON.stringify(doc.kind === undefined ? null : doc.kind) +
        ", not " + JSON.stringify(want.kind);
    }
    if (want.task && doc.task !== want.task) return "is for task " + JSON.stringify(doc.task) + ", not " + want.task;
    return null;
  }

  function indexProblem(doc) {
    var wrong = fileProblem(doc, { format: INDEX_FORMAT });
    if (wrong) return wrong;
    var lacks = missingKeys(doc, INDEX_KEYS);
    Object.keys(doc.tasks || {}).forEach(function (tid) {
      missingKeys(doc.tasks[tid], INDEX_TASK_KEYS).forEach(function (k) { lacks.push("tasks." + tid + "." + k); });
    });
    Object.keys(doc.families || {}).forEach(function (fid) {
      missingKeys(doc.families[fid], INDEX_FAMILY_KEYS).forEach(function (k) { lacks.push("families." + fid + "." + k); });
    });
    return lacks.length ? "lacks " + quoted(lacks.slice(0, 3)) + (lacks.length > 3 ? " and " + (lacks.length - 3) + " more" : "") : null;
  }

  function queryListProblem(doc, task) {
    var wrong = fileProblem(doc, { format: EXPLAIN_FORMAT, kind: "queries", task: task });
    if (wrong) return wrong;
    if (!Array.isArray(doc.queries) || !Array.isArray(doc.metrics)) return "lacks its queries or metrics";
    return null;
  }

  function cardsProblem(doc, task) {
    var wrong = fileProblem(doc, { format: EXPLAIN_FORMAT, kind: "cards", task: task });
    if (wrong) return wrong;
    if (!isObject(doc.cards) || !isObject(doc.fields)) return "lacks its cards or fields";
    var lacks = [];
    Object.keys(CARD_FIELDS).forEach(function (part) {
      missingFields(doc.fields[part], CARD_FIELDS[part]).forEach(function (f) { lacks.push(part + "." + f); });
    });
    return lacks.length ? "names no field " + quoted(lacks) : null;
  }

  // A text part's kind is its name's head: "queries:original" -> "queries". A part of
  // document snippets names those it cut (explain.py text_record "cut").
  function textsProblem(doc, name) {
    var kind = name.split(":")[0];
    var wrong = fileProblem(doc, { format: TEXTS_FORMAT, kind: kind });
    if (wrong) return wrong;
    if (!isObject(doc.texts)) return "lacks its texts";
    if (kind === "docs" && !Array.isArray(doc.cut)) return "lacks its list of the texts it cut";
    return null;
  }

  // The documents a part of snippets (its problem already checked) cut: {id: true}.
  function cutDocs(doc) {
    var out = Object.create(null);
    doc.cut.forEach(function (id) { out[id] = true; });
    return out;
  }

  function manifestProblem(doc) {
    var wrong = fileProblem(doc, { format: MANIFEST_FORMAT });
    if (wrong) return wrong;
    return isObject(doc.tasks) ? null : "lacks its tasks";
  }

  function taskFileProblem(doc, task) {
    if (!isObject(doc) || doc.task !== task || !Array.isArray(doc.submissions)) return "is not the task file of " + task;
    var lacks = missingFields(doc.fields, TASK_FILE_FIELDS);
    return lacks.length ? "names no field " + quoted(lacks) : null;
  }

  // A query list (its problem already checked) as the views read it: its rows as
  // {task, query, original, group, values: {metric: figure}}.
  function queryList(doc) {
    var metrics = doc.metrics, task = doc.task;
    var rows = doc.queries.map(function (q) {
      var row = record(QUERY_FIELDS, q);
      var values = {};
      for (var i = 0; i < metrics.length; i++) values[metrics[i]] = row.values[i];
      row.values = values;
      row.task = task;
      return row;
    });
    return { task: task, primary: doc.primary, metrics: metrics, rows: rows,
             cardFiles: doc.card_files || [0], texts: doc.texts || null,
             upstream: doc.upstream || null, corpusSize: doc.corpus_size || 0 };
  }

  // The number of the card file that holds the query at ``position`` of its list
  // (card_files: the position each file starts at).
  function cardFileOf(starts, position) {
    var part = 0;
    while (part + 1 < starts.length && starts[part + 1] <= position) part++;
    return part;
  }

  // One query's card from a cards file (its problem already checked), null if the file
  // lacks it: ``ranked`` (documents each run ranks, by role), ``changed`` and ``positive``
  // (documents, each {doc, rank_original, ...}), ``irs`` ({S, S_ideal, S_worst, scale} or
  // null), ``top`` (role -> [{doc, judged_query, ...}]) and T4's ``pairs``.
  function card(doc, query) {
    var c = doc.cards[query];
    if (!c) return null;
    var f = doc.fields;
    function moves(list) { return (list || []).map(function (m) { return record(f.move, m); }); }
    var top = {};
    Object.keys(c.top || {}).forEach(function (role) {
      top[role] = c.top[role].map(function (t) { return record(f.top, t); });
    });
    return { ranked: c.n || {}, changed: moves(c.c), positive: moves(c.p),
             irs: c.s ? record(f.irs, c.s) : null, top: top, pairs: c.pairs || null };
  }

  // A task file's entries as {slug, primary, explained}: the submission named by its
  // position in the index's ``order``.
  function taskEntries(doc, order) {
    return doc.submissions.map(function (e) {
      var r = record(doc.fields, e);
      return { slug: order[r.submission], primary: r.primary, explained: !!r.explained };
    });
  }

  // A T4 pair's persona and instruction ids from a "pairs" text part, or null.
  function pairOf(texts, pair) {
    var row = texts && texts[pair];
    return row ? record(PAIR_FIELDS, row) : null;
  }

  // The language attributes of a task's texts on ``side`` ("query": its queries, a T4
  // persona; "docs": its documents, T4's instructions): {lang: BCP 47 tag, dir: "ltr" or
  // "rtl"}, from the index (explorer.py text_languages). A language the index does not
  // give is unknown: lang "" (not the page's English) and dir "auto" (the text's first
  // strong character decides).
  function textLanguage(index, task, side) {
    var t = index.tasks[task];
    var tag = t && t.lang ? t.lang[side] : null;
    var dir = tag && index.directions ? index.directions[tag] : null;
    return tag && dir ? { lang: tag, dir: dir } : { lang: "", dir: "auto" };
  }

  // A heatmap family's columns (explorer.py heatmap_columns) as {slug, scoredOn,
  // unscored}, in the tables' order: each submission named by its position in the index's
  // ``order``; ``scoredOn``, the data revision of one its family's table gives no rank for
  // being scored on another revision than the pin (after the ranked ones), else null;
  // ``unscored``, whether it lacks a figure on some task of the family (no mean, no rank;
  // last).
  function heatColumns(fam, order) {
    var scoredOn = {};
    fam.unranked.forEach(function (u) { scoredOn[u.submission] = u.scored_on; });
    return fam.columns.map(function (i) {
      return { slug: order[i], scoredOn: i in scoredOn ? scoredOn[i] : null,
               unscored: fam.unscored.indexOf(i) !== -1 };
    });
  }

  // The start page's lines of heatmap families, in the index's order: families sharing
  // a ``line`` (a cross-lingual task's, one per query language) are one line, each
  // named by its ``part`` ("from Hindi"); a family alone on its line has no part.
  function familyLines(families) {
    var lines = [], byTitle = {};
    Object.keys(families).forEach(function (id) {
      var fam = families[id];
      var line = byTitle[fam.line];
      if (!line) { line = byTitle[fam.line] = { title: fam.line, families: [] }; lines.push(line); }
      line.families.push({ id: id, part: fam.part, family: fam });
    });
    return lines;
  }

  return {
    INDEX_FORMAT: INDEX_FORMAT, EXPLAIN_FORMAT: EXPLAIN_FORMAT, TEXTS_FORMAT: TEXTS_FORMAT,
    MANIFEST_FORMAT: MANIFEST_FORMAT, QUERY_FIELDS: QUERY_FIELDS, TASK_FILE_FIELDS: TASK_FILE_FIELDS,
    CARD_FIELDS: CARD_FIELDS, record: record, fileProblem: fileProblem, newerFile: newerFile,
    otherBuild: otherBuild,
    indexProblem: indexProblem,
    queryListProblem: queryListProblem, cardsProblem: cardsProblem, textsProblem: textsProblem,
    cutDocs: cutDocs,
    manifestProblem: manifestProblem, taskFileProblem: taskFileProblem, queryList: queryList,
    cardFileOf: cardFileOf, card: card, taskEntries: taskEntries, pairOf: pairOf,
    familyLines: familyLines, heatColumns: heatColumns, textLanguage: textLanguage,
  };
})();

if (typeof module !== "undefined") module.exports = FBXRecords;
