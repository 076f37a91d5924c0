// The pages of `parallels serve`. Every text from the index or the user is
// put in with textContent, never as markup.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function status(msg, error) {
  const s = $("status");
  if (!s) return;
  s.textContent = msg;
  s.className = error ? "error" : "";
}

async function api(url, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  };
  const r = await fetch(url, init);
  if (!r.ok) {
    let msg = r.status + " " + r.statusText;
    try { msg = (await r.json()).error || msg; } catch (_) { /* not JSON */ }
    throw new Error(msg);
  }
  return r;
}

// Code points [s, e) of text (spans count code points).
function slice(text, span, max) {
  const chars = Array.from(text).slice(span[0], span[1]);
  return chars.length > max ? chars.slice(0, max).join("") + "…" : chars.join("");
}

function showHits(answer, text, onOpen) {
  const list = $("hits");
  list.replaceChildren();
  answer.hits.forEach((h, k) => {
    const li = el("li");
    li.className = "hit";
    const open = el("button", "Open", "open");
    open.type = "button";
    open.dataset.doc = h.doc;
    open.addEventListener("click", () => onOpen(h));
    li.append(open, " ");
    const link = el("a", h.id);
    link.href = "/documents/" + h.doc;
    li.append(link, el("span", ` — ${h.passages} passage(s), ${h.chars} characters, significance ${h.significance.toFixed(0)}`, "muted"));
    // The pairs of the output are the hits, in the same order.
    const pair = answer.align.pairs[k];
    if (h.across) {
      // A document in another language: both sides of its passages.
      li.append(el("span", ` translation (${h.language || "another language"})`, "muted"));
      for (const x of h.excerpts) {
        li.append(el("span", `text: ${x.a}`, "excerpt"), el("span", `${h.id}: ${x.b}`, "excerpt"));
      }
    } else if (pair) {
      for (const p of pair.passages.slice(0, 3)) {
        li.append(el("span", `${p.kind} ${p.a[0]}–${p.a[1]}: ${slice(text, p.a, 80)}`, "excerpt"));
      }
    }
    list.append(li);
  });
  if (answer.hits.length === 0) list.append(el("li", "No library document shares a passage with this text."));
}

// The pair's report loads in the frame from a form posted to /pair (not
// from its source: a report's own links, "#pair-0", must resolve inside it).
function openPair(body, title) {
  const form = el("form");
  form.method = "post";
  form.action = "/pair";
  form.target = "pair";
  form.hidden = true;
  for (const [name, value] of Object.entries(body)) {
    const input = el("textarea");
    input.name = name;
    input.value = String(value);
    form.append(input);
  }
  document.body.append(form);
  $("pair-title").textContent = title;
  $("pair-view").hidden = false;
  form.submit();
  form.remove();
  $("pair-view").scrollIntoView();
}

async function search() {
  const text = $("text").value;
  if (!text.trim()) { status("Paste a text or choose a file first.", true); return; }
  status("Searching…");
  try {
    const t0 = performance.now();
    const answer = await (await api("/api/query", { text })).json();
    $("results").hidden = false;
    showHits(answer, text, (h) => openPair({ text, doc: h.doc }, "The text and " + h.id));
    status(`${answer.hits.length} document(s) in ${Math.round(performance.now() - t0)} ms`);
  } catch (e) {
    status(e.message, true);
  }
}

let offset = 0;
const PAGE = 50;

async function listDocs() {
  try {
    const r = await (await api(`/api/documents?offset=${offset}&limit=${PAGE}`)).json();
    const ul = $("docs");
    ul.replaceChildren();
    for (const d of r.documents) {
      const li = el("li");
      const a = el("a", d.id);
      a.href = "/documents/" + d.doc;
      li.append(a, el("span", ` ${d.chars} characters · ${d.source}`, "muted"));
      ul.append(li);
    }
    $("range").textContent = r.total ? `${offset + 1}–${offset + r.documents.length} of ${r.total}` : "empty";
    $("prev").disabled = offset === 0;
    $("next").disabled = offset + PAGE >= r.total;
  } catch (e) {
    status(e.message, true);
  }
}

async function info() {
  try {
    const i = await (await api("/api/info")).json();
    $("info").textContent = `${i.documents} documents, ${i.chars} characters`;
  } catch (_) { /* the page works without it */ }
}

async function searchPage() {
  $("search").addEventListener("click", search);
  $("file").addEventListener("change", async () => {
    const f = $("file").files[0];
    if (!f) return;
    $("text").value = await f.text();
    search();
  });
  $("prev").addEventListener("click", () => { offset = Math.max(0, offset - PAGE); listDocs(); });
  $("next").addEventListener("click", () => { offset += PAGE; listDocs(); });
  info();
  listDocs();
}

async function documentPage() {
  info();
  const n = location.pathname.split("/").pop();
  try {
    const d = await (await api("/api/documents/" + n)).json();
    document.title = "parallels — " + d.id;
    $("doc-title").textContent = d.id;
    $("doc-source").textContent = `${d.source} · ${d.chars} characters · ${d.encoding}`;
    $("doc-text").textContent = d.text;
    status("Looking for its passages…");
    const answer = await (await api("/api/passages?doc=" + n)).json();
    showHits(answer, d.text, (h) => { location.href = `/pair?a=${n}&b=${h.doc}`; });
    status("");
  } catch (e) {
    status(e.message, true);
  }
}

if (document.body.dataset.page === "document") documentPage(); else searchPage();
