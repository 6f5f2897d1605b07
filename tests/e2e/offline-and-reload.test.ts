import type { Browser } from "playwright-core";
import { describe, expect, it } from "vitest";
import { buildBrowserBundle } from "#web/browser-bundle.ts";
import { hasChromium } from "./support/browser.ts";
import { type SiteFixture, siteInBrowser } from "./support/site.ts";

/**
 * The connection notice and the chunk-failure reload, on the built demo site
 * served by the real site server. The island whose chunk fails is the contact
 * form on /contact: its first slice, in view at load, so it wakes with no
 * interaction (island-wake.ts). (The cookie notice, which did before, has no
 * chunk: the entry makes it live.)
 */
const PAGE = "/contact";
const FORM = '[data-island="contact-form"]';
let site: SiteFixture;
let browser: Browser;

describe.skipIf(!hasChromium)("offline notice and chunk-failure reload in the browser", () => {
  siteInBrowser({}, (fixture) => {
    ({ site, browser } = fixture);
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
    const chunk = await formChunk();

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
    await page.goto(`${site.url}${PAGE}`);
    // The first failure reloads the page; the second (on the reloaded page) is only logged.
    await refusedAgain;
    // The island's chunk can fail, and say so, before the reloaded page's load event: count it first.
    await page.waitForLoadState("load");
    expect(loads).toBe(2);
    expect(aborted).toEqual([chunk, chunk]);
    expect(
      Number(await page.evaluate(() => sessionStorage.getItem("pressroom:chunk-reload"))),
    ).toBeGreaterThan(0);
    // The server markup stays usable: the form is there, a plain form that posts.
    expect(await page.locator(`${FORM} form[action="/api/contact"]`).count()).toBe(1);
    expect(await page.locator(`${FORM}[data-hydrated]`).count()).toBe(0);
    // Other islands are unaffected: the menu opens, and its island wakes.
    await page.locator("summary.mobile-menu__toggle").click();
    await page.locator(".mobile-menu__panel").getByRole("link", { name: "FAQ" }).waitFor();
    await page.locator('[data-island="mobile-menu"][data-hydrated]').waitFor({ state: "attached" });
    expect(loads).toBe(2);
    await context.close();
  }, 60_000);

  it("reloads once, and not again within 60 s, when sessionStorage is blocked", async () => {
    const chunk = await formChunk();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    // What Chromium does when a visitor blocks site data: any use of sessionStorage throws.
    await context.addInitScript(() =>
      Object.defineProperty(window, "sessionStorage", {
        get: () => {
          throw new DOMException("Access is denied for this document.", "SecurityError");
        },
      }),
    );
    await context.route(chunk, (route) => route.abort("failed"));
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
    await page.goto(`${site.url}${PAGE}`);
    await refusedAgain;
    // The island's chunk can fail, and say so, before the reloaded page's load event: count it first.
    await page.waitForLoadState("load");
    expect(loads).toBe(2);
    expect(await page.evaluate(() => typeof window.sessionStorage).catch(() => "blocked")).toBe("blocked");
    // And no reload loop after it.
    await page.waitForTimeout(1000);
    expect(loads).toBe(2);
    await context.close();
  }, 60_000);

  it("counts a chunk that has not arrived after 120 s as failed: reloads and the island starts", async () => {
    const chunk = await formChunk();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    let asked = 0;
    let requested!: () => void;
    const stalled = new Promise<void>((resolve) => (requested = resolve));
    // The first request for the chunk never gets an answer (a stalled connection); later ones do.
    await context.route(chunk, async (route) => {
      if (++asked > 1) return route.continue();
      requested();
      await new Promise(() => undefined);
    });
    const page = await context.newPage();
    // The page's timers run on the test's clock: 120 s pass in an instant, and only when told.
    await page.clock.install();
    let loads = 0;
    page.on("load", () => {
      loads++;
    });
    await page.goto(`${site.url}${PAGE}`);
    await stalled;
    await page.clock.runFor(119_000);
    // Give a wrong early reload the time to happen.
    await page.waitForTimeout(500);
    expect(loads).toBe(1);
    expect(await page.locator(`${FORM}[data-hydrated]`).count()).toBe(0);
    await page.clock.runFor(1_500);
    await expect.poll(() => loads, { timeout: 15_000 }).toBe(2);
    await page.locator(`${FORM}[data-hydrated]`).waitFor({ state: "attached" });
    expect(asked).toBe(2);
    await context.close();
  }, 60_000);

  it("keeps the page when the connection drops as an island loads, and starts the island when it is back", async () => {
    const chunk = await formChunk();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    // The moment the page asks for the form's chunk, the connection drops.
    await context.route(chunk, async (route) => {
      await context.setOffline(true);
      await route.abort("internetdisconnected");
    });
    const page = await context.newPage();
    let loads = 0;
    page.on("load", () => {
      loads++;
    });
    const failed = new Promise<void>((resolve) =>
      page.on("requestfailed", (request) => {
        if (request.url() === chunk) resolve();
      }),
    );
    await page.goto(`${site.url}${PAGE}`);
    await failed;
    await page.getByRole("status").filter({ hasText: "You are offline" }).waitFor();
    // Time for a reload to happen, if one were going to: a reload now would show the browser's
    // offline page instead of the one being read.
    await page.waitForTimeout(1000);
    expect(loads).toBe(1);
    expect(page.url()).toBe(`${site.url}${PAGE}`);
    expect(await page.locator("main h1").count()).toBe(1);
    expect(await page.locator(`${FORM}[data-hydrated]`).count()).toBe(0);

    // Back online: the island starts (again from its chunk, or through one reload that now works).
    await context.unroute(chunk);
    await context.setOffline(false);
    await page.locator(`${FORM}[data-hydrated]`).waitFor({ state: "attached" });
    expect(page.url()).toBe(`${site.url}${PAGE}`);
    expect(loads).toBeLessThanOrEqual(2);
    await page.locator("button.mobile-menu__toggle, summary.mobile-menu__toggle").first().click();
    await page.locator(".mobile-menu__panel").getByRole("link", { name: "FAQ" }).waitFor();
    await context.close();
  }, 60_000);
});

/** The contact form island's own chunk (in its files and in no other island's), as a URL of the site. */
async function formChunk(): Promise<string> {
  const { manifest } = await buildBrowserBundle();
  const others = new Set(
    Object.entries(manifest.islands)
      .filter(([name]) => name !== "contact-form")
      .flatMap(([, files]) => files),
  );
  const own = (manifest.islands["contact-form"] ?? []).filter((file) => !others.has(file));
  expect(own).toHaveLength(1);
  return `${site.url}${own[0]}`;
}
