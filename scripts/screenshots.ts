/**
 * Takes the README's screenshots as a visitor sees the site: starts everything
 * the way `npm start` does (fresh data folders, free ports), then opens every
 * demo route in Chromium at phone and desktop widths.
 *
 *   TMPDIR=$PWD/.tmp node --import tsx scripts/screenshots.ts [outDir]
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startAll } from "#bin/start-all.ts";
import { loadConfig } from "#config";
import { createLogger } from "#logger";
import { launchChromium } from "./chromium.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const OUT = process.argv[2] ?? join(ROOT, "docs/screenshots");
const ROUTES = [
  "/",
  "/about",
  "/services",
  "/pricing",
  "/faq",
  "/contact",
  "/privacy",
  "/price-list/",
  "/price-list/websites",
  "/nope",
];
const WIDTHS = [390, 1280];

const tmp = await mkdtemp(join(process.env.TMPDIR ?? join(ROOT, ".tmp"), "screenshots-"));
const config = loadConfig("start", {
  CONTENT_PORT: "0",
  SITE_PORT: "0",
  CONTENT_DATA_DIR: join(tmp, "content"),
  STORAGE_URL: `file://${join(tmp, "site")}`,
  LOG_LEVEL: "warn",
});
const running = await startAll(config, {
  rootDir: ROOT,
  logger: createLogger({ name: "screenshots", level: "warn" }),
  siteUrlFromEnv: false,
});
const browser = await launchChromium();
try {
  await mkdir(OUT, { recursive: true });
  const siteUrl = running.siteUrl;
  for (const width of WIDTHS) {
    const page = await browser.newPage({
      viewport: { width, height: width < 600 ? 844 : 800 },
      deviceScaleFactor: 1,
      // Still pictures of the pages themselves: no autoplaying carousel, and the cookie choice
      // already made (the notice has screenshots of its own, made by tests/e2e/menu-cookies).
      reducedMotion: "reduce",
    });
    await page.addInitScript(() => localStorage.setItem("pressroom:consent", "declined"));
    for (const route of ROUTES) {
      await page.goto(`${siteUrl}${route}`, { waitUntil: "networkidle" });
      // Lazy images load as a visitor scrolls: scroll through once so the full-page shot shows them.
      await page.evaluate(async () => {
        for (let y = 0; y < document.body.scrollHeight; y += 500) {
          window.scrollTo(0, y);
          await new Promise((resolve) => setTimeout(resolve, 40));
        }
        window.scrollTo(0, 0);
        // Let the sticky header settle back at the top before the capture.
        await new Promise((resolve) => setTimeout(resolve, 250));
      });
      await page.waitForLoadState("networkidle");
      const name = route === "/" ? "home" : route.replace(/^\/|\/$/g, "").replaceAll("/", "-") || "index";
      const file = join(OUT, `${name}-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(file);
    }
    await page.close();
  }
} finally {
  await browser.close();
  await running.close();
  await rm(tmp, { recursive: true, force: true });
}
