/**
 * The sitemap's split: at most `limit` URLs per sitemap file; above, `/sitemap.xml` is
 * a sitemap index of `/sitemap-1.xml` … `/sitemap-N.xml`, consecutive slices of the same sorted list.
 */
import type { PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { createMemorySource } from "#content/source.ts";
import type { SiteAssets } from "#web/assets.ts";
import { typedSource } from "#web/content/index.ts";
import { renderSitemap, renderSitemapPart } from "#web/handlers/render-sitemap.ts";
import { SITEMAP_URL_LIMIT, sitemapParts } from "#web/handlers/sitemap-split.ts";
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

describe("sitemapParts", () => {
  it.each([
    [0, 5, []],
    [1, 5, []],
    [5, 5, []],
    [
      6,
      5,
      [
        [0, 5],
        [5, 6],
      ],
    ],
    [
      10,
      5,
      [
        [0, 5],
        [5, 10],
      ],
    ],
    [
      11,
      5,
      [
        [0, 5],
        [5, 10],
        [10, 11],
      ],
    ],
    [50_000, SITEMAP_URL_LIMIT, []],
    [
      50_001,
      SITEMAP_URL_LIMIT,
      [
        [0, 50_000],
        [50_000, 50_001],
      ],
    ],
  ])("%i URLs, limit %i → %j", (count, limit, expected) => {
    expect(sitemapParts(count, limit).map((p) => [p.start, p.end])).toEqual(expected);
  });

  it("refuses a limit that is not a positive integer", () => {
    for (const limit of [0, -1, 2.5, Number.NaN])
      expect(() => sitemapParts(3, limit)).toThrow(/positive integer/);
  });

  it("the protocol's limit is 50,000 URLs", () => expect(SITEMAP_URL_LIMIT).toBe(50_000));
});

describe("renderSitemap with a lowered limit", () => {
  it("at exactly the limit /sitemap.xml is the same single urlset as without a limit, and has no parts", async () => {
    const docs = pages(4); // + the price-list index: 5 URLs
    const plain = await renderSitemap(context(docs));
    const atLimit = await renderSitemap(context(docs, 5));
    expect(plain.html).toMatch(URLSET);
    expect(locs(plain.html)).toHaveLength(5);
    expect(atLimit.html).toBe(plain.html);
    expect(atLimit.parts).toBeUndefined();
    expect(await renderSitemapPart(context(docs, 5), 1)).toBeUndefined();
  });

  it("at limit + 1 /sitemap.xml is an index of two parts, the second holding one URL", async () => {
    const docs = pages(5); // 6 URLs
    const unsplit = await renderSitemap(context(docs));
    const index = await renderSitemap(context(docs, 5));
    expect(index.html).toMatch(INDEX);
    expect(index.contentType).toBe("application/xml; charset=utf-8");
    expect(index.parts).toEqual(["/sitemap-1.xml", "/sitemap-2.xml"]);
    expect(locs(index.html)).toEqual([`${SITE_URL}/sitemap-1.xml`, `${SITE_URL}/sitemap-2.xml`]);
    const one = (await renderSitemapPart(context(docs, 5), 1))?.html ?? "";
    const two = (await renderSitemapPart(context(docs, 5), 2))?.html ?? "";
    expect(one).toMatch(URLSET);
    expect(two).toMatch(URLSET);
    expect(locs(one)).toHaveLength(5);
    expect(locs(two)).toHaveLength(1);
    // The same URLs in the same order as the single sitemap, split where the limit falls.
    expect([...locs(one), ...locs(two)]).toEqual(locs(unsplit.html));
    expect(await renderSitemapPart(context(docs, 5), 3)).toBeUndefined();
    // A part reads what the sitemap reads: they are re-rendered together.
    expect((await renderSitemapPart(context(docs, 5), 2))?.dependencies).toEqual(index.dependencies);
  });

  it("each index entry carries the newest lastmod of its part", async () => {
    const docs = pages(11); // 12 URLs, days 01…11 → parts of 5, 5, 2
    const index = await renderSitemap(context(docs, 5));
    const lastmods = [...index.html.matchAll(/<lastmod>([^<]*)<\/lastmod>/g)].map((m) => m[1]);
    expect(index.parts).toHaveLength(3);
    for (const [i, lastmod] of lastmods.entries()) {
      const part = (await renderSitemapPart(context(docs, 5), i + 1))?.html ?? "";
      const newest = [...part.matchAll(/<lastmod>([^<]*)<\/lastmod>/g)]
        .map((m) => m[1] as string)
        .sort()
        .pop();
      expect(lastmod).toBe(newest);
    }
  });
});
