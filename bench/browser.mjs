// What the browser benchmarks share: headless Chromium through the
// browser tests' playwright-core, one page, and a timer that prints.
//
// Needs the browser-test setup (Debian chromium, and playwright-core under
// crates/parallels-cli/tests/browser/node_modules: run `npm ci` there).
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const { chromium } = await import(
  path.join(here, "../crates/parallels-cli/tests/browser/node_modules/playwright-core/index.mjs"));

/** A browser ($CHROMIUM, else Debian's) and one 1400 × 900 page. */
export async function open() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  return { browser, page };
}

/** Runs `f` and prints how long it took, as `what: N ms`. */
export async function time(what, f) {
  const t = performance.now();
  await f();
  console.log(`${what}: ${Math.round(performance.now() - t)} ms`);
}
