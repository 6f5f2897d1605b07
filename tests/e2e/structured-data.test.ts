import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { nodesOf, problemsOf } from "../support/structured-data-rules.ts";
import { hasChromium } from "./support/browser.ts";
import { type SiteFixture, siteInBrowser } from "./support/site.ts";

/**
 * Structured data as a crawler's browser parses it: the built demo site served by the
 * real site server, every route in the sitemap opened in Chromium, its JSON-LD read from the DOM the
 * HTML parser built (not from our own string handling) and held to Google's required properties
 * (tests/support/structured-data-rules.ts). Then content trying to break out of the script element.
 */
const SETTINGS = JSON.parse(
  readFileSync(
    new URL("../../services/local-prismic/demo/documents/Z9nWsREAACUAx1Aa.json", import.meta.url),
    "utf8",
  ),
);

let site: SiteFixture;
let browser: Browser;

/** The JSON-LD scripts' text and the number of script elements of any kind, as the parser made them. */
function scriptsOf(page: Page): Promise<{ jsonLd: string[]; scripts: number }> {
  return page.evaluate(() => ({
    jsonLd: [...document.querySelectorAll('script[type="application/ld+json"]')].map(
      (s) => s.textContent ?? "",
    ),
    scripts: document.querySelectorAll("script").length,
  }));
}

async function routes(): Promise<string[]> {
  const xml = await (await fetch(`${site.url}/sitemap.xml`)).text();
  return [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => new URL(m[1] as string).pathname);
}

describe.skipIf(!hasChromium)("structured data in the browser", () => {
  siteInBrowser({}, (fixture) => {
    ({ site, browser } = fixture);
  });

  it("every route in the sitemap: its JSON-LD parses, with what Google requires", async () => {
    const page = await browser.newPage();
    const types = new Set<string>();
    const paths = await routes();
    expect(paths.length).toBeGreaterThanOrEqual(11);
    for (const path of paths) {
      await page.goto(`${site.url}${path}`);
      const { jsonLd } = await scriptsOf(page);
      expect(jsonLd.length, path).toBeLessThanOrEqual(1);
      for (const text of jsonLd) {
        const nodes = nodesOf(JSON.parse(text));
        expect(nodes.flatMap(problemsOf), path).toEqual([]);
        for (const node of nodes) types.add(String(node["@type"]));
      }
    }
    // The demo site shows every kind the site makes.
    expect([...types].sort()).toEqual([
      "BreadcrumbList",
      "FAQPage",
      "LocalBusiness",
      "OfferCatalog",
      "WebPage",
      "WebSite",
    ]);
    await page.close();
  }, 60_000);

  it("content holding `</script>` cannot end the element: one JSON-LD script, no extra script, the same text", async () => {
    const page = await browser.newPage();
    await page.goto(`${site.url}/`);
    const before = await scriptsOf(page);
    const hostile = 'Northwind</script><script type="module">window.pwned = 1</script><!--';
    await site.publishAndRebuild([{ ...SETTINGS, data: { ...SETTINGS.data, brand_name: hostile } }]);
    const pwned: string[] = [];
    page.on("console", (message) => pwned.push(message.text()));
    await page.goto(`${site.url}/`);
    const after = await scriptsOf(page);
    expect(after.scripts).toBe(before.scripts);
    expect(after.jsonLd).toHaveLength(1);
    const names = nodesOf(JSON.parse(after.jsonLd[0] as string)).map((node) => node.name);
    expect(names).toEqual([hostile, hostile, "Website packages"]);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    await site.publishAndRebuild([SETTINGS]);
    await page.close();
  }, 120_000);
});
