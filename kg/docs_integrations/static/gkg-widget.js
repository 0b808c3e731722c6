/* glossary-kg drop-in widget (served as /widget.js after gkg-tooltip.js). No dependencies.
 *
 *   <script src="http://HOST/widget.js" data-api="http://HOST"></script>
 *
 * Reads the page's text (not code, links, headings, form fields, nor anything marked
 * class="gkg-skip" or data-gkg-skip), sends it to POST {api}/v1/annotate, wraps the first mention
 * of each term in <a class="gkg-term"> and shows the term's card (GET {api}/v1/terms/{id}/card)
 * on hover and keyboard focus. Options (attributes of the script element):
 *   data-api            the API (default: where widget.js comes from)
 *   data-lang           zh | en (default: <html lang>, else read from the page's script)
 *   data-target         CSS selector of what to annotate (default: main, article, [role=main] or body)
 *   data-occurrences    first (default) | all
 *   data-link-template  where a term links to: {base} and {id} (default: {base}/#term/{id}, the
 *                       API's own web page); data-link-base fills {base} (default: data-api)
 *   data-css            none: do not load {api}/widget.css
 * When done, <html data-gkg-widget="done|error"> and a "gkg:annotated" event on document.
 * window.GlossaryKG.annotate(element) annotates content added later. */
(function () {
  "use strict";
  var script = document.currentScript;
  function attr(name) {
    var v = script && script.getAttribute(name);
    return v && v.trim() ? v.trim() : null;
  }
  var api = (attr("data-api") || (script && script.src ? new URL(script.src).origin : location.origin)).replace(/\/+$/, "");
  var htmlLang = (document.documentElement.lang || "").toLowerCase().slice(0, 2);
  var lang = attr("data-lang") || (htmlLang === "zh" || htmlLang === "en" ? htmlLang : null);
  var occurrences = attr("data-occurrences") === "all" ? "all" : "first";
  var linkTemplate = attr("data-link-template") || "{base}/#term/{id}";
  var linkBase = (attr("data-link-base") || api).replace(/\/+$/, "");
  var CHUNK = 200000; // characters per request (the API takes up to 1 MiB)

  // what is never annotated (as the engine's HTML mode: code, links, headings, …)
  var SKIP = /^(A|ABBR|BUTTON|CANVAS|CAPTION|CODE|DATALIST|H[1-6]|IFRAME|INPUT|KBD|LEGEND|MATH|NOSCRIPT|OBJECT|OPTION|PRE|SAMP|SCRIPT|SELECT|STYLE|SUMMARY|SVG|TEMPLATE|TEXTAREA|TH|TITLE|TT|VAR|VIDEO|AUDIO)$/;
  var INLINE = /^(B|BDI|BDO|CITE|DATA|DEL|DFN|EM|FONT|I|INS|LABEL|MARK|Q|S|SMALL|SPAN|STRONG|SUB|SUP|TIME|U|WBR)$/;

  function skipped(el) {
    return (
      SKIP.test(el.nodeName.toUpperCase()) ||
      el.isContentEditable ||
      el.hidden ||
      el.getAttribute("aria-hidden") === "true" ||
      el.hasAttribute("data-gkg-skip") ||
      (el.classList && (el.classList.contains("gkg-skip") || el.classList.contains("gkg-tip")))
    );
  }

  function blockOf(node) {
    var p = node.parentNode;
    while (p && p.nodeType === 1 && INLINE.test(p.nodeName.toUpperCase())) p = p.parentNode;
    return p;
  }

  // the text nodes to annotate, in order, in chunks of at most CHUNK characters; blocks are
  // separated by a blank line so that a sentence never runs from one paragraph into the next
  function collect(root) {
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: function (n) {
        if (n.nodeType === 1) return skipped(n) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_SKIP;
        return /\S/.test(n.nodeValue) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP;
      },
    });
    var chunks = [];
    var chunk = { text: "", segs: [] };
    var lastBlock = null;
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      var value = n.nodeValue;
      if (chunk.text.length && chunk.text.length + value.length > CHUNK) {
        chunks.push(chunk);
        chunk = { text: "", segs: [] };
        lastBlock = null;
      }
      var block = blockOf(n);
      if (chunk.text.length && block !== lastBlock) chunk.text += "\n\n";
      lastBlock = block;
      chunk.segs.push({ node: n, start: chunk.text.length });
      chunk.text += value;
    }
    if (chunk.segs.length) chunks.push(chunk);
    return chunks;
  }

  // the API counts code points, JavaScript strings UTF-16 units
  function utf16Offsets(text) {
    if (!/[\uD800-\uDFFF]/.test(text)) return null;
    var map = [];
    for (var i = 0; i < text.length; i++) {
      map.push(i);
      var c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        var d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) i++;
      }
    }
    map.push(text.length);
    return map;
  }

  function wellFormed(text) {
    return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/g, function (m) {
      return m.length === 2 ? m[0] + "\uFFFD" : "\uFFFD";
    });
  }

  function request(text) {
    var body = {
      text: wellFormed(text),
      format: "text",
      occurrences: "all", // the first per term is chosen here: a mention may cross elements
      output: "spans",
      base_url: linkBase,
      url_template: linkTemplate,
    };
    if (lang) body.lang = lang;
    return fetch(api + "/v1/annotate", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    }).then(function (resp) {
      if (!resp.ok) throw new Error("POST /v1/annotate answered " + resp.status);
      return resp.json();
    });
  }

  function segmentAt(segs, pos) {
    var lo = 0;
    var hi = segs.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (segs[mid].start <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  function wrap(node, start, end, m, pageLang) {
    var tail = node.splitText(end);
    var middle = node.splitText(start);
    var a = document.createElement("a");
    a.className = "gkg-term";
    a.href = m.url;
    a.setAttribute("data-term", m.term_id);
    a.setAttribute("data-gkg-lang", pageLang);
    a.textContent = middle.nodeValue;
    middle.parentNode.replaceChild(a, middle);
    return tail;
  }

  function annotate(root) {
    root = root || document.body;
    var chunks = collect(root);
    var seen = {};
    var count = 0;
    var work = Promise.resolve();
    chunks.forEach(function (chunk) {
      work = work.then(function () {
        return request(chunk.text).then(function (answer) {
          var map = utf16Offsets(chunk.text);
          var picks = [];
          answer.mentions.forEach(function (m) {
            var s = map ? map[m.start] : m.start;
            var e = map ? map[m.end] : m.end;
            var i = segmentAt(chunk.segs, s);
            var seg = chunk.segs[i];
            if (e > seg.start + seg.node.nodeValue.length) return; // crosses an element
            if (occurrences === "first") {
              if (seen[m.term_id]) return;
              seen[m.term_id] = true;
            }
            picks.push({ seg: i, start: s - seg.start, end: e - seg.start, m: m });
          });
          // right to left: splitting a text node keeps the offsets before the split valid
          picks.sort(function (x, y) {
            return y.seg - x.seg || y.start - x.start;
          });
          picks.forEach(function (p) {
            wrap(chunk.segs[p.seg].node, p.start, p.end, p.m, answer.lang);
            count++;
          });
        });
      });
    });
    return work.then(function () {
      return count;
    });
  }

  var cards = {};
  function card(id, cardLang) {
    var key = cardLang + "|" + id;
    if (!cards[key]) {
      var url = api + "/v1/terms/" + encodeURIComponent(id) + "/card?lang=" + cardLang;
      cards[key] = fetch(url, { headers: { Accept: "application/json" } }).then(function (r) {
        return r.ok ? r.json() : null;
      });
      cards[key].catch(function () {
        delete cards[key];
      });
    }
    return cards[key];
  }

  function link(url, id) {
    return linkTemplate.split("{base}").join(linkBase).split("{id}").join(encodeURIComponent(id));
  }

  function start() {
    if (attr("data-css") !== "none" && !document.querySelector("link[data-gkg-css]")) {
      var css = document.createElement("link");
      css.rel = "stylesheet";
      css.href = api + "/widget.css";
      css.setAttribute("data-gkg-css", "");
      document.head.appendChild(css);
    }
    window.GlossaryKG.attach({ card: card, link: link });
    var target = attr("data-target");
    var roots = target
      ? Array.prototype.slice.call(document.querySelectorAll(target))
      : [document.querySelector("main, article, [role=main]") || document.body];
    var done = Promise.resolve(0);
    roots.forEach(function (r) {
      done = done.then(function (n) {
        return annotate(r).then(function (k) {
          return n + k;
        });
      });
    });
    done.then(
      function (n) {
        document.documentElement.setAttribute("data-gkg-widget", "done");
        document.dispatchEvent(new CustomEvent("gkg:annotated", { detail: { count: n } }));
      },
      function (err) {
        document.documentElement.setAttribute("data-gkg-widget", "error");
        console.warn("glossary-kg widget: " + (err && err.message ? err.message : err));
      }
    );
  }

  window.GlossaryKG.annotate = annotate;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
