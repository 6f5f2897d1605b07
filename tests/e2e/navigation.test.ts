import type { Browser, BrowserContext, Page, Route } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { hasChromium } from "./support/browser.ts";
import { type SiteFixture, siteInBrowser } from "./support/site.ts";

/**
 * Enhanced navigation (web/src/browser/navigation.ts) on the built demo site
 * served by the real site server. A page stays the same document when a
 * marker set on `window` before a click is still there after it; a normal
 * load loses it. page.route delays or breaks only the script's fetch of the
 * next page (resource type "fetch"); the browser's own document loads pass.
 */
const WIDE = { width: 1280, height: 800 };
const NARROW = { width: 390, height: 844 };
const NOT_FOUND = "This page could not be found";
/** What the offline notice says when a link or back/forward needs the network (browser/offline-notice.ts). */
const OFFLINE = "You are offline. Pages you open may not load until the connection is back.";
const LINK_OFFLINE =
  "You are offline: this link needs a connection. Try it again when the connection is back.";
const PAGE_OFFLINE = "You are offline: that page needs a connection. It opens when the connection is back.";

type Marked = Window & { navMarker?: number; barShown?: boolean };

let site: SiteFixture;
let browser: Browser;
const contexts: BrowserContext[] = [];

async function open(
  path: string,
  viewport = WIDE,
  reducedMotion: "reduce" | "no-preference" = "no-preference",
  { clock = false } = {},
): Promise<Page & { errors: string[] }> {
  const context = await browser.newContext({ viewport, reducedMotion });
  contexts.push(context);
  const page = Object.assign(await context.newPage(), { errors: [] as string[] });
  page.on("pageerror", (error) => page.errors.push(error.message));
  // Timers, Date and performance.now under the test's control (pauseAt stops the clock; runFor moves it).
  if (clock) await page.clock.install();
  await page.goto(`${site.url}${path}`);
  await mark(page);
  return page;
}

const mark = (page: Page) =>
  page.evaluate(() => {
    (window as Marked).navMarker = 1;
  });
const marker = (page: Page) => page.evaluate(() => (window as Marked).navMarker);
const heading = (page: Page, text: string) => page.locator("main h1", { hasText: text }).waitFor();
const scrollY = (page: Page) => page.evaluate(() => Math.round(window.scrollY));
const scrollTo = (page: Page, top: number) =>
  page.evaluate((y) => window.scrollTo({ top: y, behavior: "instant" }), top);
const path = (page: Page) => new URL(page.url()).pathname;

/** Adds a link at the top of `<main>` (for targets the demo pages do not link to) and clicks it. */
async function clickNewLink(
  page: Page,
  href: string,
  attributes: Record<string, string> = {},
): Promise<void> {
  await page.evaluate(
    ({ href, attributes }) => {
      const link = document.createElement("a");
      link.href = href;
      link.id = "test-link";
      link.textContent = "Test link";
      for (const [name, value] of Object.entries(attributes)) link.setAttribute(name, value);
      document.querySelector("main")?.prepend(link);
    },
    { href, attributes },
  );
  await page.locator("#test-link").click();
}

/** Routes the script's fetch of `path` (documents pass untouched) to `handle`. */
async function onFetch(page: Page, pathname: string, handle: (route: Route) => Promise<void>): Promise<void> {
  await page.route(
    (url) => url.pathname === pathname,
    (route) => (route.request().resourceType() === "fetch" ? handle(route) : route.continue()),
  );
}

/** Holds the script's fetch of `pathname` until released; `requested` settles once the page has asked. */
async function holdFetch(page: Page, pathname: string) {
  let requested!: () => void;
  let release!: () => void;
  const asked = new Promise<void>((resolve) => (requested = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  await onFetch(page, pathname, async (route) => {
    requested();
    await released;
    await route.continue();
  });
  return { requested: asked, release };
}

const delay = (ms: number) => async (route: Route) => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  // The page may have given up on the request (aborted) meanwhile.
  await route.continue().catch(() => undefined);
};

describe.skipIf(!hasChromium)("enhanced navigation in the browser", () => {
  siteInBrowser({}, (fixture) => {
    ({ site, browser } = fixture);
  });
  // Each test's pages go with it: a page left open (the home page's carousel autoplaying) would go
  // on using the shared Chromium's time through every later test.
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close().catch(() => undefined);
  });

  it("a nav link swaps the page in place: content, title, URL, aria-current, focus, announcement", async () => {
    const page = await open("/");
    expect(await page.locator('header .brand[aria-current="page"]').count()).toBe(1);
    const title = await page.title();

    await page.locator('.site-nav a[href="/about"]').click();
    await heading(page, "About Northwind Studio");
    expect(await marker(page)).toBe(1);
    expect(path(page)).toBe("/about");
    expect(await page.title()).not.toBe(title);
    expect(await page.title()).toContain("About");
    expect(await page.locator('.site-nav a[aria-current="page"]').textContent()).toBe("About");
    expect(await page.locator('header .brand[aria-current="page"]').count()).toBe(0);
    // Screen readers: focus moves to the new content and the new title is announced.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    expect(await page.locator('[role="status"]').textContent()).toBe(await page.title());
    // Only one copy of each part, and the cookie notice untouched.
    expect(await page.locator("main").count()).toBe(1);
    expect(await page.locator("header.site-header").count()).toBe(1);
    expect(await page.locator("main h1").count()).toBe(1);
    expect(await page.locator(".nav-progress").isHidden()).toBe(true);
    expect(page.errors).toEqual([]);
  });

  it("shows no progress bar when the next page arrives within 200 ms", async () => {
    // The page's timers run on Playwright's clock, and the test holds the fetch of the next page: the
    // check is about the 200 ms rule, not about how fast this machine serves a page.
    const page = await open("/", WIDE, "no-preference", { clock: true });
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
    await page.evaluate(() => {
      new MutationObserver(() => {
        if (document.querySelector(".nav-progress:not([hidden])")) (window as Marked).barShown = true;
      }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ["hidden"] });
    });
    const held = holdFetch(page, "/about");
    await page.locator('.site-nav a[href="/about"]').click();
    await (await held).requested;
    await page.clock.runFor(190);
    (await held).release();
    await heading(page, "About Northwind Studio");
    // Long after: the bar's timer was cancelled by the arrival, not merely late.
    await page.clock.runFor(1000);
    expect(await page.evaluate(() => (window as Marked).barShown)).toBeUndefined();
    expect(await page.locator(".nav-progress").isHidden()).toBe(true);
    expect(await marker(page)).toBe(1);

    // The same page held past 200 ms: the bar appears (so the check above can see it).
    const late = holdFetch(page, "/pricing");
    await page.locator('.site-nav a[href="/pricing"]').click();
    await (await late).requested;
    await page.clock.runFor(210);
    expect(await page.locator(".nav-progress").getAttribute("data-state")).toBe("loading");
    expect(await page.evaluate(() => (window as Marked).barShown)).toBe(true);
    (await late).release();
    await heading(page, "Pricing");
    expect(page.errors).toEqual([]);
  });

  it("shows the progress bar for a slow page, completes it and hides it", async () => {
    const page = await open("/");
    await onFetch(page, "/pricing", delay(1000));
    const bar = page.locator(".nav-progress");
    expect(await bar.isHidden()).toBe(true);
    await page.locator('.site-nav a[href="/pricing"]').click();
    await bar.waitFor({ state: "visible" });
    expect(await bar.getAttribute("role")).toBe("progressbar");
    expect(await bar.getAttribute("aria-label")).toBe("Loading the page");
    expect(await bar.getAttribute("data-state")).toBe("loading");
    // Still the old page while the next one loads.
    expect(path(page)).toBe("/");
    await heading(page, "Pricing");
    expect(await bar.getAttribute("data-state")).toBe("done");
    await bar.waitFor({ state: "hidden" });
    expect(await marker(page)).toBe(1);
    await page.screenshot({ path: `${process.env.TMPDIR ?? "/tmp"}/navigation-after.png` });
    expect(page.errors).toEqual([]);
  });

  it("on the page clock: the bar runs up to 5,000 ms, hides 500 ms after completing, and shows and hides its failed state", async () => {
    const page = await open("/", WIDE, "no-preference", { clock: true });
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
    // Each change of the bar, stamped with the page's clock, reported through the console (which
    // still talks while the page is being replaced, when locators wait for the next one).
    const changes: string[] = [];
    page.on("console", (message) => {
      if (message.text().startsWith("bar ")) changes.push(message.text().slice(4));
    });
    await page.evaluate(() => {
      const bar = document.querySelector<HTMLElement>(".nav-progress");
      if (!bar) throw new Error("no progress bar");
      let start = 0;
      document.addEventListener("click", () => (start = Date.now()), true);
      new MutationObserver(() =>
        console.log(`bar ${bar.hidden ? "hidden" : bar.dataset.state} ${Date.now() - start}`),
      ).observe(bar, { attributes: true, attributeFilter: ["hidden", "data-state"] });
    });
    const bar = page.locator(".nav-progress");

    // Completed: a page held for 4.9 s (within the 5 s) is swapped in; the bar hides 500 ms later.
    const slow = holdFetch(page, "/pricing");
    await page.locator('.site-nav a[href="/pricing"]').click();
    await (await slow).requested;
    await page.clock.runFor(200);
    expect(await bar.isVisible()).toBe(true);
    // Its fill ends when the 5 s are up: shown at 200 ms, the animation is 5 s long and starts 200 ms in.
    const fillEnds = await bar.evaluate((element) => {
      const timing = element.getAnimations()[0]?.effect?.getComputedTiming();
      return 200 + Number(timing?.endTime);
    });
    expect(fillEnds).toBe(5000);
    await page.clock.runFor(4700);
    (await slow).release();
    await heading(page, "Pricing");
    await page.clock.runFor(499);
    expect(await bar.isVisible()).toBe(true);
    await page.clock.runFor(1);
    expect(await bar.isHidden()).toBe(true);
    expect(await marker(page)).toBe(1);
    expect(changes).toEqual(["loading 200", "done 4900", "hidden 5400"]);

    // Failed: no page within 5,000 ms. The normal load that follows gets "204 No Content", which leaves
    // the page on screen (Playwright cannot step the clock of a page being replaced), the failed bar on it.
    changes.length = 0;
    await holdFetch(page, "/about");
    let documentLoads = 0;
    await page.route(
      (url) => url.pathname === "/about",
      (route) => {
        if (route.request().resourceType() !== "document") return route.fallback();
        documentLoads++;
        return route.fulfill({ status: 204 });
      },
    );
    await page.locator('.site-nav a[href="/about"]').click();
    await page.clock.runFor(4999);
    expect(documentLoads).toBe(0);
    await page.clock.runFor(1);
    await expect.poll(() => documentLoads).toBe(1);
    expect(await bar.getAttribute("data-state")).toBe("failed");
    expect(await bar.isVisible()).toBe(true);
    await page.clock.runFor(499);
    expect(await bar.isVisible()).toBe(true);
    await page.clock.runFor(1);
    expect(await bar.isHidden()).toBe(true);
    expect(changes).toEqual(["loading 200", "failed 5000", "hidden 5500"]);
    expect(page.errors).toEqual([]);
  }, 30_000);

  it("gives up after 5 s and loads the page normally", async () => {
    const page = await open("/");
    await onFetch(page, "/about", delay(7000));
    let documentRequested = 0;
    page.on("request", (request) => {
      if (request.resourceType() === "document" && new URL(request.url()).pathname === "/about")
        documentRequested = Date.now();
    });
    const clicked = Date.now();
    await page.locator('.site-nav a[href="/about"]').click();
    const bar = page.locator(".nav-progress");
    await bar.waitFor({ state: "visible" });
    await page.waitForFunction(() => (window as Marked).navMarker === undefined, null, { timeout: 15_000 });
    await heading(page, "About Northwind Studio");
    expect(path(page)).toBe("/about");
    // Not before the 5 s (a lower bound only: the timer cannot fire early).
    expect(documentRequested - clicked).toBeGreaterThanOrEqual(4900);
    expect(page.errors).toEqual([]);
  }, 30_000);

  it("fades the content out and in, and not at all under prefers-reduced-motion", async () => {
    // Records the opacity animations main runs during one navigation.
    const fades = async (page: Page, href: string, title: string) => {
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as Marked & { fades?: string[] }).fades = seen;
        const main = document.getElementById("main") as HTMLElement;
        const record = () => {
          for (const animation of main.getAnimations())
            seen.push(`${main.className}:${animation.constructor.name}`);
        };
        new MutationObserver(record).observe(main, { attributes: true, attributeFilter: ["class"] });
      });
      await page.locator(`.site-nav a[href="${href}"]`).click();
      await heading(page, title);
      return page.evaluate(() => (window as Marked & { fades?: string[] }).fades ?? []);
    };
    const page = await open("/");
    expect(await fades(page, "/about", "About Northwind Studio")).toEqual(
      expect.arrayContaining(["nav-out:CSSTransition", "nav-in:CSSAnimation"]),
    );
    const calm = await open("/", WIDE, "reduce");
    expect(await fades(calm, "/about", "About Northwind Studio")).toEqual([]);
    expect(await marker(calm)).toBe(1);
  });

  it("back and forward restore each page's scroll position; a reload keeps it", async () => {
    const page = await open("/");
    await scrollTo(page, 700);
    await expect.poll(() => scrollY(page)).toBe(700);
    await page.locator('.site-nav a[href="/about"]').click();
    await heading(page, "About Northwind Studio");
    // A link goes to the top.
    await expect.poll(() => scrollY(page)).toBe(0);
    await scrollTo(page, 300);
    await expect.poll(() => scrollY(page)).toBe(300);

    await page.goBack();
    await heading(page, "Websites your team can keep up to date");
    await expect.poll(() => scrollY(page)).toBe(700);
    expect(path(page)).toBe("/");

    await page.goForward();
    await heading(page, "About Northwind Studio");
    await expect.poll(() => scrollY(page)).toBe(300);
    expect(await marker(page)).toBe(1);

    await page.reload();
    await heading(page, "About Northwind Studio");
    expect(await marker(page)).toBeUndefined();
    await expect.poll(() => scrollY(page)).toBe(300);

    // After the reload (a new document), back still swaps in place and restores.
    await mark(page);
    await page.goBack();
    await heading(page, "Websites your team can keep up to date");
    await expect.poll(() => scrollY(page)).toBe(700);
    expect(await marker(page)).toBe(1);
    expect(page.errors).toEqual([]);
  });

  it("a link with a fragment lands at its target on the new page", async () => {
    const about = await (await fetch(`${site.url}/about`)).text();
    const id = /id="(carousel-[^"]+-heading)"/.exec(about)?.[1];
    expect(id).toBeDefined();
    const page = await open("/");
    await clickNewLink(page, `/about#${id}`);
    await heading(page, "About Northwind Studio");
    expect(new URL(page.url()).hash).toBe(`#${id}`);
    expect(await marker(page)).toBe(1);
    await expect.poll(() => scrollY(page)).toBeGreaterThan(0);
    // The target sits just below the sticky header.
    const top = await page.locator(`[id="${id}"]`).evaluate((element) => element.getBoundingClientRect().top);
    const headerBottom = await page
      .locator("header.site-header")
      .evaluate((element) => element.getBoundingClientRect().bottom);
    expect(top).toBeGreaterThanOrEqual(headerBottom);
    expect(top).toBeLessThan(headerBottom + 100);
    expect(page.errors).toEqual([]);
  });

  it("a route that was never rendered shows the 404 page and keeps its URL", async () => {
    const page = await open("/about");
    await clickNewLink(page, "/no-such-page");
    await heading(page, NOT_FOUND);
    expect(path(page)).toBe("/no-such-page");
    expect(await marker(page)).toBe(1);
    expect(await page.locator('.site-nav a[aria-current="page"]').count()).toBe(0);
    // And back to where we were.
    await page.goBack();
    await heading(page, "About Northwind Studio");
    expect(await marker(page)).toBe(1);
    expect(page.errors).toEqual([]);
  });

  it("a 500 or 503 answer with the site's error page shows that page in place, URL kept", async () => {
    // The site's own error page (its look, scripts and stylesheet): the stored 404 page with
    // another message, as the servers answer when storage or content is down.
    const notFound = await (await fetch(`${site.url}/no-such-page`)).text();
    const errorPage = (status: number) =>
      notFound.replaceAll(NOT_FOUND, `Error ${status}: something went wrong on our side`);
    const page = await open("/about");
    for (const [status, target] of [
      [500, "/pricing"],
      [503, "/faq"],
    ] as const) {
      await onFetch(page, target, (route) =>
        route.fulfill({
          status,
          contentType: "text/html; charset=utf-8",
          headers: status === 503 ? { "retry-after": "30" } : {},
          body: errorPage(status),
        }),
      );
      await page.locator(`.site-nav a[href="${target}"]`).click();
      await heading(page, `Error ${status}: something went wrong`);
      // Swapped in place (the same document), at the URL asked for, so a reload tries it again.
      expect(await marker(page)).toBe(1);
      expect(path(page)).toBe(target);
      expect(await page.locator("main h1").count()).toBe(1);
    }
    // Back is the page that was there before.
    await page.goBack();
    await heading(page, "Error 500");
    await page.goBack();
    await heading(page, "About Northwind Studio");
    expect(page.errors).toEqual([]);
  });

  it("a failing fetch falls back to a normal page load", async () => {
    const page = await open("/");
    await onFetch(page, "/faq", (route) => route.abort("failed"));
    await page.locator('.site-nav a[href="/faq"]').click();
    await page.waitForFunction(() => (window as Marked).navMarker === undefined);
    await page.locator("main h1").waitFor();
    expect(path(page)).toBe("/faq");
    expect(await page.locator('.site-nav a[aria-current="page"]').textContent()).toBe("FAQ");
  });

  it("offline, a link keeps the page and says it needs a connection; back online the same click navigates", async () => {
    const page = await open("/");
    const context = page.context();
    // The entry has run (it marks <html data-consent>): the click and connection listeners are in place.
    await page.locator("html[data-consent]").waitFor({ state: "attached" });
    const home = await page.locator("main h1").textContent();
    const link = page.locator('.site-nav a[href="/about"]');
    const message = page.getByRole("status").filter({ hasText: LINK_OFFLINE });
    // Every text the offline notice is given: each one is an announcement.
    await page.evaluate(() => {
      const said: string[] = [];
      Object.assign(window, { said });
      new MutationObserver(() => {
        const text = document.querySelector(".offline-notice")?.textContent;
        if (text && text !== said.at(-1)) said.push(text);
        else if (!text && said.at(-1) !== "") said.push("");
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    const said = () => page.evaluate(() => (window as Window & { said?: string[] }).said?.filter(Boolean));

    await context.setOffline(true);
    await page.getByRole("status").filter({ hasText: OFFLINE }).waitFor();
    await link.click();
    // A normal load would have replaced this document with the browser's offline page.
    await message.waitFor({ timeout: 5000 });
    expect(await message.textContent()).toBe(LINK_OFFLINE);
    expect(await message.isVisible()).toBe(true);
    await page.screenshot({ path: `${process.env.TMPDIR ?? "/tmp"}/offline-link-1280.png` });
    expect(await marker(page)).toBe(1);
    expect(page.url()).toBe(`${site.url}/`);
    expect(await page.locator("main h1").textContent()).toBe(home);
    // The progress bar, if it showed, has gone (marked failed).
    await page.locator(".nav-progress").waitFor({ state: "hidden" });
    // A second try while still offline says it again (a fresh announcement), and still stays.
    await link.click();
    await expect.poll(said).toEqual([OFFLINE, LINK_OFFLINE, LINK_OFFLINE]);
    expect(await marker(page)).toBe(1);
    expect(page.url()).toBe(`${site.url}/`);

    await context.setOffline(false);
    await message.waitFor({ state: "detached" });
    await link.click();
    await heading(page, "About Northwind Studio");
    expect(path(page)).toBe("/about");
    expect(await marker(page)).toBe(1);
    expect(page.errors).toEqual([]);
  });

  it("offline, back keeps the page on screen and says so; it opens once the connection is back", async () => {
    const page = await open("/");
    const context = page.context();
    await page.locator('.site-nav a[href="/about"]').click();
    await heading(page, "About Northwind Studio");
    const message = page.getByRole("status").filter({ hasText: PAGE_OFFLINE });

    await context.setOffline(true);
    await page.goBack({ waitUntil: "commit" });
    await message.waitFor({ timeout: 5000 });
    expect(await marker(page)).toBe(1);
    expect(await page.locator("main h1").textContent()).toBe("About Northwind Studio");

    await context.setOffline(false);
    await heading(page, "Websites your team can keep up to date");
    expect(path(page)).toBe("/");
    expect(await marker(page)).toBe(1);
    expect(page.errors).toEqual([]);
  });

  it("a new deploy (another entry script) falls back to a normal page load", async () => {
    const page = await open("/");
    await onFetch(page, "/services", async (route) => {
      const response = await route.fetch();
      const body = (await response.text()).replace(/(src="\/assets\/js\/entry\.)[^"]+/, "$1NEWDEPLOY.js");
      await route.fulfill({ response, body });
    });
    await page.locator('.site-nav a[href="/services"]').click();
    await page.waitForFunction(() => (window as Marked).navMarker === undefined);
    await page.locator("main h1").waitFor();
    expect(path(page)).toBe("/services");
  });

  it("leaves alone what is not a page of this site: data-no-enhance, files, new tabs, same-page fragments", async () => {
    const page = await open("/");
    // A fragment of this page: the browser scrolls, the document stays.
    await clickNewLink(page, "#footer-explore");
    await expect.poll(() => scrollY(page)).toBeGreaterThan(0);
    expect(path(page)).toBe("/");
    expect(await marker(page)).toBe(1);
    await page.locator("#test-link").evaluate((element) => element.remove());

    // A new tab: this page stays as it is.
    const [popup] = await Promise.all([
      page.context().waitForEvent("page"),
      clickNewLink(page, "/about", { target: "_blank" }),
    ]);
    await popup.close();
    expect(path(page)).toBe("/");
    expect(await marker(page)).toBe(1);
    await page.locator("#test-link").evaluate((element) => element.remove());

    // Opted out: a normal load.
    await clickNewLink(page, "/about", { "data-no-enhance": "" });
    await page.waitForFunction(() => (window as Marked).navMarker === undefined);
    await heading(page, "About Northwind Studio");

    // A file: the browser opens it.
    await mark(page);
    await clickNewLink(page, "/robots.txt");
    await page.waitForURL(`${site.url}/robots.txt`);
    expect(await page.evaluate(() => document.contentType)).toBe("text/plain");
  });

  it("islands on the new page and in the new header hydrate; the mobile menu works after a swap", async () => {
    const page = await open("/about", NARROW);
    page.setDefaultTimeout(5000);
    const menu = page.locator('header [data-island="mobile-menu"]');
    // The menu wakes on its first tap (island-wake.ts), which opens it.
    await page.locator("summary.mobile-menu__toggle").click();
    await menu.and(page.locator("[data-hydrated]")).waitFor({ state: "attached" });
    const toggle = page.locator("button.mobile-menu__toggle");
    await page.locator("#mobile-menu-panel").getByRole("link", { name: "Contact" }).click();
    await heading(page, "Contact us");
    expect(await marker(page)).toBe(1);
    // The header was replaced: its menu is new server markup, closed, marking the page, and asleep
    // until tapped; the tap opens it and wakes the new island.
    expect(await menu.and(page.locator("[data-hydrated]")).count()).toBe(0);
    expect(await page.locator("details.mobile-menu__details").getAttribute("open")).toBeNull();
    await page.locator("summary.mobile-menu__toggle").click();
    await menu.and(page.locator("[data-hydrated]")).waitFor({ state: "attached" });
    await expect.poll(() => toggle.getAttribute("aria-expanded")).toBe("true");
    await page.locator("#mobile-menu-panel").waitFor();
    expect(await page.locator('#mobile-menu-panel a[aria-current="page"]').textContent()).toBe("Contact");
    await page.keyboard.press("Escape");
    await page.locator("#mobile-menu-panel").waitFor({ state: "hidden" });

    // The contact form on the new page.
    const form = page.locator('main [data-island="contact-form"]');
    await form.scrollIntoViewIfNeeded();
    await form.and(page.locator("[data-hydrated]")).waitFor({ state: "attached" });
    // And the carousel on the home page, reached by the brand link.
    await page.locator("header .brand").click();
    await heading(page, "Websites your team can keep up to date");
    const carousel = page.locator('main [data-island="carousel"]').first();
    await carousel.scrollIntoViewIfNeeded();
    await carousel.and(page.locator("[data-hydrated]")).waitFor({ state: "attached" });
    expect(await marker(page)).toBe(1);
    expect(page.errors).toEqual([]);
  });

  it("the cookie notice keeps working across pages swapped in: a choice after a swap holds, settings reopen it", async () => {
    // A first visit (a fresh context): the notice shows, live without React (browser/cookie-notice.ts).
    const page = await open("/", NARROW);
    page.setDefaultTimeout(5000);
    const notice = page.getByRole("complementary", { name: "Cookie notice" });
    await page.locator('[data-island="cookie-notice"][data-hydrated]').waitFor({ state: "attached" });
    await notice.getByRole("button", { name: "Accept" }).waitFor();
    await clickNewLink(page, "/about");
    await heading(page, "About Northwind Studio");
    expect(await marker(page)).toBe(1);
    // The same notice, still showing and live, once on the page; the first key press chooses.
    expect(await page.locator(".cookie-notice").count()).toBe(1);
    expect(await notice.isVisible()).toBe(true);
    await notice.getByRole("button", { name: "Decline" }).press("Enter");
    expect(await notice.isVisible()).toBe(false);
    expect(await page.evaluate(() => localStorage.getItem("pressroom:consent"))).toBe("declined");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    // The next page swapped in keeps it away.
    await clickNewLink(page, "/pricing");
    await heading(page, "Pricing");
    expect(await marker(page)).toBe(1);
    expect(await notice.isVisible()).toBe(false);
    // A link to the settings, followed in place, shows it again; the first click changes the choice.
    await clickNewLink(page, "/privacy#cookie-settings");
    await page.waitForURL(`${site.url}/privacy#cookie-settings`);
    await notice.waitFor({ state: "visible" });
    expect(await marker(page)).toBe(1);
    await notice.getByRole("button", { name: "Accept" }).click();
    expect(await notice.isVisible()).toBe(false);
    expect(await page.evaluate(() => localStorage.getItem("pressroom:consent"))).toBe("accepted");
    expect(page.errors).toEqual([]);
  });
});
