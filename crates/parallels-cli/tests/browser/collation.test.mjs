// The "All versions" view of an align report in headless Chromium: every
// sentence of every version is in the page, a version can be hidden and its
// column moved without changing any row, and a transposed row leads to the
// place where the version has the material. Run by tests/browser.rs:
//
//   node collation.test.mjs REPORT.html COLLATION.json SHOTS_DIR
//
// Exits non-zero with a message on the first failed check.
import fs from "node:fs";
import path from "node:path";
import { check, open } from "./page.mjs";

async function main(html, json, shots) {
  const out = JSON.parse(fs.readFileSync(json, "utf8"));
  check(out.schema === "parallels.collation/1", "not a collation");
  const { browser, page, problems } = await open(html, 1500, 1000);
  await page.click('#tabs a[data-view="collation"]');
  await page.locator("#collation").waitFor({ state: "visible", timeout: 5000 });
  const n = out.witnesses.length;
  check((await page.locator("#collation thead th").count()) === n, "one column per version");
  check((await page.locator("#collation tbody tr").count()) === out.rows.length, "one table row per collation row");

  // Every sentence of every version: each version's cells, in page order,
  // hold its text cells of the collation, in order, and nothing else.
  for (let w = 0; w < n; w++) {
    const want = out.rows.map((r) => r.cells[w]).filter((c) => c && c.text !== undefined).map((c) => c.text);
    const got = await page.locator(`#collation td.text[data-wit="${w}"]`).evaluateAll((tds) =>
      tds.map((td) => Array.from(td.children).filter((e) => e.tagName === "SPAN").map((e) => e.textContent).join("")));
    check(got.length === want.length, `${out.witnesses[w].id}: ${got.length} cells in the page, ${want.length} in the collation`);
    for (let k = 0; k < want.length; k++) {
      check(got[k] === want[k], `${out.witnesses[w].id}: cell ${k} differs:\n${got[k]}\n${want[k]}`);
    }
  }
  await page.screenshot({ path: path.join(shots, "collation-top.png") });

  // Hide the first version: its header and cells go, the others stay.
  const visibleHeads = async () => page.locator("#collation thead th").evaluateAll((ths) =>
    ths.filter((th) => getComputedStyle(th).display !== "none").map((th) => th.textContent.trim()));
  await page.locator('#collation .wit-controls input[data-wit="0"]').uncheck();
  let heads = await visibleHeads();
  check(heads.length === n - 1 && !heads.includes(out.witnesses[0].id), `after hiding ${out.witnesses[0].id}: ${heads}`);
  const shownCells = await page.locator('#collation tbody td[data-wit="0"]').evaluateAll((tds) =>
    tds.filter((td) => getComputedStyle(td).display !== "none").length);
  check(shownCells === 0, `${shownCells} cells of the hidden version still shown`);
  // Rows where only the hidden version has text are left out, the others stay.
  const only = out.rows.findIndex((r) => r.cells[0] && r.cells[0].text !== undefined &&
    r.cells.slice(1).every((c) => !c || (c.text === undefined && !c.continued)));
  if (only >= 0) {
    const row = page.locator(`#c${only + 1}`);
    check(!(await row.isVisible()), `row ${only + 1} (only ${out.witnesses[0].id}) still shown`);
  }
  check(await page.locator("#c1").isVisible(), "row 1 was hidden with the version");
  await page.screenshot({ path: path.join(shots, "collation-hidden.png") });
  await page.locator('#collation .wit-controls input[data-wit="0"]').check();
  heads = await visibleHeads();
  check(heads.length === n, "the version did not come back");
  if (only >= 0) check(await page.locator(`#c${only + 1}`).isVisible(), `row ${only + 1} did not come back`);

  // Move the first column right: the header order changes, no row's cells do.
  const rowCells = async () => page.locator("#collation tbody tr").evaluateAll((trs) => trs.slice(0, 60).map((tr) =>
    Array.from(tr.querySelectorAll("td[data-wit]")).map((td) => td.getAttribute("data-wit") + ":" + td.textContent).sort().join("|")));
  const before = await rowCells();
  await page.locator('#collation .wit-controls button.move[data-wit="0"][data-step="1"]').click();
  heads = await visibleHeads();
  check(heads[1] === out.witnesses[0].id && heads[0] === out.witnesses[1].id, `columns after the move: ${heads}`);
  const after = await rowCells();
  check(JSON.stringify(before) === JSON.stringify(after), "moving a column changed the rows");
  const firstRow = await page.locator("#collation tbody tr").first().evaluate((tr) =>
    Array.from(tr.querySelectorAll("td[data-wit]")).map((td) => td.getAttribute("data-wit")).join(","));
  check(firstRow.startsWith("1,0"), `cells of the first row not moved with their column: ${firstRow}`);
  await page.locator('#collation .wit-controls button.move[data-wit="0"][data-step="-1"]').click();

  // A transposed row links to the row where the version has the material.
  const transposed = out.rows.map((r, k) => [r, k]).filter(([r]) => r.transposed);
  check(transposed.length > 0, "no transposed row in the collation");
  check((await page.locator("#collation tr.transposed").count()) === transposed.length, "transposed rows not marked");
  const link = page.locator("#collation tr.transposed td.gap a.elsewhere").first();
  check((await link.count()) === 1, "no link from a gap of a transposed row");
  const href = await link.getAttribute("href");
  const wit = await link.evaluate((a) => a.closest("td").getAttribute("data-wit"));
  const from = await link.evaluate((a) => a.closest("tr").id);
  await link.click();
  await page.waitForFunction((h) => location.hash === h, href);
  const target = page.locator(href);
  await target.waitFor({ state: "visible", timeout: 5000 });
  // The version has text at the other place (the row itself, or a cell
  // spanning down to it from above).
  const there = Number(href.slice(2)) - 1;
  let k = there;
  while (k > 0 && out.rows[k].cells[Number(wit)] && out.rows[k].cells[Number(wit)].continued) k--;
  const cell = out.rows[k].cells[Number(wit)];
  check(cell && cell.text !== undefined, `${from} → ${href}: ${out.witnesses[Number(wit)].id} has no text there`);
  const back = target.locator("a.elsewhere");
  check((await back.count()) > 0, `${href} has no link back`);
  await page.screenshot({ path: path.join(shots, "collation-transposed.png") });

  check(problems.length === 0, problems.join("\n"));
  await browser.close();
  return `collation view: ${out.rows.length} rows, ${n} versions, ${transposed.length} transposed rows checked`;
}

try {
  console.log(await main(...process.argv.slice(2)));
} catch (e) {
  console.error(String(e && e.stack ? e.stack : e));
  process.exit(1);
}
