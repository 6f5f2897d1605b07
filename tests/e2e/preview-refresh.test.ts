import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import {
  ABOUT_ID,
  draftOfAbout,
  type PreviewFixture,
  previewFixture,
  putDraft,
} from "../support/preview-fixture.ts";
import { hasChromium, releaseChromium, sharedChromium } from "./support/browser.ts";

/** `UPDATE_SCREENSHOTS=1` rewrites docs/screenshots/preview-draft-1280.png from this run. */
const SCREENSHOT = new URL("../../docs/screenshots/preview-draft-1280.png", import.meta.url).pathname;

let content: LocalPrismic;
let preview: PreviewFixture;
let previewUrl: string;
let browser: Browser;

describe.skipIf(!hasChromium)("a draft in the browser", () => {
  beforeAll(async () => {
    content = await startLocalPrismic();
    preview = await previewFixture(content.endpoint);
    previewUrl = await preview.app.listen({ host: "127.0.0.1", port: 0 });
    browser = await sharedChromium();
  });
  afterAll(async () => {
    if (browser) await releaseChromium(browser);
    await preview?.app.close();
    await content?.stop();
  });

  it("opens the preview link, swaps in updates without a reload, and exits", async () => {
    const token = await putDraft(content.url, draftOfAbout("About us: the spring draft"));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${previewUrl}/api/preview?token=${encodeURIComponent(token)}&documentId=${ABOUT_ID}`);
    expect(new URL(page.url()).pathname).toBe("/about");
    expect(await page.locator("h1").first().textContent()).toBe("About us: the spring draft");
    expect(await page.locator("[data-preview-banner]").textContent()).toBe("Preview — exit");
    if (process.env.UPDATE_SCREENSHOTS) await page.screenshot({ path: SCREENSHOT });

    // Visitors (no preview cookie) still get the published page.
    const visitor = await browser.newPage();
    await visitor.goto(`${previewUrl}/about`);
    expect(await visitor.locator("h1").first().textContent()).toBe("About Northwind Studio");
    expect(await visitor.locator("[data-preview-banner]").count()).toBe(0);
    await visitor.close();

    // The toolbar announces a new ref: the content changes in place, the page is not reloaded.
    await putDraft(content.url, draftOfAbout("About us: the summer draft"));
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 42;
    });
    const prevented = await page.evaluate(() => {
      const event = new CustomEvent("prismicPreviewUpdate", { cancelable: true, detail: { ref: "next" } });
      window.dispatchEvent(event);
      return event.defaultPrevented;
    });
    expect(prevented).toBe(true);
    await page.locator("h1", { hasText: "About us: the summer draft" }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    // The swapped-in body's islands come alive again (the old ones went with the old body): the
    // cookie notice, made live by the entry without interaction while the visitor has not chosen.
    await page.locator('[data-island="cookie-notice"][data-hydrated]').waitFor({ state: "attached" });
    expect(await page.title()).toContain("About");

    // The toolbar ends the preview: back on the published page, cookie gone.
    await Promise.all([
      page.waitForURL(`${previewUrl}/about`),
      page.evaluate(() => window.dispatchEvent(new CustomEvent("prismicPreviewEnd", { cancelable: true }))),
    ]);
    await page.locator("h1", { hasText: "About Northwind Studio" }).waitFor();
    expect(await page.locator("[data-preview-banner]").count()).toBe(0);
    expect(await page.context().cookies()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
