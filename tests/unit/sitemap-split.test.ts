/**
 * The sitemap's division: up to `limit` documents `/sitemap.xml` is one urlset; above, a sitemap
 * index of `/sitemap-1-of-N.xml` … parts (N a power of two), each the documents of its listing slots
 * (a stable hash of the id), sorted, depending on those slots only; together the same URLs as the
 * undivided sitemap.
 */
import type { PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { LISTING_SLOTS, listingSlotOf } from "#content/dependencies.ts";
import { createMemorySource } from "#content/source.ts";
import type { SiteAssets } from "#web/assets.ts";
import { typedSource } from "#web/content/index.ts";
import { renderSitemap, renderSitemapPart } from "#web/handlers/render-sitemap.ts";
import {
  isSitemapDivision,
  partSlots,
  SITEMAP_PART_SIZE,
  SITEMAP_URL_LIMIT,
  sitemapDivision,
} from "#web/handlers/sitemap-split.ts";
import type { RenderContext } from "#web/render-context.ts";

const SITE_URL = "https://www.example.com";
const XMLNS = "http://www.sitemaps.org/schemas/sitemap/0.9";

/** `count` pages, uids p000…, published on distinct days; with the price-list index, count + 1 URLs. */
function pages(count: number): PrismicDocument[] {
  return Array.from({ length: count }, (_, i) => {
    const day = String((i % 28) + 1).padStart(2, "0");
    return {
      id: `page${i}`,
      uid: `p${String(i).padStart(3, "0")}`,
      type: "page",
      lang: "en-us",
      tags: [],
      href: "",
      url: null,
      slugs: [],
      first_publication_date: `2026-01-${day}T10:00:00+0000`,
      last_publication_date: `2026-01-${day}T10:00:00+0000`,
      linked_documents: [],
      alternate_languages: [],
      data: {},
    } as unknown as PrismicDocument;
  });
}
const context = (docs: PrismicDocument[], sitemapUrlLimit?: number): RenderContext => ({
  source: typedSource(createMemorySource(docs)),
  siteUrl: SITE_URL,
  assets: {} as SiteAssets, // the sitemap reads none
  mode: "production",
  ...(sitemapUrlLimit ? { sitemapUrlLimit } : {}),
});

/** Strictly the protocol's shape (and well-formed XML): declaration, root, one element a line. */
const URLSET = new RegExp(
  `^<\\?xml version="1\\.0" encoding="UTF-8"\\?>\\n<urlset xmlns="${XMLNS}">\\n` +
    "(<url><loc>https://[^<>&\"']+</loc>(<lastmod>\\d{4}-\\d\\d-\\d\\d</lastmod>)?</url>\\n)*</urlset>\\n$",
);
const INDEX = new RegExp(
  `^<\\?xml version="1\\.0" encoding="UTF-8"\\?>\\n<sitemapindex xmlns="${XMLNS}">\\n` +
    "(<sitemap><loc>https://[^<>&\"']+</loc>(<lastmod>\\d{4}-\\d\\d-\\d\\d</lastmod>)?</sitemap>\\n)+</sitemapindex>\\n$",
);
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]);

describe("sitemapDivision", () => {
  it.each([
    [0, 5, 1],
    [5, 5, 1],
    [6, 5, 2],
    [10, 5, 2],
    [11, 5, 4],
    [2_000, SITEMAP_PART_SIZE, 1],
    [2_001, SITEMAP_PART_SIZE, 2],
    [100_001, SITEMAP_PART_SIZE, 64],
    // At most one part a slot: past 256 × the part size, parts grow instead.
    [10_000_000, SITEMAP_PART_SIZE, LISTING_SLOTS],
  ])("%i documents, part size %i → %i parts", (count, limit, expected) => {
    expect(sitemapDivision(count, limit)).toBe(expected);
    expect(expected === 1 || isSitemapDivision(expected)).toBe(true);
  });

  it("refuses a part size that is not a positive integer", () => {
    for (const limit of [0, -1, 2.5, Number.NaN])
      expect(() => sitemapDivision(3, limit)).toThrow(/positive integer/);
  });

  it("parts are whole ranges of slots that cover every slot once", () => {
    for (const division of [2, 4, 64, 256]) {
      const ranges = Array.from({ length: division }, (_, i) => partSlots(i + 1, division));
      expect(ranges[0]?.from).toBe(0);
      expect(ranges.at(-1)?.to).toBe(LISTING_SLOTS);
      for (let i = 1; i < division; i++) expect(ranges[i]?.from).toBe(ranges[i - 1]?.to);
    }
    expect([1, 3, 512, 0].filter(isSitemapDivision)).toEqual([]);
  });

  it("the protocol's limit is 50,000 URLs; parts stay far below it", () => {
    expect(SITEMAP_URL_LIMIT).toBe(50_000);
    expect(SITEMAP_PART_SIZE).toBeLessThan(SITEMAP_URL_LIMIT);
  });
});

describe("renderSitemap with a lowered part size", () => {
  it("at exactly the part size /sitemap.xml is the same single urlset as without one, and has no parts", async () => {
    const docs = pages(5);
    const plain = await renderSitemap(context(docs));
    const atLimit = await renderSitemap(context(docs, 5));
    expect(plain.html).toMatch(URLSET);
    expect(locs(plain.html)).toHaveLength(6); // and the price-list index
    expect(atLimit.html).toBe(plain.html);
    expect(atLimit.parts).toBeUndefined();
    expect(await renderSitemapPart(context(docs, 5), 1, 2)).toBeUndefined();
    // It depends on every page's route and on how many there are.
    expect(plain.dependencies).toEqual(
      expect.arrayContaining(["count:page", "count:price_list", "routes:page", "routes:price_list"]),
    );
  });

  it("above it, an index of parts without lastmod; the parts hold the same URLs, each its slots' documents", async () => {
    const docs = pages(40);
    const whole = await renderSitemap(context(docs));
    const index = await renderSitemap(context(docs, 5)); // 40 documents → 8 parts
    expect(index.html).toMatch(INDEX);
    expect(index.html).not.toContain("<lastmod>");
    expect(index.contentType).toBe("application/xml; charset=utf-8");
    const routes = Array.from({ length: 8 }, (_, i) => `/sitemap-${i + 1}-of-8.xml`);
    expect(index.parts).toEqual(routes);
    expect(locs(index.html)).toEqual(routes.map((route) => `${SITE_URL}${route}`));
    // The index depends on the counts and names its parts; no document's route or date.
    expect(index.dependencies).toEqual(
      ["count:page", "count:price_list", ...routes.map((route) => `part:${route}`)].sort(),
    );
    const urls: string[] = [];
    for (let part = 1; part <= 8; part++) {
      const rendered = await renderSitemapPart(context(docs, 5), part, 8);
      const xml = rendered?.html ?? "";
      const here = locs(xml) as string[];
      expect(here).toEqual([...here].sort());
      const { from, to } = partSlots(part, 8);
      for (const doc of docs) {
        const inPart = listingSlotOf(doc.id) >= from && listingSlotOf(doc.id) < to;
        expect(here.includes(`${SITE_URL}/${doc.uid}`), `${doc.id} in part ${part}`).toBe(inPart);
      }
      // A part depends on its slots only (the first on every price list: the price-list index).
      const slots = Array.from({ length: to - from }, (_, i) => from + i);
      expect(rendered?.dependencies).toEqual(
        [
          ...slots.map((slot) => `routes:page@${slot}`),
          ...(part === 1 ? ["routes:price_list"] : slots.map((slot) => `routes:price_list@${slot}`)),
        ].sort(),
      );
      urls.push(...here);
    }
    expect(urls.sort()).toEqual(locs(whole.html));
    // A part of another division than the content's is not found.
    expect(await renderSitemapPart(context(docs, 5), 1, 4)).toBeUndefined();
    expect(await renderSitemapPart(context(docs, 5), 1, 16)).toBeUndefined();
  });
});
