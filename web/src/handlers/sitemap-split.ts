/**
 * Dividing a sitemap: above `limit` documents (`SITEMAP_PART_SIZE` unless a render context lowers
 * it), `/sitemap.xml` is a sitemap index of parts, each part the documents of a fixed range of
 * listing slots (`listingSlotOf`, a stable hash of the document id). A document stays in its part
 * whatever else is published, so an edit re-renders the one part that holds it (and reads only that
 * part's documents), never the site's whole list. Pure, table-tested (tests/unit/sitemap-split.test.ts).
 *
 * The protocol allows at most 50,000 URLs and 50 MB (uncompressed) per file. Parts average at most
 * `limit` documents; with at most LISTING_SLOTS (256) parts, a part reaches 50,000 URLs only past
 * about 12 million documents. The 50 MB limit cannot be reached first: a `<url>` line of this site
 * is at most a few hundred bytes (a uid is at most 100 characters, MAX_UID_LENGTH).
 */
import { LISTING_SLOTS, type SlotRange } from "#content/dependencies.ts";

/** The protocol's limit of URLs in one sitemap file (https://www.sitemaps.org/protocol.html). */
export const SITEMAP_URL_LIMIT = 50_000;

/**
 * Documents a sitemap holds before it is divided, and that its parts hold at most on average: an
 * edit re-renders one part, about this many entries at most on average, so a part is small
 * (Yoast SEO's parts hold 1,000; the protocol allows 50,000).
 */
export const SITEMAP_PART_SIZE = 2_000;

const XMLNS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

export interface SitemapEntry {
  /** Absolute URL, XML-escaped. */
  loc: string;
  lastmod?: string | undefined;
}

/**
 * How many parts a sitemap of `count` documents is divided into: 1 (not divided: `/sitemap.xml` is
 * one urlset) up to `limit`; above, the smallest power of two whose parts hold at most `limit` on
 * average, at most LISTING_SLOTS. A power of two, so that parts are whole ranges of slots.
 */
export function sitemapDivision(count: number, limit: number): number {
  if (!Number.isInteger(limit) || limit < 1)
    throw new Error(`sitemap part size must be a positive integer, not ${limit}`);
  let parts = 1;
  while (parts < LISTING_SLOTS && count > parts * limit) parts *= 2;
  return parts;
}

/** Whether `of` is a division a sitemap can have (a power of two from 2 to LISTING_SLOTS). */
export function isSitemapDivision(of: number): boolean {
  return Number.isInteger(of) && of >= 2 && of <= LISTING_SLOTS && (of & (of - 1)) === 0;
}

/** The listing slots of part `part` (1-based) of a sitemap divided into `of` parts. */
export function partSlots(part: number, of: number): SlotRange {
  const width = LISTING_SLOTS / of;
  return { from: (part - 1) * width, to: part * width };
}

/** A `<urlset>` of the entries. */
export function urlsetXml(entries: readonly SitemapEntry[]): string {
  const urls = entries.map(
    (e) => `<url><loc>${e.loc}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ""}</url>`,
  );
  return [DECLARATION, `<urlset ${XMLNS}>`, ...urls, "</urlset>", ""].join("\n");
}

/** A `<sitemapindex>` of sitemap files. */
export function sitemapIndexXml(sitemaps: readonly SitemapEntry[]): string {
  const items = sitemaps.map(
    (s) => `<sitemap><loc>${s.loc}</loc>${s.lastmod ? `<lastmod>${s.lastmod}</lastmod>` : ""}</sitemap>`,
  );
  return [DECLARATION, `<sitemapindex ${XMLNS}>`, ...items, "</sitemapindex>", ""].join("\n");
}
