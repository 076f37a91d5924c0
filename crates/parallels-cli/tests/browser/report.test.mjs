// Loads a report parallels wrote in headless Chromium, checks what a reader
// would check, clicks, and saves screenshots. Run by tests/browser.rs:
//
//   node report.test.mjs align REPORT.html ALIGN.json SHOTS_DIR differ|same
//   node report.test.mjs scan REPORT_DIR SHOTS_DIR
//
// Exits non-zero with a message on the first failed check.
import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";

function check(ok, message) {
  if (!ok) throw new Error(message);
}

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

async function open(file) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--disable-quic"],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(`script error: ${e}`));
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("dialog", (d) => { problems.push(`a dialog opened: ${d.message()}`); d.dismiss(); });
  // The report must need nothing but its own file(s).
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:")) return route.continue();
    problems.push(`network request: ${url}`);
    return route.abort();
  });
  await page.goto("file://" + path.resolve(file));
  return { browser, page, problems };
}

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

async function scanReport(dir, shots) {
  const { browser, page, problems } = await open(path.join(dir, "index.html"));
  check(await page.locator("#overview").isVisible(), "the summary is not shown first");
  await page.screenshot({ path: path.join(shots, "scan-summary.png") });
  // Sorting the documents by share, both ways.
  await page.click('#tabs a[data-view="documents"]');
  await shown(page, "#documents", "the documents view");
  const shares = async () => page.locator("#documents tbody tr td:nth-child(5)").evaluateAll(
    (cells) => cells.map((c) => Number(c.getAttribute("data-sort"))));
  const heading = page.locator("#documents thead th").nth(4);
  await heading.click();
  let v = await shares();
  check(v.length > 0, "no documents listed");
  check(v.every((x, i) => i === 0 || v[i - 1] >= x), `not sorted by share, descending: ${v}`);
  await heading.click();
  v = await shares();
  check(v.every((x, i) => i === 0 || v[i - 1] <= x), `not sorted by share, ascending: ${v}`);
  await page.click('#tabs a[data-view="clusters"]');
  await shown(page, "#clusters", "the clusters view");
  check((await page.locator("#clusters .cluster").count()) > 0, "no clusters listed");
  await page.screenshot({ path: path.join(shots, "scan-clusters.png") });
  await page.click('#tabs a[data-view="graph"]');
  await shown(page, "#graph", "the graph");
  check((await page.locator("#graph svg line").count()) > 0, "the graph has no edges");
  await page.screenshot({ path: path.join(shots, "scan-graph.png") });
  // The first pair page opens and marks counterparts as the align report does.
  await page.click('#tabs a[data-view="pairs"]');
  await shown(page, "#pairs", "the pair list");
  const link = page.locator("#pairs a").first();
  check((await link.count()) === 1, "no pair page linked");
  await link.click();
  await page.waitForURL(/pairs\/\d+\.html/);
  await shown(page, "tr.link", "the pair page");
  const row = page.locator("tr.link").first();
  await row.locator("td.a").click();
  const bg = await row.locator("td.b").evaluate((td) => getComputedStyle(td).backgroundColor);
  check(bg === HIGHLIGHT, `the counterpart is not highlighted on the pair page (background ${bg})`);
  await page.screenshot({ path: path.join(shots, "scan-pair.png") });
  check(problems.length === 0, problems.join("\n"));
  await browser.close();
  return "scan report checked";
}

const [mode, ...args] = process.argv.slice(2);
try {
  const said = mode === "align" ? await alignReport(...args) : await scanReport(...args);
  console.log(said);
} catch (e) {
  console.error(String(e && e.stack ? e.stack : e));
  process.exit(1);
}
