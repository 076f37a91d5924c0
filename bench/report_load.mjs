// How a big `align --html` report behaves in headless Chromium: load time,
// opening the pair view, switching a page, clicking a sentence.
//
//   node bench/report_load.mjs REPORT.html
//
// Needs the browser-test setup (see bench/browser.mjs).
import path from "node:path";
import { open, time } from "./browser.mjs";

const { browser, page } = await open();
const file = path.resolve(process.argv[2]);
await time("load", () => page.goto("file://" + file, { waitUntil: "load" }));
await time("open the first pair", async () => {
  await page.click('#tabs a[data-view="pair-0"]');
  await page.locator("#pair-0").waitFor({ state: "visible" });
});
await time("go to page 6", () => page.locator("#pair-0 .pager button").nth(5).click());
await time("click a sentence", () => page.locator("#pair-0 tr.link:visible").first().locator("td.a").click());
console.log(`rows: ${await page.locator("#pair-0 tr.row").count()}`);
await browser.close();
