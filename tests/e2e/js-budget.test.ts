import { gzipSync } from "node:zlib";
import type { Browser, BrowserContext, Page, Response } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { buildSiteAssets } from "#web/assets.ts";
import type { BrowserManifest } from "#web/browser-bundle.ts";
import { JS_BUDGET } from "#web/js-budget.ts";
import { hasChromium } from "./support/browser.ts";
import { type SiteFixture, siteInBrowser } from "./support/site.ts";

/**
 * The JavaScript budget as a visitor's browser meets it: what Chromium fetches,
 * from its own network log, not the build's static sum. A visitor on a plain page (no carousel, no
 * contact form), returning (cookie choice made) or on a first visit (the cookie notice showing,
 * made live by the entry without React), runs the entry alone, at most 10 KB gzip, and fetches no
 * React for 5 s without interaction; React and the menu's chunk arrive with the first tap on the
 * menu, which opens it in that same tap. Sizes are gzip level 9 of the bytes received
 * (the build's measure; the server itself sends brotli, a little smaller).
 */
const NARROW = { width: 390, height: 844 };
/** Demo pages with neither a carousel nor a contact form. */
const PLAIN = ["/services", "/pricing", "/faq", "/privacy", "/price-list/", "/price-list/websites"];
const QUIET_MS = 5000;

let site: SiteFixture;
let browser: Browser;
let manifest: BrowserManifest;

interface Fetched {
  url: string;
  gzip: number;
}

/** Every script the page fetches, with its gzip size, in order. */
function recordScripts(page: Page): Fetched[] {
  const scripts: Fetched[] = [];
  page.on("response", (response: Response) => {
    if (response.request().resourceType() !== "script") return;
    void response.body().then(
      (body) =>
        scripts.push({ url: new URL(response.url()).pathname, gzip: gzipSync(body, { level: 9 }).length }),
      () => undefined,
    );
  });
  return scripts;
}

async function returningVisitor(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: NARROW });
  await context.addInitScript(() => localStorage.setItem("pressroom:consent", "declined"));
  return context;
}

/**
 * Every plain page at once, each in its own browser context from `newVisitor` (nothing cached from
 * another page): loaded, scrolled through once as a reader does (no interaction with any island),
 * then left alone for QUIET_MS.
 */
async function readQuietly(newVisitor: () => Promise<BrowserContext>) {
  const visits = await Promise.all(
    PLAIN.map(async (path) => {
      const context = await newVisitor();
      const page = await context.newPage();
      const scripts = recordScripts(page);
      await page.goto(`${site.url}${path}`, { waitUntil: "load" });
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      return { path, context, page, scripts };
    }),
  );
  await visits[0]?.page.waitForTimeout(QUIET_MS);
  return visits;
}

type Visits = Awaited<ReturnType<typeof readQuietly>>;

/** A first visit: nothing in storage, so the cookie notice shows. */
const firstVisitor = () => browser.newContext({ viewport: NARROW });

let reads: { returning?: Promise<Visits>; first?: Promise<Visits> } = {};

/**
 * The returning visitor's or the first visit's read of every plain page. Both are made at once, so
 * that their QUIET_MS pass together, and each is handed out once (a test run again reads anew).
 */
function quietRead(who: "returning" | "first"): Promise<Visits> {
  if (!reads[who]) {
    reads = { returning: readQuietly(returningVisitor), first: readQuietly(firstVisitor) };
    // Each read's failure is reported by the test that takes it, not as unhandled meanwhile.
    for (const read of Object.values(reads)) read.catch(() => undefined);
  }
  const read = reads[who] as Promise<Visits>;
  reads[who] = undefined;
  return read;
}

const total = (scripts: readonly Fetched[]) => scripts.reduce((sum, s) => sum + s.gzip, 0);
const isReact = (url: string) => manifest.react.includes(url);

describe.skipIf(!hasChromium)("the JavaScript a visitor's browser fetches", () => {
  siteInBrowser({}, (fixture) => {
    ({ site, browser } = fixture);
  });
  beforeAll(async () => {
    manifest = (await buildSiteAssets()).assets.browser;
  });

  it("a returning visitor on a plain page: the entry alone, at most 10 KB, no React within 5 s", async () => {
    const visits = await quietRead("returning");
    for (const { path, context, page, scripts } of visits) {
      const urls = scripts.map((s) => s.url).sort();
      expect(urls, path).toEqual([...manifest.entryFiles].sort());
      expect(urls.filter(isReact), path).toEqual([]);
      expect(total(scripts), path).toBeLessThanOrEqual(JS_BUDGET.initial);
      expect(await page.locator("[data-hydrated]").count(), path).toBe(0);
      await context.close();
    }
  }, 120_000);

  it("a first visit on a plain page: the entry alone, no React within 5 s; the notice is live and one click chooses", async () => {
    // As the returning visitor's test, with empty storage: the cookie notice shows on every page.
    const visits = await quietRead("first");
    const fetchedAtClick: number[] = [];
    for (const [index, { path, page, scripts }] of visits.entries()) {
      const urls = scripts.map((s) => s.url).sort();
      expect(urls, path).toEqual([...manifest.entryFiles].sort());
      expect(urls.filter(isReact), path).toEqual([]);
      expect(total(scripts), path).toBeLessThanOrEqual(JS_BUDGET.initial);
      // The notice is the one live thing on the page, a banner with its two choices.
      const notice = page.getByRole("complementary", { name: "Cookie notice" });
      expect(await notice.isVisible(), path).toBe(true);
      expect(
        await page
          .locator("[data-hydrated]")
          .evaluateAll((live) => live.map((e) => e.getAttribute("data-island"))),
        path,
      ).toEqual(["cookie-notice"]);
      // The first click chooses: stored, the banner gone at once (no retry, no wait), focus on the
      // content; and it fetches nothing.
      const [choice, stored] = index % 2 ? ["Decline", "declined"] : ["Accept", "accepted"];
      fetchedAtClick[index] = scripts.length;
      await notice.getByRole("button", { name: choice }).click();
      expect(await page.evaluate(() => localStorage.getItem("pressroom:consent")), path).toBe(stored);
      expect(await notice.isVisible(), path).toBe(false);
      expect(await page.evaluate(() => document.activeElement?.id), path).toBe("main");
    }
    // Time for a fetch a click would start, counted from the last click (each page has had at least
    // as long since its own): none may come.
    await visits[0]?.page.waitForTimeout(500);
    for (const [index, { path, context, scripts }] of visits.entries()) {
      expect(scripts.length, path).toBe(fetchedAtClick[index]);
      // The next page (a full load) shows no notice, and no React either.
      if (index === 0) {
        const next = await context.newPage();
        const after = recordScripts(next);
        await next.goto(`${site.url}/privacy`, { waitUntil: "load" });
        await next.waitForTimeout(1000); // time for a notice or React to come, had they been going to
        expect(await next.getByRole("complementary", { name: "Cookie notice" }).isVisible()).toBe(false);
        expect(after.map((s) => s.url).filter(isReact)).toEqual([]);
      }
      await context.close();
    }
  }, 120_000);

  it("the first tap on the menu brings React and the menu's chunk, and opens the menu", async () => {
    const context = await returningVisitor();
    // Slow island chunks (as on a phone network): the tap lands well before React does.
    await context.route(/\/assets\/js\/chunk\./, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await route.continue();
    });
    const page = await context.newPage();
    const scripts = recordScripts(page);
    await page.goto(`${site.url}/faq`, { waitUntil: "load" });
    const before = scripts.length;
    await page.locator("summary.mobile-menu__toggle").click();
    // Open in the same gesture, from the server's markup, while React is on its way.
    expect(await page.locator("details.mobile-menu__details").getAttribute("open")).toBe("");
    await page.locator('[data-island="mobile-menu"][data-hydrated]').waitFor({ state: "attached" });
    const toggle = page.locator("button.mobile-menu__toggle");
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    expect(await page.locator("#mobile-menu-panel").isVisible()).toBe(true);
    // Each script is recorded once its body is read (recordScripts), which may be just after the
    // island says it hydrated: wait for the record, never for a time.
    await expect
      .poll(() => scripts.slice(before).map((s) => s.url))
      .toEqual(expect.arrayContaining([...manifest.react, ...(manifest.islands["mobile-menu"] ?? [])]));
    // The island works from there: the button closes it.
    await toggle.click();
    await page.locator("#mobile-menu-panel").waitFor({ state: "hidden" });
    await context.close();
  }, 60_000);

  it("with React already cached, the first tap still opens the menu (the gesture is not split)", async () => {
    const context = await returningVisitor();
    const warm = await context.newPage();
    await warm.goto(`${site.url}/pricing`);
    await warm.locator("summary.mobile-menu__toggle").click();
    await warm.locator('[data-island="mobile-menu"][data-hydrated]').waitFor({ state: "attached" });
    await warm.close();
    for (const path of ["/faq", "/privacy", "/services"]) {
      const page = await context.newPage();
      await page.goto(`${site.url}${path}`, { waitUntil: "load" });
      await page.locator("summary.mobile-menu__toggle").click();
      await page.locator('[data-island="mobile-menu"][data-hydrated]').waitFor({ state: "attached" });
      expect(await page.locator("button.mobile-menu__toggle").getAttribute("aria-expanded"), path).toBe(
        "true",
      );
      await page.close();
    }
    await context.close();
  }, 60_000);

  it("by keyboard: focus wakes the menu, Enter opens it", async () => {
    const context = await returningVisitor();
    const page = await context.newPage();
    const scripts = recordScripts(page);
    await page.goto(`${site.url}/faq`, { waitUntil: "load" });
    await page.locator("summary.mobile-menu__toggle").focus();
    await page.locator('[data-island="mobile-menu"][data-hydrated] button.mobile-menu__toggle').waitFor();
    // Focus moved to the live button, so the keyboard goes on where it was.
    expect(await page.evaluate(() => document.activeElement?.classList.contains("mobile-menu__toggle"))).toBe(
      true,
    );
    await page.keyboard.press("Enter");
    expect(await page.locator("button.mobile-menu__toggle").getAttribute("aria-expanded")).toBe("true");
    expect(
      scripts
        .map((s) => s.url)
        .filter(isReact)
        .sort(),
    ).toEqual([...manifest.react].sort());
    await context.close();
  }, 60_000);

  it("the contact form wakes as soon as focus enters it, even before it comes near the viewport", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 300 } });
    await context.addInitScript(() => localStorage.setItem("pressroom:consent", "declined"));
    const page = await context.newPage();
    await page.goto(`${site.url}/contact`, { waitUntil: "load" });
    const form = page.locator('[data-island="contact-form"]');
    expect(await form.evaluate((element) => element.getBoundingClientRect().top)).toBeGreaterThan(300 + 200);
    expect(await form.and(page.locator("[data-hydrated]")).count()).toBe(0);
    // A keyboard user tabbing in (focus without scrolling, so only the focus can wake it).
    await page.evaluate(() =>
      document
        .querySelector<HTMLInputElement>('form.contact-form input[name="name"]')
        ?.focus({ preventScroll: true }),
    );
    await form.and(page.locator("[data-hydrated]")).waitFor({ state: "attached" });
    await context.close();
  }, 60_000);
});
