/**
 * Refreshes every Document link inside a document's data (top-level fields,
 * groups, slices' primary/items, and rich text `spans[].data`) from the target
 * document as it exists at the ref, and fills its `url` from the route resolver.
 */

import { type FieldList, pickFields } from "./field-lists.ts";
import { type Route, resolveUrl } from "./routes.ts";
import { isRecord, type PrismicDocument } from "./types.ts";

export interface LinkContext {
  /** Every document at the ref, whatever the query matched or its language. */
  documentsById: ReadonlyMap<string, PrismicDocument>;
  /** The route resolver; null when the request had no `routes` (then every url is null). */
  routes: readonly Route[] | null;
  /** The url of broken links; only used together with `routes`. */
  brokenRoute: string | null;
  masterLang: string;
  fetchLinks: FieldList | null;
}

/** Metadata keys of a link that are always recomputed; any other key (text, variant…) is kept. */
const LINK_METADATA = new Set([
  "link_type",
  "id",
  "uid",
  "type",
  "tags",
  "lang",
  "slug",
  "first_publication_date",
  "last_publication_date",
  "isBroken",
  "url",
  "data",
]);

/** A deep copy of `value` with every Document link refreshed; the input is left untouched. */
export function resolveLinks(value: unknown, context: LinkContext): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveLinks(item, context));
  if (!isRecord(value)) return value;
  if (value.link_type === "Document" && typeof value.id === "string")
    return refreshLink(value, value.id, context);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = resolveLinks(item, context);
  return copy;
}

/** The url of a document under the request's routes (null without routes). */
export function documentUrl(doc: PrismicDocument, context: LinkContext): string | null {
  return context.routes === null ? null : resolveUrl(context.routes, doc, context.masterLang);
}

function refreshLink(
  link: Record<string, unknown>,
  id: string,
  context: LinkContext,
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(link)) {
    if (!LINK_METADATA.has(key)) kept[key] = structuredClone(item);
  }
  const target = context.documentsById.get(id);
  if (target === undefined) {
    // Shaped like Prismic's answer for a link to an unpublished or deleted document.
    return {
      ...kept,
      link_type: "Document",
      id,
      type: "broken_type",
      tags: [],
      slug: "-",
      lang: context.masterLang,
      first_publication_date: null,
      last_publication_date: null,
      url: context.routes === null ? null : context.brokenRoute,
      isBroken: true,
    };
  }
  const fetched = context.fetchLinks?.get(target.type);
  return {
    ...kept,
    link_type: "Document",
    id: target.id,
    type: target.type,
    tags: [...target.tags],
    lang: target.lang,
    slug: target.slugs[0] ?? "-",
    first_publication_date: target.first_publication_date,
    last_publication_date: target.last_publication_date,
    // Prismic leaves uid out for types without one.
    ...(target.uid === null ? {} : { uid: target.uid }),
    url: documentUrl(target, context),
    ...(fetched === undefined ? {} : { data: pickFields(target.data, fetched) }),
    isBroken: false,
  };
}
