/**
 * Splitting a sitemap: the sitemaps protocol allows at most 50,000 URLs and 50 MB (uncompressed) per
 * file; a site with more lists its sitemap files in a sitemap index. Pure, table-tested
 * (tests/unit/sitemap-split.test.ts). The 50 MB limit cannot be reached first here: a `<url>` line of
 * this site is at most a few hundred bytes (a uid is at most 100 characters, MAX_UID_LENGTH, even
 * percent-encoded under 1 KB), so 50,000 of them stay far below 50 MB; the URL count is the limit.
 */

/** The protocol's limit of URLs in one sitemap file (https://www.sitemaps.org/protocol.html). */
export const SITEMAP_URL_LIMIT = 50_000;

const XMLNS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

export interface SitemapEntry {
  /** Absolute URL, XML-escaped. */
  loc: string;
  lastmod?: string | undefined;
}

/**
 * The parts of a sitemap of `count` entries (in the sitemap's own order): none when they fit in one
 * file (`/sitemap.xml` stays a urlset), else ⌈count / limit⌉ slices of at most `limit` entries each.
 */
export function sitemapParts(count: number, limit: number): { start: number; end: number }[] {
  if (!Number.isInteger(limit) || limit < 1)
    throw new Error(`sitemap URL limit must be a positive integer, not ${limit}`);
  if (count <= limit) return [];
  const parts: { start: number; end: number }[] = [];
  for (let start = 0; start < count; start += limit)
    parts.push({ start, end: Math.min(count, start + limit) });
  return parts;
}

/** A `<urlset>` of the entries. */
export function urlsetXml(entries: readonly SitemapEntry[]): string {
  const urls = entries.map(
    (e) => `<url><loc>${e.loc}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ""}</url>`,
  );
  return [DECLARATION, `<urlset ${XMLNS}>`, ...urls, "</urlset>", ""].join("\n");
}

/** A `<sitemapindex>` of sitemap files, each with the newest lastmod of its entries. */
export function sitemapIndexXml(sitemaps: readonly SitemapEntry[]): string {
  const items = sitemaps.map(
    (s) => `<sitemap><loc>${s.loc}</loc>${s.lastmod ? `<lastmod>${s.lastmod}</lastmod>` : ""}</sitemap>`,
  );
  return [DECLARATION, `<sitemapindex ${XMLNS}>`, ...items, "</sitemapindex>", ""].join("\n");
}
