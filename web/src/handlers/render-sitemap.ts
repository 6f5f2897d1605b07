import type { PrismicDocument } from "@prismicio/client";
import { recordingSource } from "../content/index.ts";
import { absoluteUrl } from "../lib/site-url.ts";
import { sitemapDate } from "../lib/sitemap-date.ts";
import type { RenderContext, RenderResult } from "../render-context.ts";
import { PRICE_LIST_INDEX_ROUTE, routeForDocument, SITEMAP_ROUTE } from "../routes.ts";

const XML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/**
 * `/sitemap.xml`: every page and price list route and the price list index,
 * sorted by path, each with its `lastmod` day (`sitemapDate`). It depends on
 * `routes:page` and `routes:price_list` only: the planner re-renders it when a
 * document joins, leaves, moves or changes its lastmod day. Not on what those
 * documents link to.
 */
export async function renderSitemap(ctx: RenderContext): Promise<RenderResult> {
  const recorder = recordingSource(ctx.source, { routesOnly: true });
  const [pages, priceLists] = await Promise.all([
    recorder.source.getAllByType("page"),
    recorder.source.getAllByType("price_list"),
  ]);
  const entries = new Map<string, string | undefined>();
  const add = (doc: PrismicDocument) => {
    const path = routeForDocument(doc);
    if (path === null) {
      ctx.logger?.warn(
        { route: SITEMAP_ROUTE, documentId: doc.id, type: doc.type, uid: doc.uid },
        "left out of the sitemap: the uid is not a safe slug",
      );
      return;
    }
    entries.set(path, sitemapDate(doc.last_publication_date));
  };
  for (const doc of pages) add(doc);
  for (const doc of priceLists) add(doc);
  entries.set(
    PRICE_LIST_INDEX_ROUTE,
    newest(priceLists.map((doc) => sitemapDate(doc.last_publication_date))),
  );

  const urls = [...entries.keys()].sort().map((path) => {
    const lastmod = entries.get(path);
    const loc = escapeXml(absoluteUrl(ctx.siteUrl, path));
    return `<url><loc>${loc}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ""}</url>`;
  });
  const xml = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...urls,
    "</urlset>",
    "",
  ].join("\n");
  return {
    status: 200,
    html: xml,
    contentType: "application/xml; charset=utf-8",
    dependencies: recorder.dependencies(),
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
