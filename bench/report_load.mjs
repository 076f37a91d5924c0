// How a big `align --html` report behaves in headless Chromium: load time,
// opening the pair view, switching a page, clicking a sentence.
//
//   node bench/report_load.mjs REPORT.html
//
// Needs the browser-test setup (Debian chromium, and playwright-core under
// crates/parallels-cli/tests/browser/node_modules: run `npm ci` there).
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const { chromium } = await import(
  path.join(here, "../crates/parallels-cli/tests/browser/node_modules/playwright-core/index.mjs"));
const file = path.resolve(process.argv[2]);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const time = async (what, f) => {
  const t = performance.now();
  await f();
  console.log(`${what}: ${Math.round(performance.now() - t)} ms`);
};
await time("load", () => page.goto("file://" + file, { waitUntil: "load" }));
await time("open the first pair", async () => {
  await page.click('#tabs a[data-view="pair-0"]');
  await page.locator("#pair-0").waitFor({ state: "visible" });
});
await time("go to page 6", () => page.locator("#pair-0 .pager button").nth(5).click());
await time("click a sentence", () => page.locator("#pair-0 tr.link:visible").first().locator("td.a").click());
console.log(`rows: ${await page.locator("#pair-0 tr.row").count()}`);
await browser.close();
