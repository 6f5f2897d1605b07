/**
 * What a publish's listings (the sitemap, the price list index) read of the dependency index: a stub
 * per document the index holds, with the publish's overlay laid over it (changed, gone, new), each
 * canonical override resolved against the index at the publish's state, and nothing held between
 * passes: every pass reads the stubs again from their temporary file. Real Redis; the index is
 * written by `DependencyIndex.replace`, as a diff build writes it.
 */
import type { PrismicDocument } from "@prismicio/client";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemorySource } from "#content/source.ts";
import { buildSiteAssets } from "#web/assets.ts";
import { SITEMAP_ROUTE } from "#web/routes.ts";
import { website } from "#website";
import { createRenderPool } from "#worker/build/render-pool.ts";
import { DependencyIndex, type IndexedDocument } from "#worker/publish/dependency-index.ts";
import { indexStubs } from "#worker/publish/index-stubs.ts";
import { layeredSource } from "#worker/publish/layered-source.ts";
import { indexedDocument, TEST_BUILT_WITH } from "../support/indexed-documents.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";

const PREFIX = `test-index-stubs-${process.pid}-${Date.now()}`;
/** More than one HSCAN answer (1,000) and many chunks of the temporary file (100). */
const PAGES = 2_400;
const SITE_URL = "https://www.example.com";
const pageId = (i: number) => `Page${String(i).padStart(6, "0")}`;

let redis: Redis;
let index: DependencyIndex;

function* documents(): Generator<[string, IndexedDocument]> {
  yield ["Settings000001", indexedDocument("settings", null)];
  yield ["PriceList00001", indexedDocument("price_list", "/pricing/basic")];
  for (let i = 0; i < PAGES; i++) {
    const extra: Partial<IndexedDocument> =
      i === 1
        ? { canonical: { document: pageId(2) } }
        : i === 3
          ? { canonical: { document: pageId(8) } }
          : i === 5
            ? { canonical: { web: "https://elsewhere.example/page" } }
            : i === 6
              ? { noindex: true }
              : {};
    yield [pageId(i), indexedDocument("page", `/page-${i}`, extra)];
  }
}

/** The publish's overlay: page 7 republished, page 8 gone, page 2 moved, one new page. */
const overlay = new Map<string, IndexedDocument | null>([
  [pageId(7), indexedDocument("page", "/page-7", { last_publication_date: "2026-11-29T09:00:00+0000" })],
  [pageId(8), null],
  [pageId(2), indexedDocument("page", "/page-2-moved")],
  ["NewPage000001", indexedDocument("page", "/brand-new")],
]);

beforeAll(async () => {
  redis = new Redis({ maxRetriesPerRequest: null });
  index = new DependencyIndex(redis, PREFIX);
  await index.replace("ref-1", new Map(), documents(), TEST_BUILT_WITH);
});

afterAll(async () => {
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
});

const byId = (stubs: Iterable<PrismicDocument>) => new Map([...stubs].map((stub) => [stub.id, stub]));

describe("a publish's listing stubs", () => {
  it("are the index's documents with the overlay laid over them, every type listed", async () => {
    const listings = await indexStubs(index, overlay);
    try {
      expect([...listings.byType.keys()].sort()).toEqual([...website.types].sort());
      const pages = byId(listings.byType.get("page") ?? []);
      // Every page once: page 8 gone, the new one added.
      expect(pages.size).toBe(PAGES);
      expect(pages.has(pageId(8))).toBe(false);
      expect(pages.get("NewPage000001")?.url).toBe("/brand-new");
      expect(pages.get(pageId(7))?.last_publication_date).toBe("2026-11-29T09:00:00+0000");
      expect(pages.get(pageId(2))?.url).toBe("/page-2-moved");
      expect(pages.get(pageId(6))?.data).toEqual(website.seo.stubData({ noindex: true }));
      expect(pages.get(pageId(9))?.data).toEqual(website.seo.stubData({ noindex: false }));
      expect([...(listings.byType.get("price_list") ?? [])].map((stub) => stub.url)).toEqual([
        "/pricing/basic",
      ]);
      expect([...(listings.byType.get("settings") ?? [])]).toHaveLength(1);
    } finally {
      listings.close();
    }
  });

  it("resolve canonical overrides against the index at the publish's state", async () => {
    const listings = await indexStubs(index, overlay);
    try {
      const pages = byId(listings.byType.get("page") ?? []);
      // To a document the publish moved: its new route, as the content API would fill the link.
      expect(pages.get(pageId(1))?.data).toEqual(
        website.seo.stubData({
          noindex: false,
          canonical: {
            link_type: "Document",
            id: pageId(2),
            type: "page",
            uid: "page-2-moved",
            lang: "en-us",
            url: "/page-2-moved",
            isBroken: false,
          },
        }),
      );
      // To a document the publish removed: a broken link.
      expect(pages.get(pageId(3))?.data).toEqual(
        website.seo.stubData({
          noindex: false,
          canonical: { link_type: "Document", id: pageId(8), isBroken: true },
        }),
      );
      expect(pages.get(pageId(5))?.data).toEqual(
        website.seo.stubData({
          noindex: false,
          canonical: { link_type: "Web", url: "https://elsewhere.example/page" },
        }),
      );
    } finally {
      listings.close();
    }
  });

  it("are read again at each pass, none held between them, and gone once closed", async () => {
    const listings = await indexStubs(index, overlay);
    const pages = listings.byType.get("page") ?? [];
    const first = [...pages];
    const second = [...pages];
    expect(second).toEqual(first);
    // New objects each pass: a pass's stubs die with it instead of living as long as the listing.
    const firstById = byId(first);
    // Those whose canonical override names a document too: they wait for their targets in a file,
    // not in memory (a generated site's random links made a third of its pages such stubs).
    expect(second.filter((stub) => firstById.get(stub.id) === stub)).toEqual([]);
    const last = second.slice(-2).map((stub) => stub.id);
    expect(last.sort()).toEqual([pageId(1), pageId(3)]);
    listings.close();
    expect(() => [...pages]).toThrow(/closed/);
  });

  it("render the same sitemap on a render thread, read from their files there, as on the main thread", async () => {
    const { assets } = await buildSiteAssets();
    const logger = pino({ level: "silent" });
    const pool = await createRenderPool({ siteUrl: SITE_URL, assets, documents: [] }, logger, 1);
    const listings = await indexStubs(index, overlay);
    try {
      // Undivided (a part size above the site's), then divided as it is (2,400 pages: two parts).
      const renderHere = (route: string, sitemapUrlLimit?: number) =>
        website.render(route, {
          source: layeredSource([], new Set(), createMemorySource([]), listings.byType),
          siteUrl: SITE_URL,
          assets,
          mode: "production",
          ...(sitemapUrlLimit ? { sitemapUrlLimit } : {}),
        });
      const here = await renderHere(SITEMAP_ROUTE, PAGES * 2);
      const { rendered, failed } = await pool.renderFromStubs(
        [SITEMAP_ROUTE],
        listings.forThread(),
        PAGES * 2,
      );
      expect(failed).toEqual([]);
      expect(rendered.map((result) => result.route)).toEqual([SITEMAP_ROUTE]);
      const [there] = rendered as [(typeof rendered)[number]];
      expect(new TextDecoder().decode(there.body)).toBe(here.html);
      expect([...there.dependencies].sort()).toEqual([...here.dependencies].sort());
      const parts = ["/sitemap.xml", "/sitemap-1-of-2.xml", "/sitemap-2-of-2.xml"];
      const divided = await pool.renderFromStubs(parts, listings.forThread());
      expect(divided.failed).toEqual([]);
      for (const [i, route] of parts.entries()) {
        const thread = divided.rendered[i];
        const main = await renderHere(route);
        expect(thread?.route).toBe(route);
        expect(new TextDecoder().decode(thread?.body)).toBe(main.html);
        expect(thread?.dependencies).toEqual(main.dependencies);
      }
      // What the stubs say, as listed: the overlay's new page in, the gone one out, and page 1
      // canonical to the moved page 2 (so not listed), page 3 canonical to the gone page 8 (listed).
      expect(here.html).toContain(`${SITE_URL}/brand-new<`);
      expect(here.html).not.toContain(`${SITE_URL}/page-8<`);
      expect(here.html).not.toContain(`${SITE_URL}/page-1<`);
      expect(here.html).toContain(`${SITE_URL}/page-3<`);
    } finally {
      listings.close();
      await pool.close();
    }
  }, 60_000);
});
