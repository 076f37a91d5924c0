// How a big `parallels report` index behaves in headless Chromium: load
// time, the ranked tables, a filter, a sort, paging, the graph.
//
//   node bench/scan_report_load.mjs REPORT_DIR [SHOTS_DIR]
//
// Needs the browser-test setup (see bench/browser.mjs).
// Times include the filters' 60 ms pause after typing.
import fs from "node:fs";
import path from "node:path";
import { open, time } from "./browser.mjs";

const { browser, page } = await open();
const dir = path.resolve(process.argv[2]);
const shots = process.argv[3];
const index = path.join(dir, "index.html");
console.log(`index.html: ${(fs.statSync(index).size / 1e6).toFixed(1)} MB`);
const count = () => page.locator("#filters .count").textContent();
const changed = async (before) => {
  await page.waitForFunction((b) => document.querySelector("#filters .count").textContent !== b, before);
};
await time("load (tables built)", () => page.goto("file://" + index, { waitUntil: "load" }));
console.log(await page.evaluate(() => {
  const d = JSON.parse(document.getElementById("scan-data").textContent);
  return `carried: ${d.passages.length} of ${d.all_passages} passages, ${d.clusters.length} clusters with places`;
}));
await time("open the pairs", async () => {
  await page.click('#tabs a[data-view="pairs"]');
  await page.locator("#pairs table.ranked tbody tr").first().waitFor({ state: "visible" });
});
console.log(await count());
let before = await count();
await time("filter: kind parallel", async () => { await page.selectOption('#filters [name="kind"]', "parallel"); await changed(before); });
before = await count();
await time("filter: length ≥ 200", async () => { await page.fill('#filters [name="minlen"]', "200"); await changed(before); });
console.log(await count());
before = await count();
await time("clear the filters", async () => { await page.click('#filters [name="clear"]'); await changed(before); });
await time("sort the pairs by length", () => page.locator("#pairs thead th", { hasText: "length" }).click());
await time("next page", () => page.locator("#pairs .pager button", { hasText: "next" }).click());
await time("open the passages", async () => {
  await page.click('#tabs a[data-view="passages"]');
  await page.locator("#passages table.ranked tbody tr").first().waitFor({ state: "visible" });
});
await time("sort the passages by score", () => page.locator("#passages thead th", { hasText: "score" }).click());
if (shots) await page.screenshot({ path: path.join(shots, "load-passages.png") });
await time("open the clusters and one cluster's places", async () => {
  await page.click('#tabs a[data-view="clusters"]');
  await page.locator("#clusters tr.cluster-row td.excerpt").first().click();
  await page.locator("#clusters tr.members").first().waitFor({ state: "visible" });
});
await time("open the graph", async () => {
  await page.click('#tabs a[data-view="graph"]');
  await page.locator("#graph svg.graph").waitFor({ state: "visible" });
});
if (shots) await page.screenshot({ path: path.join(shots, "load-graph.png"), fullPage: true });
await time("click a document of the graph (pair page loaded)", async () => {
  await page.locator("#graph a.node circle").first().click();
  await page.waitForURL(/pairs\/\d+\.html/, { waitUntil: "load" });
});
await browser.close();
