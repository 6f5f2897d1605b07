import { readFileSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { CHROMIUM_ARGS } from "#scripts/chromium.ts";
import { CHROMIUM, hasChromium } from "./support/browser.ts";
import { type SiteFixture, siteInBrowser } from "./support/site.ts";

/**
 * The home page's carousel (4 slides, autoplay, infinite) as visitors meet it: the built demo
 * site on the real site server (CSP included), Swiper started by the island. Autoplay moves
 * every 3 s, so "does not move" is checked over more than two delays, and "moves" by polling; the
 * tests marked "page clock" move the page's timers on with Playwright's clock instead of waiting
 * them out (one test, the first, autoplays in real time).
 * `UPDATE_SCREENSHOTS=1` writes docs/screenshots/carousel-controls-{390,1280}.png (the carousel section,
 * still, its buttons shown); the whole home page is home-{390,1280}.png (`npm run screenshots`).
 */
const HOME = JSON.parse(
  readFileSync(
    new URL("../../services/local-prismic/demo/documents/Z9nWtBEAACQAx1Bb.json", import.meta.url),
    "utf8",
  ),
);
const SCREENSHOTS = new URL("../../docs/screenshots/", import.meta.url).pathname;
const DELAY = 3000;
/** Longer than two autoplay delays: a carousel that should be still has had every chance to move. */
const STILL_FOR = 2 * DELAY + 1500;
const POLL = { timeout: 4 * DELAY, intervals: [100] };

let site: SiteFixture;
let browser: Browser;

interface Visit {
  context: BrowserContext;
  page: Page;
  /** Console errors and warnings (hydration mismatches are reported there), uncaught errors. */
  problems: string[];
}

async function visitHome(options: { reducedMotion?: "reduce"; clock?: boolean } = {}): Promise<Visit> {
  const { clock, ...contextOptions } = options;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
  const page = await context.newPage();
  // The page's timers on the test's clock (it runs until paused; runFor moves it on).
  if (clock) await page.clock.install();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
  });
  await page.goto(`${site.url}/`);
  await page.locator('[data-island="carousel"]').scrollIntoViewIfNeeded();
  // Hydrated by React, and Swiper running on the server's list.
  await page
    .locator('[data-island="carousel"][data-hydrated] .carousel__viewport.swiper-initialized')
    .waitFor();
  return { context, page, problems };
}

/** Swiper has finished moving (its transitions run in real time, not on the page's clock). */
const settled = (page: Page) =>
  page.waitForFunction(
    () =>
      !(document.querySelector(".carousel__viewport") as unknown as { swiper?: { animating: boolean } })
        ?.swiper?.animating,
  );

/**
 * The carousel live and laid out as it stays: its buttons shown, Swiper started with the list's
 * padding on its viewport, no transition or animation running in it, Swiper not moving, and two
 * animation frames since, so that Swiper's first ResizeObserver report (handled in an animation
 * frame) is behind. With Playwright's clock installed, call it while the clock runs: the page's
 * animation frames are on that clock.
 */
async function live(page: Page): Promise<void> {
  await page.locator('[data-island="carousel"][data-hydrated] .carousel__controls').first().waitFor();
  await page.waitForFunction(() => {
    const viewport = document.querySelector(".carousel__viewport.swiper-initialized");
    return (
      viewport !== null &&
      Number.parseFloat(getComputedStyle(viewport).paddingLeft) > 0 &&
      viewport.getAnimations({ subtree: true }).length === 0
    );
  });
  await settled(page);
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
}

/** Frames sampled once the carousel is live (Swiper started, its buttons shown): ~500 ms at 60 Hz. */
const LIVE_FRAMES = 30;

/** What the page painted while the carousel went live (see `watchStart`). */
interface StartRecord {
  /** When the island began to wake (data-hydrating: its chunks requested), on the page's clock. */
  wokeAt: number | null;
  /** Every layout shift of the page, when, and the elements that moved. */
  shifts: { startTime: number; value: number; sources: string[] }[];
  /** Each sampled frame in which a button covered a slide's image or caption on screen. */
  overlaps: string[];
  /** Frames sampled with the carousel live. */
  liveFrames: number;
  done: boolean;
}

/**
 * Loads the home page and records, from before the page's own scripts run until LIVE_FRAMES
 * frames after Swiper has started and the buttons are shown: when the carousel island began to
 * wake, every layout shift (a buffered PerformanceObserver, flushed at the end) and, on every
 * animation frame, each button that overlaps a slide's image or caption on screen. The carousel is
 * scrolled into view as soon as the document is parsed, so it wakes and Swiper starts on screen,
 * where a shift counts. Counted in frames, never in time: a slow machine only takes longer.
 */
async function watchStart(
  chrome: Browser,
  {
    width,
    height,
    reducedMotion,
  }: { width: number; height: number; reducedMotion: "reduce" | "no-preference" },
): Promise<StartRecord> {
  const context = await chrome.newContext({ viewport: { width, height }, reducedMotion });
  const page = await context.newPage();
  await page.addInitScript((frames: number) => {
    interface LayoutShift extends PerformanceEntry {
      value: number;
      sources: { node: Node | null }[];
    }
    const record: StartRecord = { wokeAt: null, shifts: [], overlaps: [], liveFrames: 0, done: false };
    (window as unknown as { carouselStart: StartRecord }).carouselStart = record;
    const name = (node: Node | null) =>
      node instanceof Element
        ? [node.tagName.toLowerCase(), ...node.classList].join(".")
        : String(node?.nodeName);
    const keep = (entries: PerformanceEntryList) => {
      for (const entry of entries as LayoutShift[])
        record.shifts.push({
          startTime: entry.startTime,
          value: entry.value,
          sources: entry.sources.map((source) => name(source.node)),
        });
    };
    const observer = new PerformanceObserver((list) => keep(list.getEntries()));
    observer.observe({ type: "layout-shift", buffered: true });
    new MutationObserver((_, waking) => {
      if (!document.querySelector('[data-island="carousel"]:is([data-hydrating], [data-hydrated])')) return;
      record.wokeAt = performance.now();
      waking.disconnect();
    }).observe(document, { subtree: true, attributeFilter: ["data-hydrating", "data-hydrated"] });
    document.addEventListener("DOMContentLoaded", () =>
      document.querySelector("section.carousel")?.scrollIntoView({ block: "center" }),
    );
    const overlaps = (a: DOMRect, b: DOMRect) =>
      a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const frame = () => {
      const section = document.querySelector("section.carousel");
      const buttons = [...(section?.querySelectorAll(".carousel__button") ?? [])];
      if (buttons.length > 0 && section?.querySelector(".carousel__viewport.swiper-initialized")) {
        record.liveFrames += 1;
        const content = [...section.querySelectorAll(".carousel__image, .carousel__caption")]
          .map((element) => ({ element, box: element.getBoundingClientRect() }))
          .filter(({ box }) => box.right > 0 && box.left < window.innerWidth && box.width > 0);
        for (const button of buttons) {
          const box = button.getBoundingClientRect();
          for (const covered of content.filter((item) => overlaps(box, item.box)))
            record.overlaps.push(
              `frame ${record.liveFrames}: "${button.getAttribute("aria-label")}" (${Math.round(box.left)},${Math.round(box.top)}) over ${name(covered.element)} "${covered.element.textContent?.trim().slice(0, 30) ?? ""}" (${Math.round(covered.box.left)}..${Math.round(covered.box.right)}, ${Math.round(covered.box.top)}..${Math.round(covered.box.bottom)})`,
            );
        }
      }
      if (record.liveFrames < frames) {
        requestAnimationFrame(frame);
        return;
      }
      keep(observer.takeRecords());
      observer.disconnect();
      record.done = true;
    };
    requestAnimationFrame(frame);
  }, LIVE_FRAMES);
  await page.goto(`${site.url}/`);
  await page.waitForFunction(() => (window as unknown as { carouselStart: StartRecord }).carouselStart.done);
  const record = await page.evaluate(
    () => (window as unknown as { carouselStart: StartRecord }).carouselStart,
  );
  await context.close();
  return record;
}

/** The active slide as Swiper's A11y module labels it for screen readers: "2 of 4". */
const active = (page: Page) =>
  page.locator(".carousel__slide.swiper-slide-active").first().getAttribute("aria-label");

/**
 * One autoplay delay on the page's clock, then Swiper's slide transition (300 ms, in real time: CSS
 * transitions are not on the clock) to its end.
 */
async function autoplayOnce(page: Page): Promise<void> {
  await page.clock.runFor(DELAY + 100);
  await page.waitForTimeout(50);
  await settled(page);
}

describe.skipIf(!hasChromium)("the carousel island", () => {
  siteInBrowser({}, (fixture) => {
    ({ site, browser } = fixture);
  });

  it("hydrates cleanly and autoplays without input", async () => {
    const { context, page, problems } = await visitHome();
    await page.mouse.move(1, 1);
    expect(await active(page)).toBe("1 of 4");
    await expect.poll(() => active(page), POLL).toBe("2 of 4");
    // Swiper moved the very list the server rendered: four slides, in a labelled carousel.
    expect(await page.locator(".carousel__slide").count()).toBe(4);
    // Still a list of list items (axe checks the page in tests/e2e/axe.test.ts), each labelled.
    expect(await page.getByRole("list", { name: "Recent work: slides" }).getByRole("listitem").count()).toBe(
      4,
    );
    expect(await page.locator(".carousel__slide").first().getAttribute("aria-roledescription")).toBe("slide");
    expect(problems).toEqual([]);
    await context.close();
  }, 30_000);

  it("pauses while the pointer is over it and goes on when it leaves (page clock)", async () => {
    const { context, page, problems } = await visitHome({ clock: true });
    await page.locator(".carousel__viewport").hover();
    const held = await active(page);
    await page.clock.runFor(STILL_FOR);
    expect(await active(page)).toBe(held);
    await page.mouse.move(1, 1);
    await page.clock.runFor(DELAY + 500);
    await expect.poll(() => active(page), POLL).not.toBe(held);
    expect(problems).toEqual([]);
    await context.close();
  }, 40_000);

  it("wraps around when the slice is infinite: after the last slide comes the first (page clock)", async () => {
    const { context, page } = await visitHome({ clock: true });
    await page.mouse.move(1, 1);
    for (const slide of ["2 of 4", "3 of 4", "4 of 4", "1 of 4"]) {
      await autoplayOnce(page);
      await expect.poll(() => active(page), POLL).toBe(slide);
    }
    // The first slide is back in view, where the last one was.
    const first = page.locator('.carousel__slide[aria-label="1 of 4"]');
    const viewport = await page.locator(".carousel__viewport").boundingBox();
    await expect
      .poll(async () => ((await first.boundingBox())?.x ?? -1) - (viewport?.x ?? 0), POLL)
      .toBeGreaterThan(0);
    await context.close();
  }, 40_000);

  it("does not autoplay under prefers-reduced-motion, and still moves by keyboard and by dragging (page clock)", async () => {
    const { context, page, problems } = await visitHome({ reducedMotion: "reduce", clock: true });
    await page.mouse.move(1, 1);
    await page.clock.runFor(STILL_FOR);
    expect(await active(page)).toBe("1 of 4");

    await page.locator(".carousel__track").focus();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => active(page), POLL).toBe("2 of 4");
    // Past the 500 ms throttle between slide changes (a lower bound: timers never fire early).
    await settled(page);
    await page.clock.runFor(1000);
    await page.keyboard.press("ArrowLeft");
    await expect.poll(() => active(page), POLL).toBe("1 of 4");

    // A swipe (Swiper takes mouse drags like touches): right to left goes forward.
    const box = await page.locator(".carousel__viewport").boundingBox();
    if (!box) throw new Error("no carousel box");
    const y = box.y + box.height / 3;
    await page.mouse.move(box.x + box.width * 0.6, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.2, y, { steps: 12 });
    await page.mouse.up();
    await expect.poll(() => active(page), POLL).toBe("2 of 4");
    expect(problems).toEqual([]);
    await context.close();
  }, 40_000);

  it("has pause/play, previous and next buttons once live; pause holds it, play goes on (page clock)", async () => {
    const { context, page, problems } = await visitHome({ clock: true });
    const pause = page.getByRole("button", { name: "Pause the slides" });
    const previous = page.getByRole("button", { name: "Previous slide" });
    const next = page.getByRole("button", { name: "Next slide" });
    for (const button of [pause, previous, next]) expect(await button.isVisible()).toBe(true);
    // Not in the server's markup: without a script there would be nothing to run them.
    const served = await (await fetch(`${site.url}/`)).text();
    expect(served).not.toContain("carousel__controls");

    await pause.click();
    await page.mouse.move(1, 1);
    const play = page.getByRole("button", { name: "Play the slides" });
    await play.waitFor();
    const held = await active(page);
    // Five autoplay delays on the page's clock: it does not move.
    await page.clock.runFor(5 * DELAY);
    expect(await active(page)).toBe(held);

    // Mouse users: previous and next.
    await next.click();
    await expect.poll(() => active(page), POLL).not.toBe(held);
    const moved = await active(page);
    await settled(page);
    await page.clock.runFor(600);
    await previous.click();
    await expect.poll(() => active(page), POLL).toBe(held);
    // Keyboard users: Tab reaches the buttons, Enter presses them.
    await settled(page);
    await page.clock.runFor(600);
    await next.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => active(page), POLL).toBe(moved);

    await settled(page);
    await play.click();
    await page.mouse.move(1, 1);
    await pause.waitFor();
    await page.clock.runFor(DELAY + 500);
    await expect.poll(() => active(page), POLL).not.toBe(moved);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("its buttons cover no content at 390 and 1280 px: no slide, no caption, not the peeking next slide", async () => {
    for (const [width, height] of [
      [390, 844],
      [1280, 900],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height }, reducedMotion: "reduce" });
      const page = await context.newPage();
      await page.goto(`${site.url}/`);
      const section = page.locator("section.carousel").first();
      await section.scrollIntoViewIfNeeded();
      // Measured where the buttons stay (every frame before is the next test's business). Images
      // need not be in: each keeps its 16:9 box while it loads (the 4th, lazy and off screen, never does).
      await live(page);
      const buttons = await section
        .locator(".carousel__button")
        .evaluateAll((elements) =>
          elements.map((element) => element.getBoundingClientRect().toJSON() as DOMRect),
        );
      // Everything a visitor sees of the slides: each slide's image and caption on screen.
      const content = await section
        .locator(".carousel__image, .carousel__caption")
        .evaluateAll((elements) =>
          elements
            .map((element) => element.getBoundingClientRect().toJSON() as DOMRect)
            .filter((box) => box.right > 0 && box.left < window.innerWidth && box.width > 0),
        );
      const sectionBox = (await section.boundingBox()) as {
        x: number;
        y: number;
        width: number;
        height: number;
      };
      expect(buttons).toHaveLength(3);
      expect(content.length).toBeGreaterThanOrEqual(3); // the first slide, its caption, the next slide peeking
      const overlaps = (a: DOMRect, b: DOMRect) =>
        a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      for (const button of buttons) {
        expect(
          content.filter((box) => overlaps(button, box)),
          `${width} px`,
        ).toEqual([]);
        // Inside the carousel's own band, on screen.
        expect(button.top).toBeGreaterThanOrEqual(sectionBox.y);
        expect(button.bottom).toBeLessThanOrEqual(sectionBox.y + sectionBox.height);
        expect(button.right).toBeLessThanOrEqual(width);
        expect(button.width).toBeGreaterThanOrEqual(44);
      }
      const name = `carousel-controls-${width}.png`;
      await page.mouse.move(1, 1);
      if (process.env.UPDATE_SCREENSHOTS) await section.screenshot({ path: `${SCREENSHOTS}${name}` });
      await section.screenshot({ path: `${process.env.TMPDIR ?? "/tmp"}/${name}` });
      await context.close();
    }
  }, 60_000);

  it("goes live without a layout shift, its buttons on no content in any frame (390 and 1280 px, overlay and classic scrollbars)", async () => {
    // The padding Swiper's viewport takes on must not be transitioned from 0 under reduced motion,
    // and classic scrollbars must not lose the list's scrollbar when Swiper starts: either moves the
    // page. Playwright hides scrollbars (overlay, as on phones); a second Chromium shows them.
    const classic = await chromium.launch({
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      ignoreDefaultArgs: ["--hide-scrollbars"],
    });
    try {
      for (const [scrollbars, chrome] of [
        ["overlay scrollbars", browser],
        ["classic scrollbars", classic],
      ] as const) {
        for (const [width, height, reducedMotion] of [
          [390, 844, "reduce"],
          [1280, 900, "reduce"],
          [1280, 900, "no-preference"],
        ] as const) {
          const record = await watchStart(chrome, { width, height, reducedMotion });
          const what = `${width} px, ${scrollbars}, ${reducedMotion}`;
          // Soft: a failure reports every case, overlaps and shifts.
          expect.soft(record.liveFrames, what).toBe(LIVE_FRAMES);
          expect.soft(record.overlaps, what).toEqual([]);
          // Nothing on the page moves from the island's wake on: a score is 0 exactly when no
          // visible element moved. Shifts before the wake are the page loading, not the carousel's.
          expect.soft(record.wokeAt, what).not.toBeNull();
          const woke = record.wokeAt ?? 0;
          expect
            .soft(
              record.shifts.filter((shift) => shift.startTime >= woke),
              what,
            )
            .toEqual([]);
        }
      }
    } finally {
      await classic.close();
    }
  }, 90_000);

  it("starts paused under prefers-reduced-motion, with a play button that starts it", async () => {
    const { context, page, problems } = await visitHome({ reducedMotion: "reduce", clock: true });
    await page.mouse.move(1, 1);
    const play = page.getByRole("button", { name: "Play the slides" });
    await play.waitFor();
    await page.clock.runFor(3 * DELAY);
    expect(await active(page)).toBe("1 of 4");
    await play.click();
    await page.mouse.move(1, 1);
    await page.getByRole("button", { name: "Pause the slides" }).waitFor();
    await page.clock.runFor(DELAY + 500);
    await expect.poll(() => active(page), POLL).toBe("2 of 4");
    expect(problems).toEqual([]);
    await context.close();
  }, 40_000);

  it("ignores a second move within 500 ms of a slide change (page clock)", async () => {
    const { context, page, problems } = await visitHome({ reducedMotion: "reduce", clock: true });
    await page.mouse.move(1, 1);
    const next = page.getByRole("button", { name: "Next slide" });
    // Swiper done starting before the clock stops: a resize it still owed would be handled on the
    // page's clock, in the middle of the moves below.
    await live(page);
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
    await next.click();
    expect(await active(page)).toBe("2 of 4");
    await next.click();
    await page.clock.runFor(499);
    await page.locator(".carousel__track").focus();
    await page.keyboard.press("ArrowRight");
    expect(await active(page)).toBe("2 of 4");
    await page.clock.runFor(1);
    await page.keyboard.press("ArrowRight");
    expect(await active(page)).toBe("3 of 4");
    await page.clock.runFor(500);
    await next.click();
    expect(await active(page)).toBe("4 of 4");
    expect(problems).toEqual([]);
    await context.close();
  }, 40_000);

  it("turns a slide for a drag of 50 px or more, however slow, and not for a shorter one, however quick", async () => {
    const { context, page, problems } = await visitHome({ reducedMotion: "reduce" });
    const box = await page.locator(".carousel__viewport").boundingBox();
    if (!box) throw new Error("no carousel box");
    const y = box.y + box.height / 2;
    const drag = async (distance: number, { holdMs = 0 } = {}) => {
      const x = box.x + box.width * 0.6;
      await page.mouse.move(x, y);
      await page.mouse.down();
      if (holdMs) await page.waitForTimeout(holdMs);
      await page.mouse.move(x - distance, y, { steps: holdMs ? 10 : 2 });
      await page.mouse.up();
      await page.mouse.move(1, 1);
    };
    // A quick flick of 40 px (Swiper's own rule would take any quick swipe): the slide stays.
    await drag(40);
    await page.waitForTimeout(600); // longer than a slide's 300 ms transition: it must not have moved
    expect(await active(page)).toBe("1 of 4");
    // A slow drag of 60 px (Swiper's own rule would want half a slide, 300+ px): the next slide.
    await drag(60, { holdMs: 400 });
    await expect.poll(() => active(page), POLL).toBe("2 of 4");
    expect(problems).toEqual([]);
    await context.close();
  }, 40_000);

  it("works as a scrolling list before (and without) JavaScript", async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      javaScriptEnabled: false,
    });
    const page = await context.newPage();
    await page.goto(`${site.url}/`);
    const track = page.locator(".carousel__track");
    expect(await page.locator(".carousel__slide").count()).toBe(4);
    expect(await track.evaluate((el) => getComputedStyle(el).scrollSnapType)).toBe("x mandatory");
    expect(await track.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await context.close();
  });

  it("leaves the slides where the server put them once Swiper runs (no layout change)", async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      javaScriptEnabled: false,
    });
    const before = await context.newPage();
    await before.goto(`${site.url}/`);
    const place = (page: Page) =>
      // The first slide by its image: in loop mode Swiper may move the last slide in front of it.
      page.locator('.carousel__slide:has(img[src*="work-harbor-coffee"])').evaluate((el) => {
        const { x, width } = el.getBoundingClientRect();
        const island = el.closest("[data-island]")?.getBoundingClientRect().height ?? 0;
        return { x: Math.round(x), width: Math.round(width), island: Math.round(island) };
      });
    const server = await place(before);
    await context.close();
    const { context: running, page } = await visitHome({ reducedMotion: "reduce" });
    // Where Swiper leaves the slides; every frame on the way is checked by "goes live without a
    // layout shift" (a read here once landed on the frame the old reduced-motion rule painted with
    // the viewport's padding at 0).
    await live(page);
    expect(await place(page)).toEqual(server);
    await running.close();
  });

  it("is unmounted and started again by enhanced navigation, without errors", async () => {
    const { context, page, problems } = await visitHome();
    await page.mouse.move(1, 1);
    await page.evaluate(() => {
      (window as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    // To /about (its own carousel, no autoplay) in place, then back.
    await page.locator('header a[href="/about"]').first().click();
    await page.waitForURL(/\/about$/);
    await page.locator("h1", { hasText: "About Northwind Studio" }).waitFor();
    await page.locator('[data-island="carousel"]').scrollIntoViewIfNeeded();
    await page.locator('[data-island="carousel"][data-hydrated] .swiper-initialized').waitFor();
    expect(await page.locator(".carousel__slide").count()).toBe(3);
    await page.goBack();
    await page.waitForURL(/\/$/);
    await page.locator("h2", { hasText: "Recent work" }).waitFor();
    await page.locator('[data-island="carousel"]').scrollIntoViewIfNeeded();
    await page.locator('[data-island="carousel"][data-hydrated] .swiper-initialized').waitFor();
    await page.mouse.move(1, 1);
    const start = await active(page);
    await expect.poll(() => active(page), POLL).not.toBe(start);
    // Still the same document: the swaps were enhanced navigation, not page loads.
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(
      true,
    );
    expect(problems).toEqual([]);
    await context.close();
  }, 40_000);

  it("stops at the last slide when the slice is not infinite (page clock)", async () => {
    const home = structuredClone(HOME);
    const slice = home.data.slices.find((s: { slice_type: string }) => s.slice_type === "carousel");
    slice.primary.infinite = false;
    await site.publishAndRebuild([home]);

    const { context, page, problems } = await visitHome({ clock: true });
    await page.mouse.move(1, 1);
    const last = page.locator(".carousel__slide").last();
    const lastInView = () =>
      last.evaluate((el) => {
        const viewport = el.closest(".carousel__viewport")?.getBoundingClientRect();
        return viewport !== undefined && el.getBoundingClientRect().right <= viewport.right + 1;
      });
    // Autoplay runs until the last slide is fully in view (at most one delay per slide)…
    for (let step = 0; step < 4 && !(await lastInView()); step++) await autoplayOnce(page);
    expect(await lastInView()).toBe(true);
    const end = await active(page);
    // …and stays there: no jump back to the first.
    await page.clock.runFor(STILL_FOR);
    await settled(page);
    expect(await active(page)).toBe(end);
    expect(await page.locator('.carousel__slide[aria-label="1 of 4"]').getAttribute("class")).not.toContain(
      "swiper-slide-active",
    );
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
