/**
 * What a publish's listings (the sitemap, the price list index) read of the dependency index: a stub
 * per document the index holds, with the publish's overlay laid over it (changed, gone, new), each
 * canonical override resolved against the index at the publish's state, and nothing held between
 * passes: every pass reads the stubs again from their temporary file. Read by listing slot (a divided
 * sitemap's part), the same stubs, a slot's only, and the counts. Real Redis; the index is written
 * by `DependencyIndex.replace`, as a diff build writes it.
 */
import type { PrismicDocument } from "@prismicio/client";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listingSlotOf, type SlotRange } from "#content/dependencies.ts";
import { createMemorySource } from "#content/source.ts";
import { buildSiteAssets } from "#web/assets.ts";
import { SITEMAP_ROUTE } from "#web/routes.ts";
import { website } from "#website";
import { DependencyIndex, type IndexedDocument } from "#worker/publish/dependency-index.ts";
import { indexStubs, SlotListings } from "#worker/publish/index-stubs.ts";
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

  it("by listing slot: the same stubs, each slot's only, counts with the overlay's joins and leaves", async () => {
    const whole = await indexStubs(index, overlay);
    try {
      const slots = new SlotListings(index, overlay);
      // Page 8 gone, the new page joined: as many pages as before; one price list, one settings.
      expect(await slots.countByType("page")).toBe(PAGES);
      expect(await slots.countByType("price_list")).toBe(1);
      expect(await slots.countByType("settings")).toBe(1);
      expect(await slots.countByType("nothing")).toBe(0);
      const all = byId(whole.byType.get("page") ?? []);
      const seen = new Map<string, PrismicDocument>();
      for (let part = 1; part <= 4; part++) {
        const range = { from: (part - 1) * 64, to: part * 64 };
        const stubs = await slots.getAllByType("page", range);
        for (const stub of stubs) {
          expect(listingSlotOf(stub.id) >= range.from && listingSlotOf(stub.id) < range.to).toBe(true);
          seen.set(stub.id, stub);
        }
      }
      // Every page in exactly one range, each stub as the whole read makes it (overlay, canonical links).
      expect(seen.size).toBe(all.size);
      for (const [id, stub] of all) expect(seen.get(id), id).toEqual(stub);
      expect(slots.read).toBe(PAGES);
      // Without a range: the whole type, read by its slots.
      expect((await slots.getAllByType("price_list")).map((stub) => stub.url)).toEqual(["/pricing/basic"]);
    } finally {
      whole.close();
    }
  });

  it("render the same sitemap by slot as from the whole read, undivided and divided", async () => {
    const { assets } = await buildSiteAssets();
    const whole = await indexStubs(index, overlay);
    try {
      const slots = new SlotListings(index, overlay);
      const fromWhole = layeredSource([], new Set(), createMemorySource([]), whole.byType);
      const bySlot = {
        ...fromWhole,
        getAllByType: (type: string, range?: SlotRange) => slots.getAllByType(type, range),
        countByType: (type: string) => slots.countByType(type),
      };
      const render = (route: string, source: typeof fromWhole, sitemapUrlLimit?: number) =>
        website.render(route, {
          source,
          siteUrl: SITE_URL,
          assets,
          mode: "production",
          ...(sitemapUrlLimit ? { sitemapUrlLimit } : {}),
        });
      // Undivided (a part size above the site's), then divided as it is (2,400 pages: two parts).
      const undivided = await render(SITEMAP_ROUTE, bySlot, PAGES * 2);
      expect(undivided).toEqual(await render(SITEMAP_ROUTE, fromWhole, PAGES * 2));
      // What the stubs say, as listed: the overlay's new page in, the gone one out, and page 1
      // canonical to the moved page 2 (so not listed), page 3 canonical to the gone page 8 (listed).
      expect(undivided.html).toContain(`${SITE_URL}/brand-new<`);
      expect(undivided.html).not.toContain(`${SITE_URL}/page-8<`);
      expect(undivided.html).not.toContain(`${SITE_URL}/page-1<`);
      expect(undivided.html).toContain(`${SITE_URL}/page-3<`);
      const divided = await render(SITEMAP_ROUTE, bySlot);
      expect(divided.parts).toEqual(["/sitemap-1-of-2.xml", "/sitemap-2-of-2.xml"]);
      for (const route of [SITEMAP_ROUTE, ...(divided.parts ?? [])])
        expect(await render(route, bySlot), route).toEqual(await render(route, fromWhole));
    } finally {
      whole.close();
    }
  }, 60_000);
});
