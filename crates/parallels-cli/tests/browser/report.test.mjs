// Loads a report parallels wrote in headless Chromium, checks what a reader
// would check, clicks, and saves screenshots. Run by tests/browser.rs:
//
//   node report.test.mjs align REPORT.html ALIGN.json SHOTS_DIR differ|same
//   node report.test.mjs scan REPORT_DIR SHOTS_DIR
//
// Exits non-zero with a message on the first failed check.
import fs from "node:fs";
import path from "node:path";
import { check, open } from "./page.mjs";

// Tabs follow the address (a hashchange event, handled after the click
// returns): wait until the view is shown.
async function shown(page, selector, what) {
  try {
    await page.locator(selector).first().waitFor({ state: "visible", timeout: 5000 });
  } catch (e) {
    throw new Error(`${what} is not shown`);
  }
}

const HIGHLIGHT = "rgb(255, 243, 191)"; // --hl in report.css

async function alignReport(html, json, shots, differences) {
  const out = JSON.parse(fs.readFileSync(json, "utf8"));
  const { browser, page, problems } = await open(html);
  check(await page.locator("#overview").isVisible(), "the overview is not shown first");
  check((await page.locator("table.docs tbody tr").count()) === out.documents.length, "one row per document");
  await page.screenshot({ path: path.join(shots, "align-overview.png"), fullPage: true });

  // Every link of every pair is a row of its pair view.
  for (const [k, pair] of out.pairs.entries()) {
    const expected = pair.passages.reduce((n, p) => n + Math.max(p.links ? p.links.length : 0, 1), 0);
    const got = await page.locator(`#pair-${k} tr.link`).count();
    check(got === expected, `pair ${pair.a}-${pair.b}: ${got} linked rows, expected ${expected}`);
  }

  // Open the first pair from its tab, click a sentence: it and its
  // counterpart are marked; clicking another moves the mark.
  await page.click('#tabs a[data-view="pair-0"]');
  await shown(page, "#pair-0", "the pair view");
  check(!(await page.locator("#overview").isVisible()), "the overview stayed visible");
  const rows = page.locator("#pair-0 tr.link");
  const first = rows.nth(1);
  await first.locator("td.a").click();
  check(await first.evaluate((r) => r.classList.contains("hl")), "the clicked row is not marked");
  const bg = await first.locator("td.b").evaluate((td) => getComputedStyle(td).backgroundColor);
  check(bg === HIGHLIGHT, `the counterpart is not highlighted (background ${bg})`);
  await page.screenshot({ path: path.join(shots, "align-pair.png") });
  await rows.nth(3).locator("td.b").click();
  check(await rows.nth(3).evaluate((r) => r.classList.contains("hl")), "the second click marked nothing");
  check(!(await first.evaluate((r) => r.classList.contains("hl"))), "the first mark stayed");
  // Differences are marked inside links (where the texts differ).
  const marked = await page.locator("#pair-0 tr.link span.sub, #pair-0 tr.link span.del, #pair-0 tr.link span.ins").count();
  check(differences === "differ" ? marked > 0 : marked === 0, `${marked} differences marked in the pair view`);

  // A passage link from the overview lands on its first row.
  await page.click('#tabs a[data-view="overview"]');
  await page.locator("table.passages a").first().click();
  const hash = await page.evaluate(() => location.hash);
  await shown(page, hash, `the passage the link ${hash} points to`);

  if (out.documents.length >= 3) {
    await page.click('#tabs a[data-view="collation"]');
    await shown(page, "#collation", "the collation view");
    const units = await page.locator("#collation tr.unit").count();
    check(units > 0, "the collation view has no rows");
    check((await page.locator("#collation thead th").count()) === out.documents.length, "one column per document");
    await page.screenshot({ path: path.join(shots, "align-collation.png") });
  }
  check(problems.length === 0, problems.join("\n"));
  await browser.close();
  return `align report: ${out.pairs.length} pair view(s) checked`;
}

// The numbers in one column of a ranked table, as shown.
async function column(page, view, k) {
  return page.locator(`#${view} table.ranked tbody tr:not(.members) > td:nth-child(${k + 1})`).evaluateAll(
    (cells) => cells.map((c) => (c.hasAttribute("data-sort") ? Number(c.getAttribute("data-sort")) : c.textContent)));
}
function sorted(v, dir) {
  return v.every((x, i) => i === 0 || (dir === "desc" ? v[i - 1] >= x : v[i - 1] <= x));
}
async function heading(page, view, title) {
  const th = page.locator(`#${view} table.ranked thead th`, { hasText: title }).first();
  const k = await th.evaluate((e) => Array.prototype.indexOf.call(e.parentNode.children, e));
  return { th, k };
}
async function setFilter(page, name, value) {
  const f = page.locator(`#filters [name="${name}"]`);
  if (name === "kind") await f.selectOption(value);
  else await f.fill(String(value));
  // Filters apply after a short pause in typing.
  await page.waitForTimeout(150);
}

async function scanReport(dir, shots) {
  const { browser, page, problems } = await open(path.join(dir, "index.html"));
  check(await page.locator("#overview").isVisible(), "the summary is not shown first");
  check(!(await page.locator("#filters").isVisible()), "the filters are shown with the summary");
  await page.screenshot({ path: path.join(shots, "scan-summary.png") });
  const data = await page.evaluate(() => JSON.parse(document.getElementById("scan-data").textContent));
  const rows = data.passages.map((r) => ({ a: r[0], b: r[1], kind: r[2] ? "parallel" : "verbatim",
    len: Math.min(r[4] - r[3], r[6] - r[5]), score: r[7], sig: r[8], cluster: r[9] }));
  check(rows.length > 0, "the page carries no passages");
  const pairKeys = new Set(rows.map((r) => `${r.a},${r.b}`));

  // Pairs: most significant first, every pair once, each with an excerpt
  // of both sides; sorting by a heading, both ways.
  await page.click('#tabs a[data-view="pairs"]');
  await shown(page, "#pairs table.ranked", "the pairs view");
  check(await page.locator("#filters").isVisible(), "no filters with the pairs");
  const sig = await heading(page, "pairs", "significance");
  let v = await column(page, "pairs", sig.k);
  check(v.length === Math.min(100, pairKeys.size), `${v.length} pair rows for ${pairKeys.size} pairs`);
  check(sorted(v, "desc"), `pairs not ranked by significance: ${v}`);
  const sides = await page.locator("#pairs tbody tr").first().locator("td.excerpt .side").allTextContents();
  check(sides.length === 2 && sides.every((t) => t.length > 0), `the first pair's excerpt: ${sides}`);
  await sig.th.click();
  v = await column(page, "pairs", sig.k);
  check(sorted(v, "asc"), `pairs not sorted by significance, ascending: ${v}`);
  if (pairKeys.size > 100) {
    // The next page continues the ranking where the first ends.
    await sig.th.click();
    const first = await column(page, "pairs", sig.k);
    check(sorted(first, "desc"), `not ranked again by significance: ${first}`);
    await page.locator("#pairs .pager button", { hasText: "next" }).click();
    const next = await column(page, "pairs", sig.k);
    check(next.length === Math.min(100, pairKeys.size - 100), `${next.length} rows on the second page`);
    check(sorted(next, "desc") && next[0] <= first[first.length - 1], `page 2 does not continue page 1: ${next}`);
    const said = await page.locator("#pairs .pager").textContent();
    check(said.includes(`rows 101–${100 + next.length} of ${pairKeys.size}`), `the pager says "${said}"`);
  }
  const len = await heading(page, "pairs", "length");
  await len.th.click();
  v = await column(page, "pairs", len.k);
  check(sorted(v, "desc") && v.length > 0, `pairs not sorted by length: ${v}`);
  await page.screenshot({ path: path.join(shots, "scan-pairs.png") });

  // Passages: the filters keep exactly the passages they describe.
  await page.click('#tabs a[data-view="passages"]');
  await shown(page, "#passages table.ranked", "the passages view");
  const count = async () => (await column(page, "passages", 0)).length;
  check(await count() === Math.min(100, rows.length), "one row per passage");
  const expect = async (what, keepIt) => {
    const want = rows.filter(keepIt).length;
    const said = await page.locator("#filters .count").textContent();
    check(said.startsWith(`${want} of ${rows.length} passages`), `${what}: the count says "${said}", expected ${want}`);
    check(await count() === Math.min(100, want), `${what}: ${await count()} rows, expected ${want}`);
  };
  const kindCol = (await heading(page, "passages", "kind")).k;
  for (const kind of ["verbatim", "parallel"]) {
    await setFilter(page, "kind", kind);
    await expect(`kind ${kind}`, (r) => r.kind === kind);
    const kinds = await column(page, "passages", kindCol);
    check(kinds.every((t) => t === kind) || (kinds.length === 1 && /Nothing/.test(kinds[0])), `kind ${kind}: ${kinds}`);
  }
  await setFilter(page, "kind", "");
  const lengths = rows.map((r) => r.len).sort((x, y) => x - y);
  const median = lengths[Math.floor(lengths.length / 2)];
  await setFilter(page, "minlen", median);
  await expect(`length ≥ ${median}`, (r) => r.len >= median);
  const lenCol = (await heading(page, "passages", "length")).k;
  check((await column(page, "passages", lenCol)).every((x) => x >= median), "a passage shorter than the filter");
  await setFilter(page, "maxlen", median);
  await expect(`length = ${median}`, (r) => r.len === median);
  await page.click('#filters [name="clear"]');
  await expect("no filter", () => true);
  const scores = rows.map((r) => r.score).sort((x, y) => x - y);
  const mid = scores[Math.floor(scores.length / 2)];
  await setFilter(page, "score", mid);
  await expect(`score ≥ ${mid}`, (r) => r.score >= mid);
  await page.click('#filters [name="clear"]');
  const sigs = rows.map((r) => r.sig).sort((x, y) => x - y);
  const sigMid = sigs[Math.floor(sigs.length / 2)];
  await setFilter(page, "significance", sigMid);
  await expect(`significance ≥ ${sigMid}`, (r) => r.sig >= sigMid);
  await page.click('#filters [name="clear"]');
  // A cluster number filters by that cluster (the group).
  const button = page.locator("#passages tbody button.cl").last();
  const cluster = Number(await button.getAttribute("data-cluster"));
  await button.click();
  check(Number(await page.locator('#filters [name="cluster"]').inputValue()) === cluster, "the cluster filter is not set");
  await expect(`cluster ${cluster}`, (r) => r.cluster === cluster);
  await page.screenshot({ path: path.join(shots, "scan-passages-filtered.png") });
  await page.click('#filters [name="clear"]');

  // Clusters: most significant first; a click shows the places.
  await page.click('#tabs a[data-view="clusters"]');
  await shown(page, "#clusters table.ranked", "the clusters view");
  const csig = await heading(page, "clusters", "significance");
  v = await column(page, "clusters", csig.k);
  check(v.length > 0 && sorted(v, "desc"), `clusters not ranked by significance: ${v}`);
  await page.locator("#clusters tr.cluster-row td.excerpt").first().click();
  check(await page.locator("#clusters tr.members td.id").count() > 0, "a click on a cluster shows no places");
  await page.screenshot({ path: path.join(shots, "scan-clusters.png") });

  // The graph: one disc per cluster, a label on hover, a click on a
  // document opens its pair page.
  await page.click('#tabs a[data-view="graph"]');
  await shown(page, "#graph svg.graph", "the graph");
  check((await page.locator("#graph .edge").count()) > 0, "the graph has no edges");
  // The filters grey the pairs they leave out.
  const edges = await page.locator("#graph .edge").count();
  check(await page.locator("#graph .edge.dim").count() === 0, "edges greyed without a filter");
  await setFilter(page, "significance", Math.max(...sigs) + 1);
  check(await page.locator("#graph .edge.dim").count() === edges, "a filter that keeps nothing greys no edge");
  const strongest = rows.reduce((x, r) => (r.sig > x.sig ? r : x), rows[0]);
  await setFilter(page, "cluster", strongest.cluster);
  await setFilter(page, "significance", "");
  const kept = await page.locator("#graph .edge:not(.dim)").evaluateAll(
    (es) => es.map((e) => [e.getAttribute("data-a"), e.getAttribute("data-b")]));
  const inCluster = new Set(rows.filter((r) => r.cluster === strongest.cluster).map((r) => `${data.docs[r.a]},${data.docs[r.b]}`));
  check(kept.length > 0 && kept.every(([a, b]) => inCluster.has(`${a},${b}`)), `edges kept by cluster ${strongest.cluster}: ${kept}`);
  await page.click('#filters [name="clear"]');
  const node = page.locator("#graph a.node").first();
  const label = node.locator("text");
  check(!(await label.isVisible()), "a label is shown before hovering");
  await node.locator("circle").hover();
  check(await label.isVisible(), "hovering a document shows no label");
  check((await label.textContent()) === (await node.getAttribute("data-doc")), "the label is not the document's id");
  await page.screenshot({ path: path.join(shots, "scan-graph.png") });
  const href = await node.getAttribute("href");
  check(/^pairs\/\d{4,}\.html$/.test(href), `a document links to ${href}`);
  await node.locator("circle").click();
  await page.waitForURL((u) => u.href.endsWith(href));
  await shown(page, "tr.link", "the pair page opened from the graph");
  await page.goBack();
  await page.waitForURL(/index\.html/);

  // Sorting the documents by share, both ways.
  await page.click('#tabs a[data-view="documents"]');
  await shown(page, "#documents", "the documents view");
  const shares = async () => page.locator("#documents tbody tr td:nth-child(5)").evaluateAll(
    (cells) => cells.map((c) => Number(c.getAttribute("data-sort"))));
  const share = page.locator("#documents thead th").nth(4);
  await share.click();
  v = await shares();
  check(v.length > 0, "no documents listed");
  check(sorted(v, "desc"), `not sorted by share, descending: ${v}`);
  await share.click();
  v = await shares();
  check(sorted(v, "asc"), `not sorted by share, ascending: ${v}`);

  // A passage's link lands on its first row in the pair page, which marks
  // counterparts as the align report does.
  await page.click('#tabs a[data-view="passages"]');
  await shown(page, "#passages table.ranked", "the passages view");
  const link = page.locator("#passages td.pair a").first();
  check((await link.count()) === 1, "no pair page linked");
  const target = await link.getAttribute("href");
  await link.click();
  await page.waitForURL(/pairs\/\d+\.html#pair-\d+-p\d+$/);
  await shown(page, "#" + target.split("#")[1], `the passage ${target}`);
  const row = page.locator("tr.link").first();
  await row.locator("td.a").click();
  const bg = await row.locator("td.b").evaluate((td) => getComputedStyle(td).backgroundColor);
  check(bg === HIGHLIGHT, `the counterpart is not highlighted on the pair page (background ${bg})`);
  await page.screenshot({ path: path.join(shots, "scan-pair.png") });
  check(problems.length === 0, problems.join("\n"));
  await browser.close();
  return `scan report checked: ${rows.length} passages, ${pairKeys.size} pairs`;
}

const [mode, ...args] = process.argv.slice(2);
try {
  const said = mode === "align" ? await alignReport(...args) : await scanReport(...args);
  console.log(said);
} catch (e) {
  console.error(String(e && e.stack ? e.stack : e));
  process.exit(1);
}
