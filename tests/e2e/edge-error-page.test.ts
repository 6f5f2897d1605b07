/**
 * What a visitor sees from the edge when the site server is down and the edge holds no
 * copy of the page — the edge's own 503 page (infra/varnish/default.vcl), which must be the site's
 * built-in fallback in the site's look, not Varnish's "Guru Meditation". A real varnishd whose
 * backend does not answer, seen in Chromium at 390 and 1280 px. `UPDATE_SCREENSHOTS=1` writes
 * docs/screenshots/edge-503-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/free-port.ts";
import { hasVarnish, startVarnish, type Varnish } from "../support/varnish.ts";
import { hasChromium, releaseChromium, sharedChromium } from "./support/browser.ts";

const SHOTS = new URL("../../docs/screenshots/", import.meta.url).pathname;
let varnish: Varnish;
let browser: Awaited<ReturnType<typeof sharedChromium>>;

describe.skipIf(!hasVarnish || !hasChromium)("the edge's page while the site server is down", () => {
  beforeAll(async () => {
    // Nothing listens on the backend's port: the site server is down.
    varnish = await startVarnish({
      backend: { host: "127.0.0.1", port: await freePort() },
      purgers: ["127.0.0.1"],
    });
    browser = await sharedChromium();
  }, 60_000);
  afterAll(async () => {
    if (browser) await releaseChromium(browser);
    await varnish?.stop();
  });

  it.each([390, 1280])("is the site's fallback page, in the site's look, at %i px", async (width) => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const answer = await page.goto(`${varnish.url}/about`);
    expect(answer?.status()).toBe(503);
    expect(answer?.headers()["retry-after"]).toBe("30");
    expect(await page.locator("h1").textContent()).toBe("This site is briefly unavailable");
    expect(await page.locator("[data-fallback-message]").textContent()).toBe(
      "Unfortunately an error occurred and while showing the error page another error occurred.",
    );
    const home = page.getByRole("link", { name: "Go back to home" });
    expect(await home.isVisible()).toBe(true);
    // Styled, though the site server that serves the fallback's stylesheet is the one down.
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(
      "rgb(255, 250, 242)",
    );
    expect(await home.evaluate((a) => getComputedStyle(a).backgroundColor)).toBe("rgb(194, 73, 43)");
    if (process.env.UPDATE_SCREENSHOTS)
      await page.screenshot({ path: `${SHOTS}edge-503-${width}.png`, fullPage: true });
    await context.close();
  });
});

if (!hasVarnish || !hasChromium)
  describe("the edge's page while the site server is down (skipped: varnishd, its xkey vmod or chromium is missing)", () => {
    it.skip("needs varnishd and chromium", () => {});
  });
