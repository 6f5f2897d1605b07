import type { PrismicDocument } from "@prismicio/client";
import { routeForDocument } from "../routes.ts";
import { documentCache } from "./document-cache.ts";

/** The documents a document's data links to, by what a render can show of each. */
export interface DocumentLinks {
  /** Targets linked with some of their own data fetched into the link (`data`): a render may show it. */
  shown: readonly string[];
  /** Targets linked by id only: a render shows their `url` (their route) and nothing else of them. */
  linked: readonly string[];
  /**
   * Where each target of `linked` pointed in this document (its route, "" when the link is broken or
   * the target has none): what a render that links to it shows of it.
   */
  pointsTo: ReadonlyMap<string, string>;
}

const cache = documentCache<DocumentLinks>("links");

/**
 * Every document `doc`'s data links to (link fields, rich text hyperlinks,
 * content relationships, at any depth), split by grain. A plain link's markup
 * depends on where it points — the target's route, or nothing when the target
 * is gone — never on the target's content; a link carrying fetched `data`
 * (fetchLinks, graphQuery) may show that data, so it counts as showing the
 * target. Recording every link in the data, rendered or not, over-approximates
 * on purpose: an extra re-render costs little, a missed one serves a stale link.
 *
 * Cached per document object: a memory source hands the same objects to
 * every render of a build, so each document is walked once.
 */
export function documentLinks(doc: PrismicDocument): DocumentLinks {
  let links = cache.get(doc);
  if (!links) {
    const shown = new Set<string>();
    const linked = new Map<string, string>();
    collect(doc.data, shown, linked);
    for (const id of shown) linked.delete(id);
    links = { shown: [...shown], linked: [...linked.keys()], pointsTo: linked };
    cache.set(doc, links);
  }
  return links;
}

function collect(value: unknown, shown: Set<string>, linked: Map<string, string>): void {
  if (typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) collect(item, shown, linked);
    return;
  }
  const record = value as Record<string, unknown>;
  if (record.link_type === "Document" && typeof record.id === "string") {
    if (record.data !== undefined) shown.add(record.id);
    else linked.set(record.id, linkedRoute(record));
  }
  for (const key in record) collect(record[key], shown, linked);
}

/** The route a link points to as the API returned it ("" for a broken link: `broken_type` has none). */
function linkedRoute(link: Record<string, unknown>): string {
  if (link.isBroken === true || typeof link.type !== "string") return "";
  return routeForDocument({ type: link.type, uid: typeof link.uid === "string" ? link.uid : null }) ?? "";
}
