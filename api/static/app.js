/* glossary-kg web page: autocomplete, term view with a neighbourhood drawing, streaming chat.
   Plain browser JavaScript, no dependencies, works offline against the same origin. */
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const SVG_NS = "http://www.w3.org/2000/svg";
const termCache = new Map();

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

async function getJSON(url) {
  const resp = await fetch(url, { headers: { Accept: "application/json" } });
  if (!resp.ok) {
    let message = `HTTP ${resp.status}`;
    try { message = (await resp.json()).error.message || message; } catch (_) { /* not JSON */ }
    const err = new Error(message);
    err.status = resp.status;
    throw err;
  }
  return resp.json();
}


/* ---------------------------------------------------------------- term links */

function termLink(id, label) {
  return el("a", { class: "term-link", href: `#term/${encodeURIComponent(id)}`, "data-term": id, text: label || id });
}

async function termLabel(id) {
  if (termCache.has(id)) return termCache.get(id);
  try {
    const t = await getJSON(`/v1/terms/${encodeURIComponent(id)}`);
    termCache.set(id, t);
    return t;
  } catch (_) {
    return null;
  }
}

/* ---------------------------------------------------------------- autocomplete */

const search = $("#search");
const list = $("#suggestions");
let suggestAvailable = true;
let suggestTimer = null;
let suggestSeq = 0;
let active = -1;

function closeSuggestions() {
  list.hidden = true;
  list.replaceChildren();
  active = -1;
  search.parentElement.setAttribute("aria-expanded", "false");
}

function showSuggestions(items, query) {
  list.replaceChildren();
  active = -1;
  if (!items.length) {
    list.append(el("li", { class: "none", text: `没有以 “${query}” 开头的术语 · no match — press Enter to search` }));
  }
  items.forEach((it, i) => {
    const other = Object.values(it.labels || {}).filter((l) => l !== it.label).join(" · ");
    const li = el("li", { role: "option", id: `sugg-${i}`, "data-id": it.id, "aria-selected": "false" },
      el("span", { class: "name", text: it.name || it.label }),
      el("span", { class: "other", text: [it.name !== it.label ? it.label : null, other].filter(Boolean).join(" · ") }));
    li.addEventListener("mousedown", (ev) => { ev.preventDefault(); openTerm(it.id); });
    list.append(li);
  });
  list.hidden = false;
  search.parentElement.setAttribute("aria-expanded", "true");
}

async function fetchSuggestions(query) {
  const seq = ++suggestSeq;
  if (!suggestAvailable || !query.trim()) { closeSuggestions(); return; }
  try {
    const data = await getJSON(`/v1/suggest?q=${encodeURIComponent(query)}&limit=8`);
    if (seq === suggestSeq) showSuggestions(data.items || [], query);
  } catch (err) {
    if (err.status === 404 || err.status === 405) suggestAvailable = false; // endpoint absent: Enter still works
    closeSuggestions();
  }
}

search.addEventListener("input", () => {
  clearTimeout(suggestTimer);
  suggestTimer = setTimeout(() => fetchSuggestions(search.value), 120);
});

search.addEventListener("keydown", async (ev) => {
  const items = [...list.querySelectorAll("li[data-id]")];
  if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
    if (!items.length) return;
    ev.preventDefault();
    active = (active + (ev.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
    items.forEach((li, i) => li.setAttribute("aria-selected", i === active ? "true" : "false"));
    search.setAttribute("aria-activedescendant", items[active].id);
  } else if (ev.key === "Escape") {
    closeSuggestions();
  } else if (ev.key === "Enter") {
    ev.preventDefault();
    if (active >= 0 && items[active]) { openTerm(items[active].dataset.id); return; }
    const q = search.value.trim();
    if (!q) return;
    try {
      const hit = await getJSON(`/v1/lookup?label=${encodeURIComponent(q)}`);
      openTerm(hit.id);
    } catch (_) {
      if (items.length) openTerm(items[0].dataset.id);
      else askInChat(q);
    }
  }
});

search.addEventListener("blur", () => setTimeout(closeSuggestions, 150));

function openTerm(id) {
  closeSuggestions();
  if (location.hash !== `#term/${encodeURIComponent(id)}`) location.hash = `term/${encodeURIComponent(id)}`;
  else showTerm(id);
}

/* ---------------------------------------------------------------- term view */

const termPanel = $("#term");

async function showTerm(id) {
  termPanel.replaceChildren(el("p", { class: "hint", text: "加载中… loading" }));
  let term;
  try {
    term = await getJSON(`/v1/terms/${encodeURIComponent(id)}`);
    termCache.set(id, term);
  } catch (err) {
    termPanel.replaceChildren(el("p", { class: "error", text: `无法加载术语 ${id}: ${err.message}` }));
    return;
  }
  if (term.id !== id) {  // a former id (answered by a redirect): show the current one in the address
    history.replaceState(null, "", `#term/${encodeURIComponent(term.id)}`);
    id = term.id;
  }
  const zh = term.labels.zh, en = term.labels.en;
  const head = el("div", { class: "term-head" },
    el("h2", { text: zh || en || term.id }),
    zh && en ? el("div", { class: "en", text: en }) : null);
  const badges = el("div", { class: "badges" });
  for (const a of term.abbreviations || []) badges.append(el("span", { class: "badge abbr", text: a }));
  for (const a of term.aliases || []) badges.append(el("span", { class: "badge", text: `别名 ${a}` }));
  for (const c of term.categories || []) badges.append(el("span", { class: "badge", text: c }));
  for (const [lang, origin] of Object.entries(term.label_origin || {})) {
    // a label no source gives (an editorial decision): say so next to the term
    if (origin === "editorial") badges.append(el("span", { class: "badge", text: `编辑补充的${lang === "en" ? "英文" : "中文"}名 (editorial)` }));
  }
  badges.append(el("span", { class: "badge", text: `id: ${term.id}` }));

  const defs = el("ul", { class: "defs" });
  for (const d of term.definitions || []) {
    const src = `来源 ${d.source}${d.section ? ` · ${d.section}` : ""} · 第 ${d.line} 行`;
    defs.append(el("li", {}, el("span", { class: "src", text: src }), el("span", { text: d.text }),
      d.note ? el("span", { class: "note", text: d.note }) : null));
  }
  if (term.kind === "mentioned") {
    // a name the definitions only mention: say so, and list the sentences (never as definitions)
    badges.append(el("span", { class: "badge", text: "仅被提及 · mentioned only" }));
    defs.append(el("li", {}, el("span", { class: "note", text: term.note || "" })));
    for (const m of term.mentioned_in || []) {
      defs.append(el("li", {}, el("span", { class: "src", text: `提及 · 来源 ${m.source} · 第 ${m.line} 行` }),
        el("span", { text: m.sentence })));
    }
  }
  const graphWrap = el("div", { class: "graph-wrap" }, el("h3", { text: "邻近术语 · Neighbourhood" }));
  const ask = el("p", {},
    el("button", { class: "chip", type: "button", text: `什么是 ${zh || en}？`, onclick: () => askInChat(`什么是 ${zh || en}？`) }),
    el("button", { class: "chip", type: "button", text: `和 ${zh || en} 相关的概念有哪些？`,
      onclick: () => askInChat(`和 ${zh || en} 相关的概念有哪些？`) }));
  termPanel.replaceChildren(head, badges, defs, graphWrap, ask);
  drawNeighbourhood(id, graphWrap);
}

async function drawNeighbourhood(id, wrap) {
  let layout;
  try {
    layout = await getJSON(`/v1/terms/${encodeURIComponent(id)}/layout?limit=18`);
  } catch (err) {
    wrap.append(el("p", { class: "hint", text: `无法绘制邻域：${err.message}` }));
    return;
  }
  const W = 640, H = 420, PAD = 16;
  const canvas = svg("svg", { class: "graph", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": `Neighbourhood of ${id}` });
  const pos = new Map(layout.nodes.map((n) => [n.id, [PAD + n.x * (W - 2 * PAD), PAD + n.y * (H - 2 * PAD)]]));
  const edges = svg("g");
  for (const e of layout.edges) {
    const [x1, y1] = pos.get(e.source), [x2, y2] = pos.get(e.target);
    const line = svg("line", { class: `edge ${e.type}`, x1, y1, x2, y2 });
    const title = svg("title");
    title.textContent = `${e.type} · 来源 ${e.doc}: ${e.evidence}`;
    line.append(title);
    edges.append(line);
  }
  canvas.append(edges);
  for (const n of layout.nodes) {
    const [x, y] = pos.get(n.id);
    const g = svg("g", { class: `node${n.center ? " center" : ""}`, transform: `translate(${x},${y})`,
      tabindex: "0", "data-term": n.id });
    g.append(svg("circle", { r: n.center ? 9 : 6 }));
    const label = svg("text", { x: 0, y: n.center ? -14 : -10, "text-anchor": "middle" });
    label.textContent = n.labels.zh || n.labels.en || n.id;
    const title = svg("title");
    title.textContent = [n.labels.zh, n.labels.en].filter(Boolean).join(" · ");
    g.append(title, label);
    if (!n.center) {
      g.addEventListener("click", () => openTerm(n.id));
      g.addEventListener("keydown", (ev) => { if (ev.key === "Enter") openTerm(n.id); });
    }
    canvas.append(g);
  }
  const legend = el("div", { class: "legend" });
  legend.innerHTML =
    '<span><svg width="34" height="8"><line x1="0" y1="4" x2="34" y2="4" stroke="#64748b" stroke-width="1.5"/></svg>related_to 相关</span>' +
    '<span><svg width="34" height="8"><line x1="0" y1="4" x2="34" y2="4" stroke="#dc2626" stroke-width="2" stroke-dasharray="6 4"/></svg>confused_with 易混淆</span>' +
    (layout.truncated ? "<span>（只画出部分邻居 · some neighbours omitted）</span>" : "");
  wrap.append(canvas, legend);
}

/* ---------------------------------------------------------------- chat */

const messages = $("#messages");
const form = $("#chat-form");
const input = $("#chat-input");
const sendButton = $("#chat-send");
let sessionId = sessionStorage.getItem("glossary-session") || null;

function scrollDown() { messages.scrollTop = messages.scrollHeight; }

/** Markdown-ish answer text → DOM: **bold**, "- " items, [n] → superscript links to the citation. */
function renderAnswer(text, root, msgId) {
  root.replaceChildren();
  let ul = null;
  for (const raw of text.split("\n")) {
    const item = raw.startsWith("- ");
    const line = item ? raw.slice(2) : raw;
    const node = item ? el("li") : el("p");
    const re = /\*\*([^*]+)\*\*|\[(\d{1,3})\]/g;
    let last = 0, m;
    while ((m = re.exec(line))) {
      if (m.index > last) node.append(line.slice(last, m.index));
      if (m[1] !== undefined) node.append(el("strong", { text: m[1] }));
      else node.append(el("sup", {}, el("a", { href: `#${msgId}-c${m[2]}`, text: `[${m[2]}]`,
        onclick: (ev) => { ev.preventDefault(); document.getElementById(`${msgId}-c${m[2]}`)?.scrollIntoView({ block: "nearest" }); } })));
      last = re.lastIndex;
    }
    if (last < line.length) node.append(line.slice(last));
    if (item) {
      if (!ul) { ul = el("ul"); root.append(ul); }
      ul.append(node);
    } else {
      ul = null;
      root.append(node);
    }
  }
}

async function renderCitations(citations, box, msgId, lang) {
  if (!citations.length) return;
  const ol = el("ol", { class: "cites" });
  for (const c of citations) {
    const li = el("li", { id: `${msgId}-c${c.marker}` }, el("span", { class: "n", text: `[${c.marker}]` }));
    const link = termLink(c.term_id, c.term_id);
    li.append(link, ` · ${lang === "zh" ? "来源" : "source"} ${c.source}: `, el("span", { class: "q", text: `“${c.quote}”` }));
    ol.append(li);
    termLabel(c.term_id).then((t) => {
      if (t) link.textContent = lang === "zh" ? (t.labels.zh || t.labels.en) : (t.labels.en || t.labels.zh);
    });
  }
  box.append(ol);
}

function chips(questions, box) {
  if (!questions || !questions.length) return;
  const p = el("p", { class: "meta" });
  for (const q of questions) p.append(el("button", { class: "chip", type: "button", text: q, onclick: () => askInChat(q) }));
  box.append(p);
}

function parseSSE(buffer, onEvent) {
  let idx;
  while ((idx = buffer.indexOf("\n\n")) >= 0) {
    const block = buffer.slice(0, idx);
    buffer = buffer.slice(idx + 2);
    let event = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length) onEvent(event, JSON.parse(data.join("\n")));
  }
  return buffer;
}

let msgCounter = 0;

async function askInChat(question) {
  question = question.trim();
  if (!question) return;
  input.value = "";
  sendButton.disabled = true;
  messages.append(el("div", { class: "msg user", text: question }));
  const msgId = `m${++msgCounter}`;
  const textBox = el("div", { class: "text typing" });
  const bot = el("div", { class: "msg bot", id: msgId, "data-state": "streaming" }, textBox);
  messages.append(bot);
  scrollDown();
  let text = "";
  let meta = {};
  try {
    const resp = await fetch("/v1/chat", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ message: question, session_id: sessionId, stream: true }),
    });
    if (!resp.ok || !resp.body) {
      let message = `HTTP ${resp.status}`;
      try { message = (await resp.json()).error.message; } catch (_) { /* keep status */ }
      throw new Error(message);
    }
    const reader = resp.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      buffer = parseSSE(buffer, (event, data) => {
        if (event === "meta") {
          meta = data;
          sessionId = data.session_id;
          sessionStorage.setItem("glossary-session", sessionId);
          if (!data.grounded) bot.classList.add("refusal");
          if (data.session_reset) bot.append(el("p", { class: "meta", text: "（会话已过期，已开始新对话 · session expired, started a new one）" }));
        } else if (event === "delta") {
          text += data.text;
          renderAnswer(text, textBox, msgId);
          scrollDown();
        } else if (event === "citations") {
          renderCitations(data.citations, bot, msgId, meta.lang);
        } else if (event === "done") {
          if (data.suggestions && data.suggestions.length && !meta.grounded) {
            // the text's own "nearest terms" line becomes links to the term view
            const lastLine = textBox.lastElementChild;
            if (lastLine && /^(相近的术语|Nearest terms)/.test(lastLine.textContent)) lastLine.remove();
            const p = el("p", {}, meta.lang === "zh" ? "相近的术语：" : "Nearest terms in the glossary: ");
            data.suggestions.forEach((s, i) => {
              const a = termLink(s, s);
              termLabel(s).then((t) => { if (t) a.textContent = t.labels.zh && meta.lang === "zh" ? t.labels.zh : (t.labels.en || t.labels.zh); });
              p.append(i ? "、" : "", a);
            });
            bot.append(p);
          }
          chips(data.follow_ups, bot);
          for (const w of data.warnings || []) bot.append(el("p", { class: "meta", text: `⚠ ${w}` }));
        }
      });
    }
  } catch (err) {
    textBox.append(el("p", { class: "error", text: `出错了 · error: ${err.message}` }));
  } finally {
    textBox.classList.remove("typing");
    bot.dataset.state = "done";
    sendButton.disabled = false;
    scrollDown();
    input.focus();
  }
}

form.addEventListener("submit", (ev) => { ev.preventDefault(); askInChat(input.value); });
$("#chat-new").addEventListener("click", () => {
  sessionId = null;
  sessionStorage.removeItem("glossary-session");
  messages.append(el("p", { class: "hint", text: "—— 新对话 · new conversation ——" }));
});
for (const chip of document.querySelectorAll(".intro .chip")) chip.addEventListener("click", () => askInChat(chip.textContent));

/* ---------------------------------------------------------------- routing */

function route() {
  const m = location.hash.match(/^#term\/(.+)$/);
  if (m) showTerm(decodeURIComponent(m[1]));
}
window.addEventListener("hashchange", route);
route();
