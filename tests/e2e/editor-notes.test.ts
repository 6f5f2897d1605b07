import type { PrismicDocument } from "@prismicio/client";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { demoDoc, type PreviewFixture, previewFixture } from "../support/preview-fixture.ts";
import { hasChromium, releaseChromium, sharedChromium } from "./support/browser.ts";

/**
 * What an editor sees in preview when documents lack fields a page needs (a model
 * changed after the documents were published): the demo's settings without their navigation and
 * the about page without its title, published through the local content service, previewed in
 * Chromium. `UPDATE_SCREENSHOTS=1` writes docs/screenshots/preview-editor-notes-1280.png.
 */
const SHOT = new URL("../../docs/screenshots/preview-editor-notes-1280.png", import.meta.url).pathname;
const SETTINGS = "Z9nWsREAACUAx1Aa";
const ABOUT = "Z9nWuhEAACMAx1Cc";

function without(id: string, ...fields: string[]): PrismicDocument {
  const doc = demoDoc(id);
  for (const field of fields) delete (doc.data as Record<string, unknown>)[field];
  return doc;
}

describe.skipIf(!hasChromium)("editor notes in preview", () => {
  let content: LocalPrismic;
  let preview: PreviewFixture;
  let url: string;
  let browser: Browser;
  beforeAll(async () => {
    content = await startLocalPrismic();
    const published = await fetch(`${content.url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        upsert: [without(SETTINGS, "header_navigation", "footer_navigation"), without(ABOUT, "title")],
      }),
    });
    expect(published.status).toBe(200);
    preview = await previewFixture(content.endpoint);
    url = await preview.app.listen({ host: "127.0.0.1", port: 0 });
    browser = await sharedChromium();
  }, 60_000);
  afterAll(async () => {
    if (browser) await releaseChromium(browser);
    await preview?.app.close();
    await content?.stop();
  });

  it("names what is missing above the page, which renders with its fallbacks", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    try {
      const response = await page.goto(`${url}/about`);
      expect(response?.status()).toBe(200);
      const notes = page.getByRole("note");
      expect(await notes.allTextContents()).toEqual([
        "For editors: this site's settings document has no header navigation: the header shows the brand only.",
        "For editors: this page has no title: visitors see “About” (its UID) as its heading.",
      ]);
      expect(await notes.first().isVisible()).toBe(true);
      expect(await page.locator("h1").textContent()).toBe("About");
      expect(await page.getByRole("navigation", { name: "Main" }).count()).toBe(0);
      expect(problems).toEqual([]);
      if (process.env.UPDATE_SCREENSHOTS) await page.screenshot({ path: SHOT });
    } finally {
      await context.close();
    }
  });
});
