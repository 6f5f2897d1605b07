import { asText } from "@prismicio/client";
import type { Thing } from "schema-dts";
import type { PageDocument, PriceListDocument, SettingsDocument } from "../content/index.ts";
import { absoluteWebUrl } from "../lib/absolute-web-url.ts";
import { brandOf, pageHeading, pageTitleOf, priceListHeading } from "../lib/page-meta.ts";
import { canonicalOverrideOf } from "../lib/page-seo.ts";
import { absoluteUrl } from "../lib/site-url.ts";
import { PRICE_LIST_INDEX_ROUTE, routeForDocument } from "../routes.ts";
import type { SliceContext } from "../slice-context.ts";
import { breadcrumbListNode, type Crumb } from "./breadcrumbs.ts";
import { faqPageNode } from "./faq-page.ts";
import { offerCatalogNode } from "./offer-catalog.ts";
import { organizationNode, websiteNode } from "./organization.ts";
import { webPageNode } from "./web-page.ts";

/**
 * What each route says to search engines in JSON-LD, from the content it already rendered (no
 * editor work): every node shows data the render read through its recording source (settings, the
 * route's document, embedded price lists), so the dependency index covers it with no extra record.
 */

/**
 * A page: the organization and the site on the home page; on every other page where it sits
 * (home › the page, named by its heading as the page shows it) and the page itself (a `WebPage`,
 * unless its FAQ says so already: an `FAQPage` is a WebPage); its FAQ; the price lists it embeds.
 */
export function pageGraph(options: {
  page: PageDocument;
  settings: SettingsDocument;
  sliceContext: SliceContext;
  siteUrl: string;
  path: string;
}): (Thing | undefined)[] {
  const { page, settings, sliceContext, siteUrl, path } = options;
  const url = absoluteUrl(siteUrl, path);
  const brand = brandOf(settings);
  const faq = faqPageNode(page.data.slices ?? [], url);
  const nodes: (Thing | undefined)[] =
    path === "/"
      ? [organizationNode(settings, siteUrl), websiteNode(settings, siteUrl)]
      : [
          breadcrumbListNode([homeCrumb(siteUrl), { name: pageHeading(page, brand).text, url }]),
          faq
            ? undefined
            : webPageNode({
                siteUrl,
                url: canonicalOverrideOf(page, siteUrl) ?? url,
                name: pageTitleOf(page, brand),
                description: page.data.meta_description ?? undefined,
              }),
        ];
  nodes.push(faq);
  // In slice order, each list once (the table shows only published lists: sliceContext has those).
  const seen = new Set<string>();
  for (const slice of page.data.slices ?? []) {
    if (slice.slice_type !== "price_list_table") continue;
    const id = (slice.primary.price_list as { id?: string } | undefined)?.id ?? "";
    const list = sliceContext.priceLists.get(id);
    if (!list || seen.has(id)) continue;
    seen.add(id);
    nodes.push(offerCatalogNode(list, absoluteWebUrl(siteUrl, list.url ?? routeForDocument(list))));
  }
  return nodes;
}

/** A price list's page: where it sits (home › price lists › the list) and its offers. */
export function priceListGraph(options: {
  priceList: PriceListDocument;
  siteUrl: string;
  path: string;
}): (Thing | undefined)[] {
  const { priceList, siteUrl, path } = options;
  const url = absoluteUrl(siteUrl, path);
  const title = asText(priceList.data.title ?? []).trim();
  return [
    breadcrumbListNode([...priceListTrail(siteUrl), { name: title, url }]),
    webPageNode({ siteUrl, url, name: priceListHeading(priceList).text }),
    offerCatalogNode(priceList, url),
  ];
}

/** The index of price lists: home › price lists. */
export function priceListIndexGraph(siteUrl: string): (Thing | undefined)[] {
  const trail = priceListTrail(siteUrl);
  const index = trail[trail.length - 1] as Crumb;
  return [breadcrumbListNode(trail), webPageNode({ siteUrl, url: index.url, name: index.name })];
}

/** The names are the ones the site shows: "Home" and the index's title, "Price lists". */
function priceListTrail(siteUrl: string): Crumb[] {
  return [homeCrumb(siteUrl), { name: "Price lists", url: absoluteUrl(siteUrl, PRICE_LIST_INDEX_ROUTE) }];
}

function homeCrumb(siteUrl: string): Crumb {
  return { name: "Home", url: absoluteUrl(siteUrl, "/") };
}
