/* glossary-kg static site: client-side search over window.GKG_INDEX (assets/search-index.js).
   No dependencies and no network: the index is a script, not fetched JSON, so file:// works.
   fold()/loose() mirror kg.textnorm.fold/name_key on the Python side (without Traditional →
   Simplified, which needs OpenCC's tables). Results are built with textContent only. */
(function () {
  "use strict";
  var CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff";
  var SPACE_NEAR_CJK = new RegExp(" (?=[" + CJK + "])|(?<=[" + CJK + "]) ", "g");
  var LOOSE_DROP = /[\s\-_\u2010-\u2014\u00b7\u30fb.\uff0e/\\'\u2019`"\u201c\u201d()\uff08\uff09[\]\u3010\u3011,\uff0c:\uff1a;\uff1b!\uff01?\uff1f\u3001]+/g;
  var LIMIT = 20;

  function fold(s) {
    return s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim().replace(SPACE_NEAR_CJK, "");
  }
  function loose(s) { return fold(s).replace(LOOSE_DROP, ""); }

  /* Lower is better; Infinity = no match. */
  function score(t, q, lq) {
    var best = Infinity, i, k;
    for (i = 0; i < t.keys.length; i++) {
      k = t.keys[i];
      if (k === q) return 0;
      if (k.indexOf(q) === 0) best = Math.min(best, 1);
      else if (k.indexOf(q) > 0) best = Math.min(best, 2);
    }
    if (lq) {
      for (i = 0; i < t.loose.length; i++) {
        k = t.loose[i];
        if (k === lq) best = Math.min(best, 0.5);
        else if (k.indexOf(lq) === 0) best = Math.min(best, 1.5);
        else if (k.indexOf(lq) > 0) best = Math.min(best, 2.5);
      }
      if (t.pinyin && /^[a-z0-9]+$/.test(lq) && t.pinyin.indexOf(lq) >= 0) best = Math.min(best, 3);
    }
    if (best === Infinity && q.length >= 2 && t.defkey.indexOf(q) >= 0) best = 4;
    return best;
  }

  function search(query) {
    var terms = (window.GKG_INDEX && window.GKG_INDEX.terms) || [];
    var q = fold(query), lq = loose(query), hits = [];
    if (!q) return hits;
    for (var i = 0; i < terms.length; i++) {
      var s = score(terms[i], q, lq);
      if (s !== Infinity) hits.push({ s: s, i: i, t: terms[i] });
    }
    hits.sort(function (a, b) { return a.s - b.s || a.i - b.i; });
    return hits.slice(0, LIMIT).map(function (h) { return h.t; });
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }

  function render(list, hits, root, query) {
    list.textContent = "";
    if (!query.trim()) { list.hidden = true; return; }
    if (!hits.length) {
      list.appendChild(el("li", "r-empty", "No term found · 未找到术语"));
    }
    hits.forEach(function (t) {
      var li = el("li", "result"), a = el("a");
      a.href = root + t.url;
      a.setAttribute("data-term", t.id);
      var label = [t.en, t.zh].filter(Boolean).join(" · ") || t.id;
      a.appendChild(el("strong", "r-label", label));
      var abbr = t.names.filter(function (n) { return n !== t.en && n !== t.zh; }).slice(0, 3).join(", ");
      if (abbr) a.appendChild(document.createTextNode(" (" + abbr + ")"));
      if (t.def) a.appendChild(el("span", "r-def", t.def));
      li.appendChild(a);
      list.appendChild(li);
    });
    list.hidden = false;
  }

  function init() {
    var input = document.getElementById("q"), list = document.getElementById("results");
    if (!input || !list) return;
    var root = document.body.getAttribute("data-root") || "";
    var update = function () { render(list, search(input.value), root, input.value); };
    input.addEventListener("input", update);
    input.addEventListener("keydown", function (ev) {
      var links = list.querySelectorAll("a");
      if (ev.key === "Enter" && links.length) { ev.preventDefault(); links[0].click(); }
      else if (ev.key === "ArrowDown" && links.length) { ev.preventDefault(); links[0].focus(); }
      else if (ev.key === "Escape") { input.value = ""; update(); }
    });
    list.addEventListener("keydown", function (ev) {
      var links = Array.prototype.slice.call(list.querySelectorAll("a"));
      var at = links.indexOf(document.activeElement);
      if (ev.key === "ArrowDown" && at < links.length - 1) { ev.preventDefault(); links[at + 1].focus(); }
      else if (ev.key === "ArrowUp") { ev.preventDefault(); (at > 0 ? links[at - 1] : input).focus(); }
      else if (ev.key === "Escape") { input.focus(); }
    });
    var m = /[?&]q=([^&]*)/.exec(location.search);
    if (m) { input.value = decodeURIComponent(m[1].replace(/\+/g, " ")); update(); }
  }

  window.GKGSearch = { search: search, fold: fold, loose: loose };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
