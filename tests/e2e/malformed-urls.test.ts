import { pino } from "pino";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { type RunningSite, startSite } from "#site/server.ts";
import { hasChromium } from "./support/browser.ts";
import { type SiteFixture, siteInBrowser } from "./support/site.ts";

/**
 * What a visitor sees at an address that cannot be decoded (`/%E0%A4%A`, `/price-list/%ZZ`: a link
 * cut short, a mistyped escape). The site spec: "A route that fails validation shows the same
 * 404". It used to be Fastify's raw JSON 400. The demo site, built, served by the real site server
 * (`startSite`, the server `pressroom serve site` runs), in Chromium. `UPDATE_SCREENSHOTS=1` writes
 * docs/screenshots/error-404-malformed-1280.png.
 */
const SHOT = new URL("../../docs/screenshots/error-404-malformed-1280.png", import.meta.url).pathname;
let site: SiteFixture;
let browser: Browser;
let server: RunningSite;

describe.skipIf(!hasChromium)("a malformed address in the browser", () => {
  siteInBrowser({}, (fixture) => {
    ({ site, browser } = fixture);
  });
  beforeAll(async () => {
    const config = loadConfig("site", {
      PORT: "0",
      HOST: "127.0.0.1",
      OPS_PORT: "off",
      STORAGE_URL: "memory:",
      REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      QUEUE_PREFIX: `e2e-malformed-${process.pid}-${Date.now()}`,
    });
    server = await startSite(config, pino({ level: "silent" }), site.store);
  });
  afterAll(() => server?.close());

  it.each(["/%E0%A4%A", "/price-list/%ZZ"])(
    "%s shows the site's 404 page, in its look, with status 404",
    async (path) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(error.message));
      page.on("console", (message) => {
        // A 404 document logs "Failed to load resource" by design; anything else counts.
        if (message.type() === "error" && !/Failed to load resource/.test(message.text()))
          problems.push(message.text());
      });
      try {
        const response = await page.goto(`${server.url}${path}`);
        expect(response?.status()).toBe(404);
        expect(response?.headers()["content-type"]).toBe("text/html; charset=utf-8");
        expect(await page.locator("h1").textContent()).toBe("This page could not be found");
        expect(await page.title()).toBe("Page not found · Northwind Studio");
        // The layout: the header with its navigation, the footer; styled by the site's stylesheet.
        expect(await page.locator(".site-header .brand").count()).toBe(1);
        expect(await page.getByRole("navigation", { name: "Main" }).first().isVisible()).toBe(true);
        expect(await page.locator(".site-footer").count()).toBe(1);
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        expect(background).not.toBe("rgba(0, 0, 0, 0)");
        expect(await page.content()).not.toContain("not a valid url");
        expect(problems).toEqual([]);
        if (process.env.UPDATE_SCREENSHOTS && path === "/%E0%A4%A") await page.screenshot({ path: SHOT });
        await page.getByRole("link", { name: "Go to the home page" }).click();
        await page.waitForURL(`${server.url}/`);
        expect(await page.locator("h1").first().textContent()).toBeTruthy();
      } finally {
        await context.close();
      }
    },
  );
});
