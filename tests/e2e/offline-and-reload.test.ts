import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBrowserBundle } from "../../web/src/browser-bundle.ts";
import { hasChromium, launchChromium } from "./support/browser.ts";
import { type SiteFixture, startSite } from "./support/site.ts";

/**
 * The connection notice and the chunk-failure reload, on the built demo site
 * served by the real site server.
 */
let site: SiteFixture;
let browser: Browser;

describe.skipIf(!hasChromium)("offline notice and chunk-failure reload in the browser", () => {
  beforeAll(async () => {
    site = await startSite();
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await site?.stop();
  });

  it("shows a polite status notice while offline and removes it when the connection returns", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${site.url}/services`);
    // The entry has run (it marks <html data-consent>), so the listeners are in place.
    await page.locator("html[data-consent]").waitFor({ state: "attached" });
    const notice = page.locator(".offline-notice");
    expect(await notice.count()).toBe(0);

    await context.setOffline(true);
    const status = page.getByRole("status").filter({ hasText: "You are offline" });
    await status.waitFor();
    expect(await status.isVisible()).toBe(true);
    expect(await notice.getAttribute("role")).toBe("status");
    await page.screenshot({ path: `${process.env.TMPDIR ?? "/tmp"}/offline-390.png` });

    await context.setOffline(false);
    await notice.waitFor({ state: "detached" });

    // And again: each drop shows it once.
    await context.setOffline(true);
    await status.waitFor();
    expect(await notice.count()).toBe(1);
    await context.setOffline(false);
    await notice.waitFor({ state: "detached" });
    await context.close();
  }, 60_000);

  it("reloads once when an island's chunk fails to load, and not again within 60 s", async () => {
    // The mobile menu's own chunk: in its island's files and in no other island's.
    const { manifest } = await buildBrowserBundle();
    const others = new Set(
      Object.entries(manifest.islands)
        .filter(([name]) => name !== "mobile-menu")
        .flatMap(([, files]) => files),
    );
    const own = (manifest.islands["mobile-menu"] ?? []).filter((file) => !others.has(file));
    expect(own).toHaveLength(1);
    const chunk = `${site.url}${own[0]}`;

    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const aborted: string[] = [];
    await context.route(chunk, (route) => {
      aborted.push(route.request().url());
      return route.abort("failed");
    });
    const page = await context.newPage();
    let loads = 0;
    page.on("load", () => {
      loads++;
    });
    const refusedAgain = new Promise<string>((resolve) => {
      page.on("console", (message) => {
        if (message.text().includes("failed to load again; not reloading")) resolve(message.text());
      });
    });
    await page.goto(`${site.url}/`);
    // The first failure reloads the page; the second (on the reloaded page) is only logged.
    await refusedAgain;
    expect(loads).toBe(2);
    expect(aborted).toEqual([chunk, chunk]);
    expect(
      Number(await page.evaluate(() => sessionStorage.getItem("pressroom:chunk-reload"))),
    ).toBeGreaterThan(0);
    // The server markup stays usable: the no-JS <details> menu still opens.
    await page.locator("summary.mobile-menu__toggle").click();
    await page.locator(".mobile-menu__panel").getByRole("link", { name: "FAQ" }).waitFor();
    // Other islands are unaffected.
    await page.locator('[data-island="cookie-notice"][data-hydrated]').waitFor({ state: "attached" });
    expect(loads).toBe(2);
    await context.close();
  }, 60_000);
});
