import type { PrismicDocument } from "@prismicio/client";
import { sha256 } from "#storage/content-hash.ts";
import { website } from "#website";

/**
 * A short hash of what a document's own publications set: its data, uid, tags and dates. Left out
 * is what reflects other documents or the ref: `href` (names the ref), `alternate_languages`, and
 * in each link to a document everything but its id (the API copies the target's uid, dates and tags
 * into the link, so publishing the target would change every document linking to it). About 20–40 µs
 * a document; reconcile compares it with the index's to find publications no webhook announced.
 * A build computes it on the render thread that parses the document (render-batch.ts).
 */
export function documentHash(doc: PrismicDocument, links?: string[]): string {
  const { href: _href, alternate_languages: _alternates, ...own } = doc;
  // The bytes `JSON.stringify(own, replacer)` would give with a replacer turning each document link
  // into its id, but without one: V8 calls a replacer for every value, several times slower. Only
  // the objects holding a link are copied with ids; the native stringify does the rest.
  return sha256(JSON.stringify(linksAsIds(own, links))).slice(0, 24);
}

/**
 * `value` with every document link replaced by its id (JSON.stringify's replacer order: depth
 * first, keys in order), sharing every object and array that holds no link. `links` gets each
 * link's facts (linkFacts) in that order.
 */
function linksAsIds(value: unknown, links: string[] | undefined): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (isDocumentLink(value)) {
    if (links) links.push(linkFacts(value));
    return value.id;
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const changed = linksAsIds(item, links);
      if (changed !== item) {
        copy ??= value.slice();
        copy[i] = changed;
      }
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const changed = linksAsIds(item, links);
    if (changed !== item) {
      copy ??= { ...record };
      copy[key] = changed;
    }
  }
  return copy ?? value;
}

/**
 * What a page can show of a document link: everything the API wrote into it but what follows every
 * edit of the target without being shown: `slug` (made from its title) and its publication dates
 * (the local content service writes them into links). No template reads them:
 * tests/unit/render-inputs.test.ts renders every demo route with them changed to check.
 */
function linkFacts(link: { id: string }): string {
  const {
    slug: _slug,
    first_publication_date: _first,
    last_publication_date: _last,
    ...facts
  } = link as Record<string, unknown>;
  return JSON.stringify(facts);
}

function isDocumentLink(value: unknown): value is { id: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { link_type?: unknown }).link_type === "Document" &&
    typeof (value as { id?: unknown }).id === "string"
  );
}

/**
 * What listings read of a document: its identity, route and dates, and whether the sitemap lists
 * it (`website.seo`: its `noindex` and canonical override), without its content.
 */
export function stub(doc: PrismicDocument): PrismicDocument {
  const data = {
    ...(website.seo.noindexOf(doc) ? { noindex: true } : {}),
    ...(website.seo.canonicalTargetOf(doc)
      ? { canonical_url: (doc.data as { canonical_url?: unknown }).canonical_url }
      : {}),
  };
  return { ...doc, data, alternate_languages: [], linked_documents: [] };
}
