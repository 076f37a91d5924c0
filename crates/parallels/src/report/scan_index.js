// The scan report's pairs, passages and clusters: filtered, aggregated,
// sorted and paged in the page from the data it carries (#scan-data). Only
// one page of rows is ever in the document, so thousands of passages stay
// fast. Every text is set as text, never as markup.
(function () {
  "use strict";
  var doc = document;
  var source = doc.getElementById("scan-data");
  if (!source) return;
  var data = JSON.parse(source.textContent);
  var docs = data.docs;
  var PER_PAGE = 100;
  // A passage row: [a, b, kind, a start, a end, b start, b end, score,
  // significance, cluster, excerpt a, excerpt b, pair page, index there].
  var KINDS = ["verbatim", "parallel"];
  var passages = data.passages.map(function (r, i) {
    return {
      i: i, a: r[0], b: r[1], kind: KINDS[r[2]], as: r[3], ae: r[4], bs: r[5], be: r[6],
      len: Math.min(r[4] - r[3], r[6] - r[5]), score: r[7], sig: r[8], cluster: r[9],
      exa: r[10], exb: r[11], page: r[12], within: r[13]
    };
  });
  var clusterInfo = {};
  data.clusters.forEach(function (c, i) { c.rank = i; clusterInfo[c.id] = c; });

  function el(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function pagePath(k) { return "pairs/" + ("000" + k).slice(-Math.max(4, String(k).length)) + ".html"; }
  function fixed(x, d) { return Number(x).toFixed(d); }

  // ---- filters ------------------------------------------------------------
  var form = doc.getElementById("filters");
  var field = {};
  Array.prototype.forEach.call(form.querySelectorAll("[name]"), function (f) { field[f.name] = f; });
  function number(name) {
    var v = field[name].value.trim();
    return v === "" || isNaN(Number(v)) ? null : Number(v);
  }
  function keep() {
    var kind = field.kind.value, minlen = number("minlen"), maxlen = number("maxlen");
    var cluster = number("cluster"), score = number("score"), sig = number("significance");
    return passages.filter(function (p) {
      return (!kind || p.kind === kind) && (minlen === null || p.len >= minlen) &&
        (maxlen === null || p.len <= maxlen) && (cluster === null || p.cluster === cluster) &&
        (score === null || p.score >= score) && (sig === null || p.sig >= sig);
    });
  }

  // ---- aggregation ----------------------------------------------------------
  function covered(spans) {
    spans.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
    var total = 0, end = 0;
    spans.forEach(function (s) {
      var lo = Math.max(s[0], end);
      if (s[1] > lo) total += s[1] - lo;
      end = Math.max(end, s[1]);
    });
    return total;
  }
  function kinds(set) { return set.verbatim && set.parallel ? "both" : set.verbatim ? "verbatim" : "parallel"; }
  function pairsOf(kept) {
    var by = new Map();
    kept.forEach(function (p) {
      var key = p.a * docs.length + p.b;
      var g = by.get(key);
      if (!g) {
        g = { a: p.a, b: p.b, n: 0, sig: 0, score: 0, spans: [], bspans: [], kinds: {}, clusters: [], best: p, page: -1, i: p.i };
        by.set(key, g);
      }
      g.n += 1;
      g.sig += p.sig;
      g.score = Math.max(g.score, p.score);
      g.spans.push([p.as, p.ae]);
      g.bspans.push([p.bs, p.be]);
      g.kinds[p.kind] = true;
      if (g.clusters.indexOf(p.cluster) < 0) g.clusters.push(p.cluster);
      if (p.sig > g.best.sig) g.best = p;
      if (p.page >= 0) g.page = p.page;
    });
    var out = [];
    by.forEach(function (g) {
      g.len = Math.min(covered(g.spans), covered(g.bspans));
      g.kind = kinds(g.kinds);
      out.push(g);
    });
    return out;
  }
  function clustersOf(kept) {
    var by = new Map();
    kept.forEach(function (p) {
      var g = by.get(p.cluster);
      if (!g) {
        var info = clusterInfo[p.cluster];
        g = { id: p.cluster, size: info ? info.size : null, n: 0, sig: 0, score: 0, docs: new Set(), kinds: {},
              best: p, info: info, i: info ? info.rank : data.clusters.length + p.i };
        by.set(p.cluster, g);
      }
      g.n += 1;
      g.sig += p.sig;
      g.score = Math.max(g.score, p.score);
      g.docs.add(p.a);
      g.docs.add(p.b);
      g.kinds[p.kind] = true;
      if (p.sig > g.best.sig) g.best = p;
    });
    var out = [];
    by.forEach(function (g) {
      g.ndocs = g.docs.size;
      g.kind = kinds(g.kinds);
      if (g.size === null) g.size = g.ndocs;
      out.push(g);
    });
    return out;
  }

  // ---- cells ------------------------------------------------------------------
  function names(p) { return docs[p.a] + " ↔ " + docs[p.b]; }
  function pairCell(p, href) {
    var td = el("td", "pair");
    if (href) {
      var a = el("a", null, names(p));
      a.href = href;
      td.appendChild(a);
    } else {
      td.appendChild(doc.createTextNode(names(p) + " "));
      td.appendChild(el("span", "summary", "(no page)"));
    }
    return td;
  }
  function excerptCell(p) {
    var td = el("td", "excerpt");
    td.appendChild(el("div", "side", p.exa || "…"));
    td.appendChild(el("div", "side", p.exb || "…"));
    return td;
  }
  function clusterButton(id) {
    var b = el("button", "cl", id);
    b.type = "button";
    b.setAttribute("data-cluster", id);
    b.title = "only cluster " + id;
    return b;
  }
  function num(x, text) { var td = el("td", "num", text === undefined ? x : text); td.setAttribute("data-sort", x); return td; }

  var tables = {
    pairs: {
      columns: [
        { title: "documents", key: function (g) { return names(g); }, text: true },
        { title: "significance", key: function (g) { return g.sig; } },
        { title: "passages", key: function (g) { return g.n; } },
        { title: "length", key: function (g) { return g.len; } },
        { title: "score", key: function (g) { return g.score; } },
        { title: "kind", key: function (g) { return g.kind; }, text: true },
        { title: "clusters", key: function (g) { return g.clusters[0]; } },
        { title: "excerpt (most significant passage, both sides)", key: null }
      ],
      sort: 1, dir: -1,
      rows: function (kept) { return pairsOf(kept); },
      row: function (g) {
        var tr = el("tr");
        tr.appendChild(pairCell(g, g.page >= 0 ? pagePath(g.page) : null));
        tr.appendChild(num(g.sig, fixed(g.sig, 1)));
        tr.appendChild(num(g.n));
        tr.appendChild(num(g.len));
        tr.appendChild(num(g.score, fixed(g.score, 2)));
        tr.appendChild(el("td", "kind " + g.kind, g.kind));
        var td = el("td", "clusters");
        g.clusters.slice(0, 3).forEach(function (c) { td.appendChild(clusterButton(c)); });
        if (g.clusters.length > 3) td.appendChild(el("span", "summary", "+" + (g.clusters.length - 3)));
        tr.appendChild(td);
        tr.appendChild(excerptCell(g.best));
        return tr;
      }
    },
    passages: {
      columns: [
        { title: "documents", key: function (p) { return names(p); }, text: true },
        { title: "significance", key: function (p) { return p.sig; } },
        { title: "length", key: function (p) { return p.len; } },
        { title: "score", key: function (p) { return p.score; } },
        { title: "kind", key: function (p) { return p.kind; }, text: true },
        { title: "cluster", key: function (p) { return p.cluster; } },
        { title: "spans", key: function (p) { return p.as; } },
        { title: "excerpt (both sides)", key: null }
      ],
      sort: 1, dir: -1,
      rows: function (kept) { return kept.slice(); },
      row: function (p) {
        var tr = el("tr");
        tr.appendChild(pairCell(p, p.page >= 0 ? pagePath(p.page) + "#pair-" + p.page + "-p" + p.within : null));
        tr.appendChild(num(p.sig, fixed(p.sig, 1)));
        tr.appendChild(num(p.len));
        tr.appendChild(num(p.score, fixed(p.score, 2)));
        tr.appendChild(el("td", "kind " + p.kind, p.kind));
        var td = el("td", "clusters");
        td.appendChild(clusterButton(p.cluster));
        tr.appendChild(td);
        tr.appendChild(el("td", "num path", p.as + "–" + p.ae + " / " + p.bs + "–" + p.be));
        tr.appendChild(excerptCell(p));
        return tr;
      }
    },
    clusters: {
      columns: [
        { title: "cluster", key: function (g) { return g.id; } },
        { title: "significance", key: function (g) { return g.sig; } },
        { title: "places", key: function (g) { return g.size; } },
        { title: "documents", key: function (g) { return g.ndocs; } },
        { title: "passages", key: function (g) { return g.n; } },
        { title: "score", key: function (g) { return g.score; } },
        { title: "kind", key: function (g) { return g.kind; }, text: true },
        { title: "excerpt (click for the places)", key: null }
      ],
      sort: 1, dir: -1,
      rows: function (kept) { return clustersOf(kept); },
      row: function (g) {
        var tr = el("tr", "cluster-row");
        var td = el("td", "num");
        td.appendChild(clusterButton(g.id));
        td.setAttribute("data-sort", g.id);
        tr.appendChild(td);
        tr.appendChild(num(g.sig, fixed(g.sig, 1)));
        tr.appendChild(num(g.size));
        tr.appendChild(num(g.ndocs));
        tr.appendChild(num(g.n));
        tr.appendChild(num(g.score, fixed(g.score, 2)));
        tr.appendChild(el("td", "kind " + g.kind, g.kind));
        var ex = el("td", "excerpt");
        ex.appendChild(el("div", "side", g.info ? g.info.excerpt : g.best.exa));
        tr.appendChild(ex);
        tr.setAttribute("data-id", g.id);
        return tr;
      }
    }
  };

  // ---- tables -------------------------------------------------------------------
  var kept = passages;
  Object.keys(tables).forEach(function (name) {
    var t = tables[name];
    var box = doc.querySelector('[data-table="' + name + '"]');
    t.box = box;
    t.page = 0;
    t.table = el("table", "ranked " + name);
    var head = el("tr");
    t.columns.forEach(function (c, k) {
      var th = el("th", c.text || !c.key ? null : "num", c.title);
      if (c.key) {
        th.classList.add("sorts");
        th.tabIndex = 0;
        th.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); th.click(); }
        });
        th.addEventListener("click", function () {
          if (t.sort === k) t.dir = -t.dir;
          else { t.sort = k; t.dir = c.text ? 1 : -1; }
          t.page = 0;
          order(t);
          draw(t);
        });
      }
      head.appendChild(th);
    });
    var thead = el("thead");
    thead.appendChild(head);
    t.table.appendChild(thead);
    t.body = el("tbody");
    t.table.appendChild(t.body);
    t.pager = el("div", "pager");
    box.appendChild(t.table);
    box.appendChild(t.pager);
  });

  function order(t) {
    var key = t.columns[t.sort].key, dir = t.dir, text = t.columns[t.sort].text;
    var keyed = t.all.map(function (r) { return [key(r), r]; });
    keyed.sort(function (x, y) {
      var c = text ? String(x[0]).localeCompare(String(y[0])) : x[0] - y[0];
      return dir * c || x[1].i - y[1].i;
    });
    t.all = keyed.map(function (x) { return x[1]; });
  }

  function draw(t) {
    var heads = t.table.tHead.rows[0].cells;
    for (var k = 0; k < heads.length; k++) {
      if (k === t.sort) {
        heads[k].setAttribute("data-dir", t.dir < 0 ? "desc" : "asc");
        heads[k].setAttribute("aria-sort", t.dir < 0 ? "descending" : "ascending");
      } else {
        heads[k].removeAttribute("data-dir");
        heads[k].removeAttribute("aria-sort");
      }
    }
    var pages = Math.max(1, Math.ceil(t.all.length / PER_PAGE));
    t.page = Math.min(t.page, pages - 1);
    var frag = doc.createDocumentFragment();
    t.all.slice(t.page * PER_PAGE, (t.page + 1) * PER_PAGE).forEach(function (r) { frag.appendChild(t.row(r)); });
    if (!t.all.length) {
      var tr = el("tr"), td = el("td", "summary", "Nothing left by the filters.");
      td.colSpan = t.columns.length;
      tr.appendChild(td);
      frag.appendChild(tr);
    }
    t.body.textContent = "";
    t.body.appendChild(frag);
    t.pager.textContent = "";
    var from = t.all.length ? t.page * PER_PAGE + 1 : 0, to = Math.min(t.all.length, (t.page + 1) * PER_PAGE);
    t.pager.appendChild(el("span", "summary", "rows " + from + "–" + to + " of " + t.all.length + " "));
    if (pages > 1) {
      [["« first", 0], ["‹ previous", t.page - 1], ["next ›", t.page + 1], ["last »", pages - 1]].forEach(function (b) {
        var button = el("button", null, b[0]);
        button.type = "button";
        button.disabled = b[1] < 0 || b[1] >= pages || b[1] === t.page;
        button.addEventListener("click", function () { t.page = b[1]; draw(t); t.box.scrollIntoView({ block: "start" }); });
        t.pager.appendChild(button);
      });
      t.pager.appendChild(el("span", "summary", " page " + (t.page + 1) + " of " + pages));
    }
  }

  var count = form.querySelector(".count");
  var edges = doc.querySelectorAll("#graph .edge[data-a]"), nodes = doc.querySelectorAll("#graph .node[data-doc]");
  function refresh() {
    kept = keep();
    Object.keys(tables).forEach(function (name) {
      var t = tables[name];
      t.all = t.rows(kept);
      t.page = 0;
      order(t);
      draw(t);
    });
    // The graph greys the pairs (and documents) the filters leave out.
    var pairs = new Set(), ends = new Set();
    tables.pairs.all.forEach(function (g) { pairs.add(docs[g.a] + "\n" + docs[g.b]); ends.add(docs[g.a]); ends.add(docs[g.b]); });
    Array.prototype.forEach.call(edges, function (e) {
      e.classList.toggle("dim", !pairs.has(e.getAttribute("data-a") + "\n" + e.getAttribute("data-b")));
    });
    Array.prototype.forEach.call(nodes, function (n) { n.classList.toggle("dim", !ends.has(n.getAttribute("data-doc"))); });
    count.textContent = kept.length + " of " + passages.length + " passages, " + tables.pairs.all.length +
      " pair(s), " + tables.clusters.all.length + " cluster(s)";
  }
  var pending = null;
  function later() {
    if (pending) clearTimeout(pending);
    pending = setTimeout(function () { pending = null; refresh(); }, 60);
  }
  form.addEventListener("input", later);
  form.addEventListener("change", later);
  field.clear.addEventListener("click", function () {
    Object.keys(field).forEach(function (k) { if (k !== "clear") field[k].value = ""; });
    refresh();
  });

  // A cluster number filters by it; a cluster row opens its places.
  doc.addEventListener("click", function (e) {
    var b = e.target.closest("button.cl");
    if (b) {
      field.cluster.value = b.getAttribute("data-cluster");
      refresh();
      return;
    }
    var row = e.target.closest("tr.cluster-row");
    if (!row || e.target.closest("a")) return;
    var next = row.nextElementSibling;
    if (next && next.classList.contains("members")) { next.remove(); return; }
    var info = clusterInfo[row.getAttribute("data-id")];
    var tr = el("tr", "members"), td = el("td");
    td.colSpan = tables.clusters.columns.length;
    if (!info) {
      td.appendChild(el("span", "summary", "Places not listed here (see clusters.jsonl)."));
    } else {
      var table = el("table");
      info.members.forEach(function (m) {
        var r = el("tr");
        r.appendChild(el("td", "id", docs[m[0]]));
        r.appendChild(el("td", "num", m[1] + "–" + m[2]));
        r.appendChild(el("td", "excerpt", m[3]));
        table.appendChild(r);
      });
      td.appendChild(table);
      if (info.more) td.appendChild(el("p", "summary", "… and " + info.more + " more (clusters.jsonl)"));
    }
    tr.appendChild(td);
    row.parentNode.insertBefore(tr, next);
  });

  // The filters are shown with the views they act on.
  var filtered = ["pairs", "passages", "clusters", "graph"];
  function place() {
    var hash = decodeURIComponent(location.hash.slice(1));
    form.hidden = filtered.indexOf(hash) < 0;
    if (!form.hidden) {
      var view = doc.getElementById(hash);
      view.insertBefore(form, view.querySelector(".table, svg.graph"));
    }
  }
  window.addEventListener("hashchange", place);
  place();
  refresh();
})();
