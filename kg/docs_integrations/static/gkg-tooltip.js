/* glossary-kg tooltips: a term's card when a reader hovers or focuses an a.gkg-term link.
 * No dependencies. window.GlossaryKG.attach({card, link}):
 *   card(id, lang) -> a card (the JSON of GET /v1/terms/{id}/card), a Promise of one, or null;
 *   link(url, id)  -> the href of a card's link to another term.
 * The card is role="tooltip" and the link's aria-describedby while it shows; Escape closes it;
 * it stays open while the pointer is over it (its links work with the mouse). */
(function () {
  "use strict";
  if (window.GlossaryKG && window.GlossaryKG.attach) return;

  var SOURCE = { zh: "来源", en: "Source" };
  var MORE = { zh: "在术语表中查看", en: "Open in the glossary" };
  var HIDE_DELAY = 150;
  var opts = null;
  var tip = null;
  var current = null;
  var hideTimer = 0;
  var token = 0;

  function make(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = String(text);
    return e;
  }

  function renderCard(card, href, link) {
    var lang = card.lang === "zh" ? "zh" : "en";
    var other = lang === "zh" ? "en" : "zh";
    var box = make("div", "gkg-card");
    box.lang = lang;
    box.setAttribute("data-term", card.id);
    var names = make("p", "gkg-card-names");
    names.appendChild(make("strong", "gkg-card-label", card.label));
    var otherLabel = card.labels && card.labels[other];
    if (otherLabel && otherLabel !== card.label) {
      names.appendChild(document.createTextNode(" · "));
      var o = make("span", "gkg-card-label-other", otherLabel);
      o.lang = other;
      names.appendChild(o);
    }
    var abbrs = (card.abbreviations || []).filter(function (a) {
      return a !== card.label && a !== otherLabel;
    });
    if (abbrs.length) {
      names.appendChild(document.createTextNode(" · "));
      names.appendChild(make("span", "gkg-card-abbr", abbrs.join(", ")));
    }
    box.appendChild(names);
    var d = card.definition;
    if (d) {
      var p = make("p", "gkg-card-definition", d.text);
      p.lang = d.lang;
      box.appendChild(p);
      var src = SOURCE[lang] + ": [" + d.source + "]" + (d.source_title ? " " + d.source_title : "");
      box.appendChild(make("p", "gkg-card-source", src));
    }
    var confused = card.confused_with || [];
    if (confused.length) {
      var c = make("div", "gkg-card-confused");
      c.setAttribute("role", "note");
      c.appendChild(make("p", "gkg-card-confused-title", card.confused_with_heading || "易混淆 / often confused with"));
      var ul = make("ul");
      confused.forEach(function (x) {
        var li = make("li");
        var a = make("a", null, x.label);
        a.href = link(x.url, x.id);
        a.tabIndex = -1; // a tooltip takes no focus; the description is read from the term link
        a.setAttribute("data-term", x.id);
        li.appendChild(a);
        if (x.evidence) {
          li.appendChild(document.createTextNode(" "));
          li.appendChild(make("q", "gkg-card-evidence", x.evidence));
        }
        ul.appendChild(li);
      });
      c.appendChild(ul);
      box.appendChild(c);
    }
    if (href) {
      var more = make("p", "gkg-card-more");
      var m = make("a", null, MORE[lang] + " →");
      m.href = href;
      m.tabIndex = -1;
      more.appendChild(m);
      box.appendChild(more);
    }
    return box;
  }

  function ensureTip() {
    if (!tip) {
      tip = make("div", "gkg-tip");
      tip.id = "gkg-tip";
      tip.setAttribute("role", "tooltip");
      tip.hidden = true;
    }
    if (!tip.isConnected) document.body.appendChild(tip); // themes may swap the body's content
    return tip;
  }

  function place(a, t) {
    var rects = a.getClientRects();
    var r = rects.length ? rects[0] : a.getBoundingClientRect();
    t.style.left = "0px";
    t.style.top = "0px";
    var w = t.offsetWidth;
    var h = t.offsetHeight;
    var vw = document.documentElement.clientWidth;
    var x = Math.max(8, Math.min(r.left, vw - w - 8));
    var y = r.bottom + 6;
    if (y + h > window.innerHeight && r.top - h - 6 > 0) y = r.top - h - 6;
    t.style.left = Math.round(x + window.scrollX) + "px";
    t.style.top = Math.round(y + window.scrollY) + "px";
  }

  function hide() {
    clearTimeout(hideTimer);
    token++;
    if (current) current.removeAttribute("aria-describedby");
    current = null;
    if (tip) tip.hidden = true;
  }

  function scheduleHide() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hide, HIDE_DELAY);
  }

  function show(a) {
    clearTimeout(hideTimer);
    if (!opts || (current === a && tip && !tip.hidden)) return;
    if (current && current !== a) current.removeAttribute("aria-describedby");
    current = a;
    var mine = ++token;
    var id = a.getAttribute("data-term");
    var lang = a.getAttribute("data-gkg-lang") || "en";
    Promise.resolve(opts.card(id, lang, a)).then(
      function (card) {
        if (mine !== token || current !== a) return;
        if (!card) return hide();
        var t = ensureTip();
        t.replaceChildren(renderCard(card, a.href, opts.link));
        t.hidden = false;
        a.setAttribute("aria-describedby", t.id);
        place(a, t);
      },
      function () {
        if (mine === token) hide();
      }
    );
  }

  function termOf(node) {
    return node && node.closest ? node.closest("a.gkg-term") : null;
  }

  function inTip(node) {
    return !!(tip && node && tip.contains(node));
  }

  function listen() {
    document.addEventListener("mouseover", function (e) {
      var a = termOf(e.target);
      if (a) show(a);
      else if (inTip(e.target)) clearTimeout(hideTimer);
    });
    document.addEventListener("mouseout", function (e) {
      var to = e.relatedTarget;
      if (!current || !(termOf(e.target) === current || inTip(e.target))) return;
      if (to && (termOf(to) === current || inTip(to))) return;
      scheduleHide();
    });
    document.addEventListener("focusin", function (e) {
      var a = termOf(e.target);
      if (a) show(a);
    });
    document.addEventListener("focusout", function (e) {
      if (termOf(e.target) === current && !inTip(e.relatedTarget)) scheduleHide();
    });
    document.addEventListener("keydown", function (e) {
      if ((e.key === "Escape" || e.key === "Esc") && current) hide();
    });
    window.addEventListener("resize", hide);
  }

  window.GlossaryKG = window.GlossaryKG || {};
  window.GlossaryKG.renderCard = renderCard;
  window.GlossaryKG.hide = hide;
  window.GlossaryKG.attach = function (o) {
    var first = !opts;
    opts = {
      card: o.card,
      link: o.link || function (url) { return url; },
    };
    if (first) listen();
  };
})();
