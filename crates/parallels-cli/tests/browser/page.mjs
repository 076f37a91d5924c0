// What the browser tests share: a failed check, and a report opened in
// headless Chromium that records every script error, console error, dialog
// and network request (a report must need nothing but its own files).
import { chromium } from "playwright-core";
import path from "node:path";

export function check(ok, message) {
  if (!ok) throw new Error(message);
}

/** Opens `file` in a page of `width` × `height`; `problems` collects what went wrong. */
export async function open(file, width = 1400, height = 900) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--disable-quic"],
  });
  const page = await browser.newPage({ viewport: { width, height } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(`script error: ${e}`));
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("dialog", (d) => { problems.push(`a dialog opened: ${d.message()}`); d.dismiss(); });
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:")) return route.continue();
    problems.push(`network request: ${url}`);
    return route.abort();
  });
  await page.goto("file://" + path.resolve(file));
  return { browser, page, problems };
}
