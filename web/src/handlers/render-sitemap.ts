import type { PrismicDocument } from "@prismicio/client";
import { inSlots, listingSlotOf, partDependency, type SlotRange } from "#content/dependencies.ts";
import type { ContentSource, ListedType } from "../content/content-source.ts";
import { recordingSource } from "../content/index.ts";
import { listedInSitemap, noindexOf } from "../lib/page-seo.ts";
import { absoluteUrl } from "../lib/site-url.ts";
import { sitemapDate } from "../lib/sitemap-date.ts";
import type { RenderContext, RenderResult } from "../render-context.ts";
import { PRICE_LIST_INDEX_ROUTE, routeForDocument, SITEMAP_ROUTE, sitemapPartRoute } from "../routes.ts";
import {
  partSlots,
  SITEMAP_PART_SIZE,
  type SitemapEntry,
  sitemapDivision,
  sitemapIndexXml,
  urlsetXml,
} from "./sitemap-split.ts";

const XML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

const XML = "application/xml; charset=utf-8";

/**
 * What the sitemap lists: every document of these types at its route, and, for a type with a
 * listing page (`index`), that page, its lastmod the newest document's. Its documents count toward
 * the division; the part holding the listing page reads every document of its type.
 */
const LISTED: readonly { type: ListedType; index?: string }[] = [
  { type: "page" },
  { type: "price_list", index: PRICE_LIST_INDEX_ROUTE },
];

/**
 * `/sitemap.xml`: every page and price list route and the price list index, sorted by path, each
 * with its `lastmod` day; pages marked `noindex` or canonical to another address are left out. It
 * depends on `routes:page` and `routes:price_list` (a document joining, leaving, moving, changing its
 * lastmod day, its `noindex` or its canonical override), on the targets of canonical overrides
 * (`url:<id>`: moved or gone, they decide), not on other links, and on how many pages and price
 * lists there are (`count:<type>`).
 * Above `ctx.sitemapUrlLimit` documents (SITEMAP_PART_SIZE) it is divided (sitemap-split.ts): a
 * sitemap index of `/sitemap-1-of-N.xml` … `/sitemap-N-of-N.xml`, without `<lastmod>` (the
 * protocol's is optional; knowing each part's newest day would read every document), named in the
 * result's `parts` (and as `part:<route>` dependencies: the engine deletes parts the index stops
 * naming) so builds and publishes render them too. The index depends only on the counts.
 */
export async function renderSitemap(ctx: RenderContext): Promise<RenderResult> {
  const recorder = recordingSource(ctx.source, { routesOnly: true });
  const division = await divisionOf(ctx, recorder.source);
  if (division === 1) {
    const entries = await entriesOf(ctx, recorder.source, undefined);
    return { status: 200, html: urlsetXml(entries), contentType: XML, dependencies: recorder.dependencies() };
  }
  const parts = Array.from({ length: division }, (_, i) => sitemapPartRoute(i + 1, division));
  return {
    status: 200,
    html: sitemapIndexXml(parts.map((route) => ({ loc: escapeXml(absoluteUrl(ctx.siteUrl, route)) }))),
    contentType: XML,
    dependencies: [...recorder.dependencies(), ...parts.map(partDependency)].sort(),
    parts,
  };
}

/**
 * `/sitemap-<part>-of-<of>.xml`: the entries of the documents in the part's listing slots, sorted
 * by path; the first part also holds the price list index (its lastmod is the newest price list's,
 * so it depends on every price list). Undefined (404) when the sitemap is not divided into `of`
 * parts now. That check is not a dependency: a part depends on its slots only, so an edit renders
 * one part; when the division changes, the index names other parts and the engine deletes these.
 */
export async function renderSitemapPart(
  ctx: RenderContext,
  part: number,
  of: number,
): Promise<RenderResult | undefined> {
  if ((await divisionOf(ctx, ctx.source)) !== of || part > of) return undefined;
  const recorder = recordingSource(ctx.source, { routesOnly: true });
  const entries = await entriesOf(ctx, recorder.source, partSlots(part, of));
  return { status: 200, html: urlsetXml(entries), contentType: XML, dependencies: recorder.dependencies() };
}

async function divisionOf(ctx: RenderContext, source: ContentSource): Promise<number> {
  const counts = await Promise.all(LISTED.map(({ type }) => source.countByType(type)));
  return sitemapDivision(
    counts.reduce((sum, count) => sum + count, 0),
    ctx.sitemapUrlLimit ?? SITEMAP_PART_SIZE,
  );
}

/**
 * The sitemap's entries of the documents in `slots` (every document without), sorted by path; the
 * listing pages with them when the slots start at 0 (the whole sitemap, or its first part).
 */
async function entriesOf(
  ctx: RenderContext,
  source: ContentSource,
  slots: SlotRange | undefined,
): Promise<SitemapEntry[]> {
  const withIndex = slots === undefined || slots.from === 0;
  // A listing page's lastmod is its newest document's: the part holding it reads them all.
  const listed = await Promise.all(
    LISTED.map(({ type, index }) => source.getAllByType(type, index && withIndex ? undefined : slots)),
  );
  const entries = new Map<string, string | undefined>();
  const add = (doc: PrismicDocument) => {
    if (noindexOf(doc)) return;
    const path = routeForDocument(doc);
    if (path === null) {
      ctx.logger?.warn(
        { route: SITEMAP_ROUTE, documentId: doc.id, type: doc.type, uid: doc.uid },
        "left out of the sitemap: the uid is not a safe slug",
      );
      return;
    }
    // A page hidden from search engines (above), or canonical to another address, is not offered to them.
    if (!listedInSitemap(doc, path, ctx.siteUrl)) return;
    entries.set(path, sitemapDate(doc.last_publication_date));
  };
  for (const [i, { index }] of LISTED.entries()) {
    let newest: string | undefined;
    for (const doc of listed[i] ?? []) {
      const date = sitemapDate(doc.last_publication_date);
      if (date && (!newest || date > newest)) newest = date;
      if (inSlots(listingSlotOf(doc.id), slots)) add(doc);
    }
    if (index && withIndex) entries.set(index, newest);
  }
  return [...entries.keys()].sort().map((path) => ({
    loc: escapeXml(absoluteUrl(ctx.siteUrl, path)),
    lastmod: entries.get(path),
  }));
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => XML_ESCAPES[char] ?? char);
}
