import { asLink, isFilled, type PrismicDocument } from "@prismicio/client";
import type { PageDocument } from "../content/content-source.ts";
import { absoluteWebUrl } from "./absolute-web-url.ts";
import { absoluteUrl } from "./site-url.ts";

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

/**
 * Where a page's canonical override points, as the dependency index keeps it for the sitemap: the
 * target document's id (its route is looked up when the sitemap is rendered, so a rename or an
 * unpublished target is seen) or the web address. Undefined when the field could not override.
 */
export type CanonicalTarget = { document: string } | { web: string };

/** The fields of a canonical override's link that a listing's stub keeps (`canonicalStub`). */
const CANONICAL_STUB_FIELDS = ["link_type", "id", "type", "uid", "lang", "url", "isBroken"] as const;

/**
 * What the sitemap reads of a canonical override: the link's type, its target's id and route
 * (`canonicalTargetOf`, `canonicalOverrideOf`), whether it is broken, and the target's type and uid,
 * which say where the link pointed (the `sees:` dependency the recording source makes of it). A
 * listing's stub of a page holds this, as a publish makes it from the index, not the link as the
 * API sent it (the target's slug, tags and dates besides): a build writes every stub's data in its
 * page inputs.
 */
export function canonicalStub(link: unknown): unknown {
  if (typeof link !== "object" || link === null) return link;
  const fields = link as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const field of CANONICAL_STUB_FIELDS) if (fields[field] !== undefined) kept[field] = fields[field];
  return kept;
}

export function canonicalTargetOf(doc: PrismicDocument): CanonicalTarget | undefined {
  if (doc.type !== "page") return undefined;
  const field = (doc.data as { canonical_url?: unknown } | undefined)?.canonical_url;
  // Read as the API sent it (the sitemap reads documents unnormalised): anything but a link object is empty.
  if (typeof field !== "object" || field === null) return undefined;
  const link = field as { link_type?: unknown; id?: unknown; url?: unknown };
  if (link.link_type === "Document" && typeof link.id === "string" && link.id) return { document: link.id };
  if (link.link_type === "Web" && typeof link.url === "string" && link.url.trim()) return { web: link.url };
  return undefined;
}

/**
 * Whether the sitemap offers a page to search engines: not `noindex`, and canonical to itself (an
 * override naming another address says that address is the one to index; listing both would
 * send search engines conflicting signals). Anything but a page is listed.
 */
export function listedInSitemap(doc: PrismicDocument, path: string, siteUrl: string): boolean {
  if (doc.type !== "page") return true;
  if (noindexOf(doc)) return false;
  if (!canonicalTargetOf(doc)) return true;
  const canonical = canonicalOverrideOf(doc as PageDocument, siteUrl);
  return canonical === undefined || canonical === absoluteUrl(siteUrl, path);
}
