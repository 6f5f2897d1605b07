import { asLink, isFilled, type PrismicDocument } from "@prismicio/client";
import type { PageDocument } from "../content/index.ts";
import { absoluteWebUrl } from "./absolute-web-url.ts";

/**
 * The page's own SEO switches (customtypes/page: `noindex`, `canonical_url`). Pages published
 * before the fields existed lack them: absent is today's behaviour (indexed, listed in the
 * sitemap, canonical to itself).
 */

/** A page the editors hid from search engines: `<meta name="robots" content="noindex">`, and not in the sitemap. */
export function noindexOf(doc: PrismicDocument): boolean {
  return doc.type === "page" && (doc.data as { noindex?: unknown } | undefined)?.noindex === true;
}

/**
 * The canonical URL an editor set instead of the page's own: a link to another document (its
 * route, made absolute, so it follows renames) or a web address, through the same URL rules as
 * every link (`isSafeHref`), http(s) only. A media link, an empty or unsafe one, or a link to a
 * document that is gone gives undefined: the page stays canonical to itself.
 */
export function canonicalOverrideOf(page: PageDocument, siteUrl: string): string | undefined {
  const field = (page.data as { canonical_url?: PageDocument["data"]["canonical_url"] }).canonical_url;
  if (!isFilled.link(field) || (field.link_type !== "Document" && field.link_type !== "Web"))
    return undefined;
  return absoluteWebUrl(siteUrl, asLink(field));
}
