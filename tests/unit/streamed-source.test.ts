/**
 * A memory source with streamed documents, as a build's listings read its stubs: read again from
 * where they are kept at every listing of their types, never for another type, and the sitemap
 * rendered from them equal to the one rendered from the same documents in memory. Passes over the
 * streamed documents are counted (a build's each parse 100,000 stubs at 100,000 pages).
 */
import type { PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { inSlots, listingSlotOf, type SlotRange } from "#content/dependencies.ts";
import { createMemorySource, type StreamedDocuments } from "#content/source.ts";
import type { SiteAssets } from "#web/assets.ts";
import { typedSource } from "#web/content/index.ts";
import { renderSitemap, renderSitemapPart } from "#web/handlers/render-sitemap.ts";
import { partSlots } from "#web/handlers/sitemap-split.ts";
import type { RenderContext } from "#web/render-context.ts";

const SITE_URL = "https://www.example.com";

function doc(
  id: string,
  type: string,
  uid: string | null,
  data: Record<string, unknown> = {},
): PrismicDocument {
  return {
    id,
    uid,
    type,
    lang: "en-us",
    tags: [],
    href: "",
    url: uid === null ? null : type === "page" ? `/${uid}` : `/price-list/${uid}`,
    slugs: [],
    first_publication_date: "2026-01-05T10:00:00+0000",
    last_publication_date: `2026-01-${String((id.length % 27) + 1).padStart(2, "0")}T10:00:00+0000`,
    linked_documents: [],
    alternate_languages: [],
    data,
  } as unknown as PrismicDocument;
}

const settings = doc("settings", "settings", null, { site_name: "Northwind" });
const priceList = doc("prices", "price_list", "prices");
/** Pages, one canonical to another page (left out of the sitemap, its target linked) and one hidden. */
const pages = [
  ...Array.from({ length: 7 }, (_, i) => doc(`page${i}`, "page", `p${i}`)),
  doc("pointing", "page", "pointing", {
    canonical_url: { link_type: "Document", id: "page1", url: "/p1", isBroken: false },
  }),
  doc("hidden", "page", "hidden", { noindex: true }),
];

/** `documents` as a build streams them, counting each pass over them. */
function streamed(documents: readonly PrismicDocument[]): StreamedDocuments & { passes: number } {
  const kept = documents.map((d) => JSON.stringify(d));
  return {
    types: new Set(documents.map((d) => d.type)),
    passes: 0,
    *[Symbol.iterator]() {
      this.passes++;
      for (const json of kept) yield JSON.parse(json) as PrismicDocument;
    },
  };
}

describe("createMemorySource with streamed documents", () => {
  it("lists their type from memory and stream, reading them again at each pass, and never for another type", async () => {
    const stream = streamed(pages);
    const source = createMemorySource([settings, priceList], stream);
    const listing = await source.getAllByType("page");
    expect(stream.passes).toBe(0);
    expect(Array.from(listing, (d) => d.id)).toEqual(pages.map((d) => d.id));
    expect(Array.from(listing, (d) => d.id)).toEqual(pages.map((d) => d.id));
    expect(stream.passes).toBe(2);
    expect(Array.from(await source.getAllByType("price_list"), (d) => d.id)).toEqual(["prices"]);
    expect(stream.passes).toBe(2);
  });

  it("counts a type from memory and stream, passing over the stream once whatever it is asked", async () => {
    const stream = streamed(pages);
    const source = createMemorySource([settings, priceList], stream);
    expect(await source.countByType("page")).toBe(pages.length);
    expect(await source.countByType("page")).toBe(pages.length);
    expect(await source.countByType("price_list")).toBe(1);
    expect(await source.countByType("settings")).toBe(1);
    expect(stream.passes).toBe(1);
  });

  it("answers a lookup by id or uid from memory first, then from the stream", async () => {
    const stream = streamed(pages);
    const source = createMemorySource([settings, priceList], stream);
    expect((await source.getSingle("settings"))?.id).toBe("settings");
    expect((await source.getByID("prices"))?.id).toBe("prices");
    expect(stream.passes).toBe(0);
    expect((await source.getByID("page3"))?.uid).toBe("p3");
    expect((await source.getByUID("page", "p5"))?.id).toBe("page5");
    expect(await source.getByUID("page", "nobody")).toBeUndefined();
    expect(await source.getByID("gone")).toBeUndefined();
  });
});

describe("the sitemap from streamed pages", () => {
  const context = (source: ReturnType<typeof createMemorySource>): RenderContext => ({
    source: typedSource(source),
    siteUrl: SITE_URL,
    assets: {} as SiteAssets,
    mode: "production",
    sitemapUrlLimit: 4,
  });

  it("is the sitemap of the same pages in memory, index and parts, with the same dependencies; one pass each", async () => {
    const inMemory = context(createMemorySource([settings, priceList, ...pages]));
    const stream = streamed(pages);
    const fromStream = context(createMemorySource([settings, priceList], stream));
    const index = await renderSitemap(fromStream);
    expect(index).toEqual(await renderSitemap(inMemory));
    // 9 pages and a price list, 4 a part: divided into 4.
    expect(index.parts).toEqual([1, 2, 3, 4].map((part) => `/sitemap-${part}-of-4.xml`));
    const parts = await Promise.all([1, 2, 3, 4].map((part) => renderSitemapPart(fromStream, part, 4)));
    for (const [i, part] of parts.entries())
      expect(part).toEqual(await renderSitemapPart(inMemory, i + 1, 4));
    // The part listing the page canonical to page1 records its target.
    expect(parts.flatMap((part) => part?.dependencies ?? [])).toContain("url:page1");
    // The count once, then one pass a part.
    expect(stream.passes).toBe(5);
  });

  it("reads a part's slots alone where the stream can (a build's: slotted-stubs.ts), the same sitemap", async () => {
    const inMemory = context(createMemorySource([settings, priceList, ...pages]));
    const stream = streamed(pages);
    const asked: SlotRange[] = [];
    const bySlot = Object.assign(stream, {
      inSlots(slots: SlotRange) {
        asked.push(slots);
        return pages.filter((doc) => inSlots(listingSlotOf(doc.id), slots));
      },
    });
    const fromStream = context(createMemorySource([settings, priceList], bySlot));
    for (const part of [1, 2, 3, 4])
      expect(await renderSitemapPart(fromStream, part, 4)).toEqual(
        await renderSitemapPart(inMemory, part, 4),
      );
    expect(asked).toEqual([1, 2, 3, 4].map((part) => partSlots(part, 4)));
    // The count's pass only.
    expect(stream.passes).toBe(1);
  });
});
