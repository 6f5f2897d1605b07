import type { PrismicDocument } from "@prismicio/client";
import { recordingSource } from "../content/index.ts";
import { listedInSitemap, noindexOf } from "../lib/page-seo.ts";
import { absoluteUrl } from "../lib/site-url.ts";
import { sitemapDate } from "../lib/sitemap-date.ts";
import type { RenderContext, RenderResult } from "../render-context.ts";
import { PRICE_LIST_INDEX_ROUTE, routeForDocument, SITEMAP_ROUTE, sitemapPartRoute } from "../routes.ts";
import {
  SITEMAP_URL_LIMIT,
  type SitemapEntry,
  sitemapIndexXml,
  sitemapParts,
  urlsetXml,
} from "./sitemap-split.ts";

const XML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/**
 * `/sitemap.xml`: every page and price list route and the price list index, sorted by path, each
 * with its `lastmod` day; pages marked `noindex` or canonical to another address are left out. It
 * depends on `routes:page` and `routes:price_list` (a document joining, leaving, moving, changing its
 * lastmod day, its `noindex` or its canonical override) and on the targets of canonical overrides
 * (`url:<id>`: moved or gone, they decide), not on other links.
 * Above `ctx.sitemapUrlLimit` URLs it is a sitemap index of `/sitemap-1.xml` … `/sitemap-N.xml`,
 * named in the result's `parts` so builds and publishes render them too; `part` renders one, and a
 * part the content does not need gives undefined (404). Parts read what the sitemap reads, so they
 * share its dependencies.
 */
export async function renderSitemap(ctx: RenderContext): Promise<RenderResult> {
  return (await render(ctx)) as RenderResult; // without a part there is always a result
}

/** `/sitemap-N.xml`; undefined when the sitemap has no part `part` (it is not split, or has fewer). */
export function renderSitemapPart(ctx: RenderContext, part: number): Promise<RenderResult | undefined> {
  return render(ctx, part);
}

async function render(ctx: RenderContext, part?: number): Promise<RenderResult | undefined> {
  const recorder = recordingSource(ctx.source, { routesOnly: true });
  const [pages, priceLists] = await Promise.all([
    recorder.source.getAllByType("page"),
    recorder.source.getAllByType("price_list"),
  ]);
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
  for (const doc of pages) add(doc);
  for (const doc of priceLists) add(doc);
  entries.set(
    PRICE_LIST_INDEX_ROUTE,
    newest(Array.from(priceLists, (doc) => sitemapDate(doc.last_publication_date))),
  );

  const all: SitemapEntry[] = [...entries.keys()].sort().map((path) => ({
    loc: escapeXml(absoluteUrl(ctx.siteUrl, path)),
    lastmod: entries.get(path),
  }));
  const parts = sitemapParts(all.length, ctx.sitemapUrlLimit ?? SITEMAP_URL_LIMIT);
  let xml: string;
  if (part !== undefined) {
    const slice = parts[part - 1];
    if (!slice) return undefined;
    xml = urlsetXml(all.slice(slice.start, slice.end));
  } else if (parts.length === 0) {
    xml = urlsetXml(all);
  } else {
    xml = sitemapIndexXml(
      parts.map((slice, i) => ({
        loc: escapeXml(absoluteUrl(ctx.siteUrl, sitemapPartRoute(i + 1))),
        lastmod: newest(all.slice(slice.start, slice.end).map((e) => e.lastmod)),
      })),
    );
  }
  return {
    status: 200,
    html: xml,
    contentType: "application/xml; charset=utf-8",
    dependencies: recorder.dependencies(),
    ...(part === undefined && parts.length > 0
      ? { parts: parts.map((_, i) => sitemapPartRoute(i + 1)) }
      : {}),
  };
}

function newest(dates: (string | undefined)[]): string | undefined {
  let best: string | undefined;
  for (const date of dates) if (date && (!best || date > best)) best = date;
  return best;
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => XML_ESCAPES[char] ?? char);
}
