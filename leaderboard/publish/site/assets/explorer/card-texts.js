/* The texts on a query's card: the query, what the altered instruction changed (a word
 * diff), a document's text in a dialog, and FollowTable's texts, loaded from GitHub only
 * when the reader asks (the site copies none: FollowTable states no licence). Each text
 * is marked with its language and script direction ({lang, dir}: data.js textLanguage),
 * so a screen reader reads a Hindi persona in a Hindi voice and Urdu runs right to left;
 * the page's own words around it stay English.
 */
var FBXCardTexts = (function () {
  "use strict";

  var h = FBXCommon.h, add = FBXCommon.add;
  var state = FBXState;

  function diffView(a, b, language) {
    var box = h("p", { cls: "fb-x-diff", lang: language.lang, dir: language.dir });
    FBXText.wordDiff(a, b, language.lang).forEach(function (op, i) {
      if (i) add(box, op[2]);
      if (op[0] === "=") add(box, op[1]);
      else if (op[0] === "-") add(box, h("del", { title: "only in the original instruction" }, op[1]));
      else add(box, h("ins", { title: "only in the altered instruction" }, op[1]));
    });
    return box;
  }

  // A text under its label; ``language``: the text's {lang, dir}.
  function textBlock(label, text, extra, language) {
    return h("div", { cls: "fb-x-text" }, h("h4", null, label), text === null || text === undefined
      ? h("p", { cls: "fb-x-muted" }, extra || "(no text)") : h("p", { lang: language.lang, dir: language.dir }, text));
  }

  // A FollowTable query's text, from the upstream file ``file`` of the list's links
  // ("queries_text", "topics_text": JSON lines with _id and text), on request.
  function upstreamQuery(list, id, file, label) {
    var up = list.upstream;
    var box = h("div", { cls: "fb-x-text" }, h("h4", null, label));
    var out = h("p", { cls: "fb-x-muted" }, "Not copied here: FollowTable states no licence. ");
    var btn = h("button", { type: "button", cls: "md-button fb-x-load" }, "Load the text from GitHub");
    btn.addEventListener("click", async function () {
      btn.disabled = true;
      btn.textContent = "Loading from GitHub\u2026";
      try {
        var resp = await fetch(up[file]);
        if (!resp.ok) throw new Error("HTTP " + resp.status);
        var text = await resp.text();
        var found = null;
        text.split("\n").some(function (line) {
          if (!line.trim()) return false;
          var rec = JSON.parse(line);
          if (String(rec._id) === id) { found = rec.text; return true; }
          return false;
        });
        out.textContent = found === null ? "Query " + id + " is not in " + up[file] + "." : found;
        out.className = "";
        if (found !== null) {
          var language = FBXData.textLanguage(list.task, "query");
          out.setAttribute("lang", language.lang);
          out.setAttribute("dir", language.dir);
        }
        btn.remove();
      } catch (e) {
        btn.disabled = false;
        btn.textContent = "Load the text from GitHub";
        out.textContent = "Could not load it from GitHub (" + (e.message || "offline?") + "); the link below works once you are online. ";
      }
    });
    add(box, out, btn, " or ", h("a", { href: up[file], rel: "nofollow noopener" }, "open the file at the pinned commit"));
    return box;
  }

  // The dialog with a document's text (or why there is none). ``ctx``: the card's query
  // list, texts (data.js texts) and the documents' {lang, dir} (``docs``).
  function openDoc(doc, ctx) {
    if (!state.dialog) {
      var made = h("dialog", { cls: "fb-x-dialog", "aria-labelledby": "fb-x-dialog-title" });
      document.body.appendChild(made);
      made.addEventListener("click", function (e) { if (e.target === made) made.close(); });
      state.dialog = made;
    }
    var dialog = state.dialog;
    dialog.textContent = "";
    var close = h("button", { type: "button", cls: "md-button fb-x-close", onclick: function () { dialog.close(); } }, "Close");
    var body = h("div", { cls: "fb-x-dialog-body" });
    var docs = ctx.texts && ctx.texts.docs;
    var up = ctx.list.upstream;
    if (docs && docs[doc] !== undefined) {
      var shown = FBXCommon.snippet(docs[doc], Boolean(ctx.texts.cut && ctx.texts.cut[doc]));
      add(body, docs[doc] || shown.cut ? h("p", { cls: "fb-x-snippet", lang: ctx.docs.lang, dir: ctx.docs.dir }, shown.text)
        : h("p", { cls: "fb-x-snippet" }, "(empty document)"),
        h("p", { cls: "fb-x-muted" }, shown.words.charAt(0).toUpperCase() + shown.words.slice(1) + "; " +
          ctx.texts.licence + ", " + ctx.texts.source + "."));
    } else if (up && up.doc_page) {
      var page = up.doc_page.replace("{doc}", encodeURIComponent(doc));
      var raw = up.doc_text.replace("{doc}", encodeURIComponent(doc));
      var out = h("p", { cls: "fb-x-muted" }, "FollowTable states no licence, so this site does not copy its tables. ");
      var btn = h("button", { type: "button", cls: "md-button fb-x-load" }, "Load the table from GitHub");
      btn.addEventListener("click", async function () {
        btn.disabled = true;
        try {
          var resp = await fetch(raw);
          if (!resp.ok) throw new Error("HTTP " + resp.status);
          var text = await resp.text();
          out.className = "fb-x-snippet";
          out.textContent = text.length > 2000 ? text.slice(0, 2000) + "\u2026" : text;
          btn.remove();
        } catch (e) {
          btn.disabled = false;
          out.textContent = "Could not load it from GitHub (" + (e.message || "offline?") + "); the link works once you are online.";
        }
      });
      add(body, out, btn, " ", h("a", { href: page, rel: "nofollow noopener" }, "Open table " + doc + " on GitHub"));
    } else if (ctx.texts && docs) {
      add(body, h("p", { cls: "fb-x-muted" }, "No snippet: for a collection this large the site keeps the text of judged documents only."));
    } else {
      add(body, h("p", { cls: "fb-x-muted" }, "No text for this task's documents."));
    }
    add(dialog, h("h3", { id: "fb-x-dialog-title" }, "Document " + doc), body, close);
    dialog.showModal();
    close.focus();
  }

  return { diffView: diffView, textBlock: textBlock, upstreamQuery: upstreamQuery, openDoc: openDoc };
})();
