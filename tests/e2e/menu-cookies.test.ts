import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { hasChromium } from "./support/browser.ts";
import { type SiteFixture, siteInBrowser } from "./support/site.ts";

/**
 * The mobile menu and the cookie notice as visitors use them, on the built demo
 * site served by the real site server (its CSP included), and the tag manager
 * they control. The machine has no internet: page.route answers for
 * www.googletagmanager.com and counts the requests.
 * `UPDATE_SCREENSHOTS=1` writes docs/screenshots/{menu-open-390,cookie-notice-390,cookie-notice-1280}.png.
 */
const SCREENSHOTS = new URL("../../docs/screenshots/", import.meta.url).pathname;
const SETTINGS = JSON.parse(
  readFileSync(
    new URL("../../services/local-prismic/demo/documents/Z9nWsREAACUAx1Aa.json", import.meta.url),
    "utf8",
  ),
);
const CONTAINER = "GTM-TEST123";
const NARROW = { width: 390, height: 844 };
const WIDE = { width: 1280, height: 800 };

let site: SiteFixture;
let browser: Browser;

async function open(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  (page as Page & { errors: string[] }).errors = errors;
  await page.goto(`${site.url}${path}`);
  return page;
}

const errorsOf = (page: Page) => (page as Page & { errors: string[] }).errors;

/**
 * The island is live: React hydrated it and the view has re-rendered with its interactive parts.
 * The menu wakes on its first interaction (island-wake.ts): the caller has tapped or focused it.
 * The cookie notice is made live by the entry (no React), after load, while it shows.
 */
async function menuReady(page: Page): Promise<void> {
  await page.locator('[data-island="mobile-menu"][data-hydrated] button.mobile-menu__toggle').waitFor();
}

async function noticeReady(page: Page): Promise<void> {
  await page.locator('[data-island="cookie-notice"][data-hydrated]').waitFor({ state: "attached" });
  await page.getByRole("button", { name: "Accept" }).waitFor();
}

/** Counts requests for the container script; answers with a tiny script that marks the page. */
async function countTagManager(context: BrowserContext): Promise<string[]> {
  const requests: string[] = [];
  await context.route("https://www.googletagmanager.com/**", (route) => {
    requests.push(route.request().url());
    return route.fulfill({
      contentType: "text/javascript",
      body: "window.gtmRuns = (window.gtmRuns || 0) + 1;",
    });
  });
  return requests;
}

describe.skipIf(!hasChromium)("mobile menu, cookie notice and tag manager in the browser", () => {
  siteInBrowser({}, (fixture) => {
    ({ site, browser } = fixture);
  });

  it("the mobile menu by mouse at 390 px: opens, closes outside, closes after navigating", async () => {
    const context = await browser.newContext({ viewport: NARROW });
    const page = await open(context, "/");
    const toggle = page.locator("button.mobile-menu__toggle");
    const panel = page.locator("#mobile-menu-panel");
    // Only the menu on narrow screens; the header's own navigation is hidden.
    expect(await page.locator(".site-nav").isVisible()).toBe(false);
    // Asleep until touched: the server's closed <details>.
    expect(await page.locator('[data-island="mobile-menu"][data-hydrated]').count()).toBe(0);
    expect(await page.locator("details.mobile-menu__details").getAttribute("open")).toBeNull();

    // The first tap opens it and wakes the island, which keeps it open.
    await page.locator("summary.mobile-menu__toggle").click();
    await menuReady(page);
    expect(await toggle.getAttribute("aria-controls")).toBe("mobile-menu-panel");
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await panel.waitFor();
    expect(await panel.getByRole("link").allTextContents()).toEqual([
      "Services",
      "Care plans",
      "Pricing",
      "About",
      "FAQ",
      "Contact",
    ]);
    // The cookie notice (a first visit) has slid in: the picture shows the page at rest.
    await noticeReady(page);
    await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"));
    if (process.env.UPDATE_SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}menu-open-390.png` });
    await page.screenshot({ path: `${process.env.TMPDIR ?? "/tmp"}/menu-open-390.png` });

    // A click outside closes it (on the header between the brand and the button: nothing to follow there).
    await page.mouse.click(200, 36);
    await panel.waitFor({ state: "hidden" });
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(page.url()).toBe(`${site.url}/`);

    // The button toggles.
    await toggle.click();
    await panel.waitFor();
    await toggle.click();
    await panel.waitFor({ state: "hidden" });

    // Following a link closes it (whether the page is swapped in place or loaded): the new
    // header's menu is closed server markup again, marking the page shown.
    await toggle.click();
    await panel.getByRole("link", { name: "Pricing" }).click();
    await page.waitForURL(`${site.url}/pricing`);
    await page
      .locator('.mobile-menu__panel a[aria-current="page"]', { hasText: "Pricing" })
      .waitFor({ state: "attached" });
    expect(await page.locator(".mobile-menu__panel").isVisible()).toBe(false);
    expect(errorsOf(page)).toEqual([]);
    await context.close();
  }, 60_000);

  it("the mobile menu by keyboard: Enter and Space open, focus stays inside, Escape closes", async () => {
    const context = await browser.newContext({ viewport: NARROW });
    const page = await open(context, "/about");
    const toggle = page.locator("button.mobile-menu__toggle");
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
    const isToggleFocused = () =>
      page.evaluate(() => document.activeElement?.classList.contains("mobile-menu__toggle") ?? false);

    // Reach the button with Tab from the start of the page (skip link, brand, menu).
    await page.keyboard.press("Tab");
    for (let i = 0; i < 5 && !(await isToggleFocused()); i++) await page.keyboard.press("Tab");
    expect(await isToggleFocused()).toBe(true);
    // Focus woke it; the live button takes the focus over.
    await menuReady(page);
    expect(await isToggleFocused()).toBe(true);

    await page.keyboard.press("Enter");
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    const labels = ["Services", "Care plans", "Pricing", "About", "FAQ", "Contact"];
    for (const label of labels) {
      await page.keyboard.press("Tab");
      expect(await focused()).toBe(label);
    }
    // Past the last link, Tab wraps to the button; Shift+Tab from the button wraps to the last link.
    await page.keyboard.press("Tab");
    expect(await isToggleFocused()).toBe(true);
    await page.keyboard.press("Shift+Tab");
    expect(await focused()).toBe("Contact");
    await page.keyboard.press("Shift+Tab");
    expect(await focused()).toBe("FAQ");

    // Escape closes and gives focus back to the button.
    await page.keyboard.press("Escape");
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await isToggleFocused()).toBe(true);
    expect(await page.locator("#mobile-menu-panel").isVisible()).toBe(false);

    // Space opens it too; Escape again.
    await page.keyboard.press("Space");
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await page.keyboard.press("Escape");
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(errorsOf(page)).toEqual([]);
    await context.close();
  }, 60_000);

  it("without JavaScript the menu is a <details> disclosure", async () => {
    const context = await browser.newContext({ viewport: NARROW, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${site.url}/`);
    const summary = page.locator("summary.mobile-menu__toggle");
    await summary.click();
    await page.locator(".mobile-menu__panel").getByRole("link", { name: "FAQ" }).waitFor();
    expect(await page.locator("details.mobile-menu__details").getAttribute("open")).toBe("");
    // The cookie notice stays a plain notice after the footer, without buttons.
    expect(await page.locator(".cookie-notice").isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Accept" }).count()).toBe(0);
    await context.close();
  }, 60_000);

  it("the cookie notice: buttons once live, the choice is remembered on every page", async () => {
    for (const viewport of [WIDE, NARROW]) {
      const context = await browser.newContext({ viewport });
      const page = await open(context, "/");
      await noticeReady(page);
      const notice = page.getByRole("complementary", { name: "Cookie notice" });
      expect(await notice.isVisible()).toBe(true);
      // A banner at the bottom of the viewport until the visitor chooses.
      await expect
        .poll(async () => {
          const box = await notice.boundingBox();
          return box && Math.round(box.y + box.height);
        })
        .toBe(viewport.height);
      // The text links to the policy already: no second link to the same page.
      expect(await notice.getByRole("link", { name: "privacy policy" }).getAttribute("href")).toBe(
        "/privacy",
      );
      expect(await notice.getByRole("link", { name: "Cookie policy" }).count()).toBe(0);
      const name = `cookie-notice-${viewport.width}.png`;
      if (process.env.UPDATE_SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}${name}` });
      await page.screenshot({ path: `${process.env.TMPDIR ?? "/tmp"}/${name}` });

      // By mouse on the wide screen, by keyboard on the narrow one.
      if (viewport === WIDE) await page.getByRole("button", { name: "Accept" }).click();
      else await page.getByRole("button", { name: "Decline" }).press("Enter");
      await notice.waitFor({ state: "hidden" });
      // Focus leaves the vanished button for the main content, not the top of the document.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
      expect(await page.evaluate(() => localStorage.getItem("pressroom:consent"))).toBe(
        viewport === WIDE ? "accepted" : "declined",
      );
      // Another page (a full load): the notice stays hidden, and is never made live.
      const next = await open(context, "/faq");
      await next.locator('html[data-consent="accepted"], html[data-consent="declined"]').waitFor({
        state: "attached",
      });
      expect(await next.getByRole("complementary", { name: "Cookie notice" }).isVisible()).toBe(false);
      expect(await next.locator('[data-island="cookie-notice"][data-hydrated]').count()).toBe(0);
      // A link to the settings, followed in place by enhanced navigation, shows the notice again.
      await next.evaluate(() => {
        const link = Object.assign(document.createElement("a"), { href: "/privacy#cookie-settings" });
        link.textContent = "Cookie settings";
        document.getElementById("main")?.append(link);
      });
      await next.evaluate(() => Object.assign(window, { samePage: true }));
      await next.getByRole("link", { name: "Cookie settings" }).click();
      await next.waitForURL(`${site.url}/privacy#cookie-settings`);
      await next.getByRole("complementary", { name: "Cookie notice" }).waitFor({ state: "visible" });
      expect(await next.evaluate(() => (window as { samePage?: boolean }).samePage)).toBe(true);
      expect(errorsOf(page)).toEqual([]);
      expect(errorsOf(next)).toEqual([]);
      await context.close();
    }
  }, 60_000);

  it("the banner covers at most 12 % of a 390×844 screen, and Accept and Decline are equally prominent", async () => {
    for (const viewport of [NARROW, WIDE]) {
      const context = await browser.newContext({ viewport });
      // Every layout shift from the first byte, with what moved and whether the notice was live yet.
      await context.addInitScript(() => {
        const shifts: { time: number; value: number; sources: string[]; noticeLive: boolean }[] = [];
        (window as unknown as { shifts: typeof shifts }).shifts = shifts;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as (PerformanceEntry & {
            value: number;
            sources: { node: Node | null }[];
          })[])
            shifts.push({
              time: entry.startTime,
              value: entry.value,
              sources: entry.sources.map(({ node }) =>
                node instanceof Element
                  ? `${node.closest(".cookie-notice") ? "notice: " : ""}${node.tagName.toLowerCase()}.${[...node.classList].join(".")}`
                  : String(node?.nodeName),
              ),
              noticeLive: document.querySelector('[data-island="cookie-notice"][data-hydrated]') !== null,
            });
        }).observe({ type: "layout-shift", buffered: true });
      });
      const page = await open(context, "/");
      await noticeReady(page);
      const notice = page.getByRole("complementary", { name: "Cookie notice" });
      // Settled at the bottom (it slides in).
      await expect
        .poll(async () => {
          const box = await notice.boundingBox();
          return box && Math.round(box.y + box.height);
        })
        .toBe(viewport.height);
      const box = await notice.boundingBox();
      const share = ((box?.width ?? 0) * (box?.height ?? 0)) / (viewport.width * viewport.height);
      if (viewport === NARROW) expect(share).toBeLessThanOrEqual(0.12);
      // The whole text is there and readable: nothing clipped, nothing scrolled sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(viewport.width);
      expect(await notice.getByRole("link", { name: "privacy policy" }).isVisible()).toBe(true);
      // One look for both choices: same colours, border, type, and the same size.
      const looks = await Promise.all(
        ["Accept", "Decline"].map((name) =>
          notice.getByRole("button", { name }).evaluate((button) => {
            const style = getComputedStyle(button);
            const { width, height } = button.getBoundingClientRect();
            return {
              background: style.backgroundColor,
              color: style.color,
              border: `${style.borderTopWidth} ${style.borderTopStyle} ${style.borderTopColor}`,
              font: `${style.fontSize} ${style.fontWeight}`,
              width: Math.round(width),
              height: Math.round(height),
            };
          }),
        ),
      );
      expect(looks[0]).toEqual(looks[1]);
      // Targets of at least 24 × 24 px (WCAG 2.2, 2.5.8).
      expect(looks[0]?.height).toBeGreaterThanOrEqual(24);
      expect(looks[0]?.width).toBeGreaterThanOrEqual(24);
      // It slides in over the page and never reflows once shown (a layout shift Lighthouse counts).
      // A shift of the page's own content (the carousel starting) is printed, and held by the
      // carousel's own test.
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
      const shifts = await page.evaluate(
        () =>
          (
            window as unknown as {
              shifts: { time: number; value: number; sources: string[]; noticeLive: boolean }[];
            }
          ).shifts,
      );
      const noticeShifts = shifts.filter((shift) =>
        shift.sources.some((source) => source.startsWith("notice: ")),
      );
      expect(noticeShifts, JSON.stringify(shifts)).toEqual([]);
      if (shifts.length > 0)
        console.log(`layout shifts of the page, not the notice: ${JSON.stringify(shifts)}`);
      console.log(
        `cookie notice at ${viewport.width} px: ${box?.height} px tall, ${(share * 100).toFixed(1)} % of the screen`,
      );
      await context.close();
    }
  }, 60_000);

  it("covers no link, button or field of the home page's first screen, at 1280×800 and 390×844", async () => {
    for (const viewport of [WIDE, NARROW]) {
      const context = await browser.newContext({ viewport });
      const page = await open(context, "/");
      await noticeReady(page);
      const notice = page.getByRole("complementary", { name: "Cookie notice" });
      await expect
        .poll(async () => {
          const box = await notice.boundingBox();
          return box && Math.round(box.y + box.height);
        })
        .toBe(viewport.height);
      await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"));
      // Every interactive element at least partly on the first screen (outside the notice), and
      // those the notice's box overlaps.
      const { onScreen, covered } = await page.evaluate(() => {
        const box = document.querySelector(".cookie-notice")?.getBoundingClientRect();
        const interactive = document.querySelectorAll(
          "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])",
        );
        const describe = (element: Element) =>
          `${element.tagName.toLowerCase()} "${element.textContent?.trim().replace(/\s+/g, " ") ?? ""}"`;
        const onScreen: string[] = [];
        const covered: string[] = [];
        for (const element of interactive) {
          if (element.closest(".cookie-notice")) continue;
          const r = element.getBoundingClientRect();
          if (r.width === 0 || r.height === 0 || getComputedStyle(element).visibility === "hidden") continue;
          if (r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
          onScreen.push(describe(element));
          if (box && r.bottom > box.top && r.top < box.bottom && r.right > box.left && r.left < box.right)
            covered.push(describe(element));
        }
        return { onScreen, covered };
      });
      expect(covered, `at ${viewport.width}×${viewport.height}`).toEqual([]);
      // The hero's two buttons are on the first screen, and a click at their centre reaches them.
      const buttons = page.locator(".hero__actions .button");
      expect(await buttons.count()).toBe(2);
      for (const button of await buttons.all()) {
        expect(onScreen).toContain(
          await button.evaluate(
            (b) => `${b.tagName.toLowerCase()} "${b.textContent?.trim().replace(/\s+/g, " ") ?? ""}"`,
          ),
        );
        const reached = await button.evaluate((b) => {
          const r = b.getBoundingClientRect();
          return b.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
        });
        expect(reached, `${await button.textContent()} at ${viewport.width}×${viewport.height}`).toBe(true);
      }
      expect(errorsOf(page)).toEqual([]);
      await context.close();
    }
  }, 60_000);

  describe("with a tag manager container in the settings", () => {
    beforeAll(async () => {
      await site.publishAndRebuild([{ ...SETTINGS, data: { ...SETTINGS.data, tag_manager_id: CONTAINER } }]);
    }, 120_000);

    it("loads it only after Accept, on later pages too, and not after Decline", async () => {
      const context = await browser.newContext({ viewport: WIDE });
      const requests = await countTagManager(context);
      const page = await open(context, "/");
      expect(await page.locator('meta[name="pressroom:tag-manager"]').getAttribute("content")).toBe(
        CONTAINER,
      );
      await noticeReady(page);
      await page.locator('html[data-tag-manager="waiting"]').waitFor({ state: "attached" });
      expect(requests).toEqual([]);

      await page.getByRole("button", { name: "Accept" }).click();
      await expect.poll(() => requests.length).toBe(1);
      expect(requests[0]).toBe(`https://www.googletagmanager.com/gtm.js?id=${CONTAINER}`);
      // The script ran (the CSP allows its host) after our bundle set up the dataLayer.
      await expect.poll(() => page.evaluate(() => (window as { gtmRuns?: number }).gtmRuns)).toBe(1);
      expect(
        await page.evaluate(
          () => (window as unknown as { dataLayer: { event?: string }[] }).dataLayer[0]?.event,
        ),
      ).toBe("gtm.js");

      // Every later page loads it at once.
      const next = await open(context, "/about");
      await expect.poll(() => requests.length).toBe(2);
      await expect.poll(() => next.evaluate(() => (window as { gtmRuns?: number }).gtmRuns)).toBe(1);

      // The visitor changes their mind (a link to #cookie-settings shows the notice again) and declines.
      const privacy = await open(context, "/privacy#cookie-settings");
      await noticeReady(privacy);
      expect(requests).toHaveLength(3);
      await privacy.getByRole("button", { name: "Decline" }).click();
      // From the next page on, no tag manager.
      const after = await open(context, "/services");
      await after.locator('html[data-tag-manager="waiting"]').waitFor({ state: "attached" });
      expect(requests).toHaveLength(3);
      expect(await after.evaluate(() => (window as { gtmRuns?: number }).gtmRuns)).toBeUndefined();
      for (const p of [page, next, privacy, after]) expect(errorsOf(p)).toEqual([]);
      await context.close();
    }, 60_000);

    it("counts pages swapped in by in-place navigation: a page_view in the dataLayer with path and title", async () => {
      const context = await browser.newContext({ viewport: WIDE });
      await countTagManager(context);
      await context.addInitScript(() => localStorage.setItem("pressroom:consent", "accepted"));
      const page = await open(context, "/");
      await page.locator('html[data-tag-manager="loaded"]').waitFor({ state: "attached" });
      await page.evaluate(() => {
        (window as { samePage?: boolean }).samePage = true;
      });
      const views = () =>
        page.evaluate(() =>
          (window as unknown as { dataLayer: { event?: string }[] }).dataLayer.filter(
            (entry) => entry.event === "page_view",
          ),
        );
      expect(await views()).toEqual([]);
      await page.locator('.site-nav a[href="/about"]').click();
      await page.locator("main h1", { hasText: "About Northwind Studio" }).waitFor();
      await page.locator('.site-nav a[href="/pricing"]').click();
      await page.locator("main h1", { hasText: "Pricing" }).waitFor();
      await page.goBack();
      await page.locator("main h1", { hasText: "About Northwind Studio" }).waitFor();
      // In place (the same document), and each page the visitor saw is counted once, in order.
      expect(await page.evaluate(() => (window as { samePage?: boolean }).samePage)).toBe(true);
      const seen = await views();
      expect(seen.map((view) => (view as { page_path?: string }).page_path)).toEqual([
        "/about",
        "/pricing",
        "/about",
      ]);
      expect(seen[1]).toEqual({
        event: "page_view",
        page_path: "/pricing",
        page_title: expect.stringContaining("Pricing"),
        page_location: `${site.url}/pricing`,
      });
      expect(errorsOf(page)).toEqual([]);
      await context.close();
    }, 60_000);

    it("never loads it with Do Not Track (navigator.doNotTrack) or Global Privacy Control", async () => {
      // The DNT request header alone does not set navigator.doNotTrack in Chromium, so an init
      // script defines it the way a browser with Do Not Track switched on reports it.
      for (const init of [
        () => Object.defineProperty(Navigator.prototype, "doNotTrack", { get: () => "1" }),
        () => Object.defineProperty(Navigator.prototype, "globalPrivacyControl", { get: () => true }),
      ]) {
        const context = await browser.newContext({ viewport: WIDE, extraHTTPHeaders: { DNT: "1" } });
        await context.addInitScript(init);
        const requests = await countTagManager(context);
        const page = await open(context, "/");
        expect(await page.locator('meta[name="pressroom:tag-manager"]').getAttribute("content")).toBe(
          CONTAINER,
        );
        await noticeReady(page);
        await page.getByRole("button", { name: "Accept" }).click();
        const next = await open(context, "/about");
        // The tag manager's rules ran and said no.
        await next.locator('html[data-tag-manager="off"]').waitFor({ state: "attached" });
        expect(await next.evaluate(() => localStorage.getItem("pressroom:consent"))).toBe("accepted");
        expect(requests).toEqual([]);
        await context.close();
      }
    }, 60_000);

    it("without a cookie notice, loads it unless Do Not Track", async () => {
      await site.publishAndRebuild([
        { ...SETTINGS, data: { ...SETTINGS.data, tag_manager_id: CONTAINER, cookie_notice_text: [] } },
      ]);
      const context = await browser.newContext({ viewport: WIDE });
      const requests = await countTagManager(context);
      const page = await open(context, "/");
      expect(await page.locator('[data-island="cookie-notice"]').count()).toBe(0);
      await expect.poll(() => requests.length).toBe(1);
      await context.close();

      const dnt = await browser.newContext({ viewport: WIDE });
      await dnt.addInitScript(() =>
        Object.defineProperty(Navigator.prototype, "doNotTrack", { get: () => "1" }),
      );
      const none = await countTagManager(dnt);
      const quiet = await open(dnt, "/");
      await quiet.locator('html[data-tag-manager="off"]').waitFor({ state: "attached" });
      expect(none).toEqual([]);
      await dnt.close();
    }, 120_000);
  });
});
