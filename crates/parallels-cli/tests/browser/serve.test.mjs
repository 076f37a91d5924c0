// `parallels serve` in headless Chromium: search a pasted text, open a
// result, see the aligned pair; texts that look like HTML are shown as
// text. Run by tests/serve.rs:
//
//   node serve.test.mjs URL TEXT_FILE PLANTED_ID INJECTION_ID SHOTS_DIR
//
// Exits non-zero with a message on the first failed check.
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { check } from "./page.mjs";

const [url, textFile, planted, injection, shots] = process.argv.slice(2);
const text = fs.readFileSync(textFile, "utf8");
const origin = new URL(url).origin;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic"],
});
const problems = [];
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on("pageerror", (e) => problems.push(`script error: ${e}`));
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("dialog", (d) => { problems.push(`a dialog opened: ${d.message()}`); d.dismiss(); });
  // The pages need nothing but the server (the pair report nothing at all).
  await page.route("**/*", (route) => {
    const u = route.request().url();
    if (u.startsWith(origin) || u.startsWith("about:") || u.startsWith("data:")) return route.continue();
    problems.push(`request outside the server: ${u}`);
    return route.abort();
  });

  await page.goto(url);
  await page.locator("#docs li").first().waitFor({ timeout: 10000 });
  const listed = await page.locator("#docs").textContent();
  check(listed.includes(injection), "the document list does not show the injection id as text");
  check((await page.locator("#docs img, #docs script, #docs b").count()) === 0, "markup from an id was rendered");

  // Paste, search.
  await page.fill("#text", text);
  await page.click("#search");
  await page.locator("#hits li.hit").first().waitFor({ timeout: 20000 });
  const hits = await page.locator("#hits li.hit a").allTextContents();
  check(hits.includes(planted), `the planted copy ${planted} is not among the results: ${hits}`);
  check(hits.includes(injection), `the document with markup in it is not among the results: ${hits}`);
  check((await page.locator("#hits img, #hits script, #hits b").count()) === 0, "markup from a text was rendered");
  const excerpts = await page.locator("#hits").textContent();
  check(excerpts.includes("<b>"), "the excerpt does not show the markup as text");
  await page.screenshot({ path: path.join(shots, "serve-results.png"), fullPage: true });

  // Open the planted copy: the pair view of the report, aligned.
  const row = page.locator("#hits li.hit", { has: page.locator("a", { hasText: planted }) });
  await row.locator("button.open").click();
  const frame = page.frameLocator("#pair");
  await frame.locator("#tabs a[data-view='pair-0']").waitFor({ timeout: 20000 });
  await frame.locator("#tabs a[data-view='pair-0']").click();
  await frame.locator("#pair-0 tr.link").first().waitFor({ state: "visible", timeout: 5000 });
  const links = await frame.locator("#pair-0 tr.link").count();
  check(links > 0, "the pair view shows no aligned row");
  const sides = await frame.locator("#pair-0 tr.link").first().locator("td.a, td.b").allTextContents();
  check(sides.length === 2 && sides.every((s) => s.trim().length > 0),
        `the first aligned row does not show both sides: ${JSON.stringify(sides)}`);
  await page.screenshot({ path: path.join(shots, "serve-pair.png"), fullPage: true });

  // A document's page lists what it shares.
  await page.goto(url + "documents/0");
  await page.locator("#doc-title").waitFor();
  await page.locator("#hits li").first().waitFor({ timeout: 20000 });
  await page.screenshot({ path: path.join(shots, "serve-document.png"), fullPage: true });

  check(problems.length === 0, "problems:\n" + problems.join("\n"));
  console.log(`serve: ${hits.length} result(s), ${links} aligned row(s) in the pair view`);
} catch (e) {
  // What the page said helps more than a timeout.
  throw new Error(`${e.message}\nproblems so far:\n${problems.join("\n")}`);
} finally {
  await browser.close();
}
