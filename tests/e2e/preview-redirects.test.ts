import type { PrismicDocument } from "@prismicio/client";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { demoDoc, type PreviewFixture, previewFixture, putDraft } from "../support/preview-fixture.ts";
import { hasChromium, releaseChromium, sharedChromium } from "./support/browser.ts";

/**
 * What an editor sees when previewing redirect documents, in Chromium: a redirect
 * the site will serve, one a published page wins over (its preview and the page's), through the
 * local content service's preview links. `UPDATE_SCREENSHOTS=1` writes
 * docs/screenshots/preview-redirect-1280.png, preview-redirect-conflict-1280.png and
 * preview-redirect-conflict-page-1280.png.
 */
const shot = (name: string) => new URL(`../../docs/screenshots/${name}-1280.png`, import.meta.url).pathname;
const TEAM = "Z9nX0REAACMAx1Ll";
const PRICING = demoDoc("Z9nWvxEAACUAx1Ee");
const toPricing = {
  link_type: "Document",
  id: PRICING.id,
  type: "page",
  uid: "pricing",
  lang: "en-us",
  tags: [],
};
const redirect = (id: string, from: string, permanent: boolean): PrismicDocument => ({
  ...demoDoc(TEAM),
  id,
  data: { from_path: from, to: toPricing, permanent },
});

describe.skipIf(!hasChromium)("redirects in preview, as an editor sees them", () => {
  let content: LocalPrismic;
  let preview: PreviewFixture;
  let url: string;
  let browser: Browser;
  beforeAll(async () => {
    content = await startLocalPrismic();
    preview = await previewFixture(content.endpoint);
    url = await preview.app.listen({ host: "127.0.0.1", port: 0 });
    browser = await sharedChromium();
  }, 60_000);
  afterAll(async () => {
    if (browser) await releaseChromium(browser);
    await preview?.app.close();
    await content?.stop();
  });

  /** Opens a draft's preview link in a fresh browser context, as the editor's click does. */
  async function open(doc: PrismicDocument, run: (page: Page) => Promise<void>) {
    const token = await putDraft(content.url, doc);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    try {
      const response = await page.goto(
        `${url}/api/preview?token=${encodeURIComponent(token)}&documentId=${doc.id}`,
      );
      expect(response?.status()).toBe(200);
      await run(page);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }

  it("a redirect the site will serve: from, to, how, and a way to try it", async () => {
    await open(redirect("ShotRedirect0001", "/spring-sale", false), async (page) => {
      expect(new URL(page.url()).pathname).toBe("/_pressroom/redirect/ShotRedirect0001");
      expect(await page.locator("h1").textContent()).toBe("Redirect");
      const status = page.getByRole("status").filter({ hasText: "Served" });
      expect(await status.textContent()).toBe(
        "Served once published: a visitor opening /spring-sale goes to /pricing.",
      );
      expect(await status.isVisible()).toBe(true);
      if (process.env.UPDATE_SCREENSHOTS) await page.screenshot({ path: shot("preview-redirect") });
      // Trying it follows the redirect at the draft's ref: the pricing page.
      await page.getByRole("link", { name: "Try it in this preview" }).click();
      await page.waitForURL(`${url}/pricing`);
      expect(await page.locator("h1").first().textContent()).toContain("Pricing");
    });
  });

  it("a redirect a published page wins over: said on its preview and on the page's", async () => {
    await open(redirect("ShotRedirect0002", "/about", true), async (page) => {
      const alert = page.getByRole("alert");
      expect(await alert.textContent()).toBe(
        "Not served. A page is published at /about, and a page wins (unpublish the page or change the From path).",
      );
      expect(await alert.isVisible()).toBe(true);
      if (process.env.UPDATE_SCREENSHOTS) await page.screenshot({ path: shot("preview-redirect-conflict") });
      await page.getByRole("link", { name: "See the page published at /about" }).click();
      await page.waitForURL(`${url}/about`);
      const note = page.getByRole("note").filter({ hasText: "ShotRedirect0002" });
      expect(await note.isVisible()).toBe(true);
      expect(await note.textContent()).toContain(
        "is not served while this page is published at /about: a page wins.",
      );
      if (process.env.UPDATE_SCREENSHOTS)
        await page.screenshot({ path: shot("preview-redirect-conflict-page") });
    });
  });
});
