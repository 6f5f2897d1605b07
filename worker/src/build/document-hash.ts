import type { PrismicDocument } from "@prismicio/client";
import { sha256 } from "#storage/content-hash.ts";
import { website } from "#website";
import type { CanonicalTarget } from "#website/contract.ts";

/** Hex digits of a document's hash (`documentHash`). */
export const DOCUMENT_HASH_CHARS = 24;

/**
 * A short hash of what a document's own publications set: its data, uid, tags and dates. Left out
 * is what reflects other documents or the ref: `href` (names the ref), `alternate_languages`, and
 * in each link to a document everything but its id (the API copies the target's uid, dates and tags
 * into the link, so publishing the target would change every document linking to it). About 20–40 µs
 * a document; reconcile compares it with the index's to find publications no webhook announced.
 * A build computes it on the render thread that parses the document (render-batch.ts).
 */
export function documentHash(doc: PrismicDocument, links?: string[], targets?: DocumentLink[]): string {
  const { href: _href, alternate_languages: _alternates, ...own } = doc;
  // The bytes `JSON.stringify(own, replacer)` would give with a replacer turning each document link
  // into its id, but without one: V8 calls a replacer for every value, several times slower. Only
  // the objects holding a link are copied with ids; the native stringify does the rest.
  return sha256(JSON.stringify(linksAsIds(own, links, targets))).slice(0, DOCUMENT_HASH_CHARS);
}

/** A link to a document as the API writes it (the target's type, and whether it exists, beside its id). */
export interface DocumentLink {
  id: string;
  type?: unknown;
  isBroken?: unknown;
}

/**
 * `value` with every document link replaced by its id (JSON.stringify's replacer order: depth
 * first, keys in order), sharing every object and array that holds no link. `links` gets each
 * link's facts (linkFacts) in that order.
 */
function linksAsIds(value: unknown, links: string[] | undefined, targets?: DocumentLink[]): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (isDocumentLink(value)) {
    if (links) links.push(linkFacts(value));
    if (targets) targets.push(value);
    return value.id;
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const changed = linksAsIds(item, links, targets);
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
    const changed = linksAsIds(item, links, targets);
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
 * it (`website.seo`: noindex and canonical override, in the site's own fields), without its content.
 */
export function stub(doc: PrismicDocument): PrismicDocument {
  const target = website.seo.canonicalTargetOf(doc);
  const data = website.seo.stubData({
    noindex: website.seo.noindexOf(doc),
    ...(target ? { canonical: canonicalLinkIn(doc, target) } : {}),
  });
  return stubOf(doc, data);
}

/**
 * A stub of `doc` holding `data`. Without its `href` (the query that fetches it at this ref) or its
 * `slugs` (Prismic's deprecated uid history) too, as a publish makes them (index-stubs.ts): nothing
 * reads them, and a build keeps every stub (in its temporary file) until its listings are rendered.
 */
export function stubOf(doc: PrismicDocument, data: Record<string, unknown>): PrismicDocument {
  return { ...doc, href: "", slugs: [], data, alternate_languages: [], linked_documents: [] };
}

/**
 * The canonical override as the API sent it: a web address, or the document's first link to the
 * target (the API fills its `url` with the target's route at this ref).
 */
function canonicalLinkIn(doc: PrismicDocument, target: CanonicalTarget): unknown {
  if ("web" in target) return { link_type: "Web", url: target.web };
  return (
    findDocumentLink(doc.data, target.document) ?? {
      link_type: "Document",
      id: target.document,
      isBroken: true,
    }
  );
}

function findDocumentLink(value: unknown, id: string): unknown {
  if (typeof value !== "object" || value === null) return undefined;
  if (isDocumentLink(value) && value.id === id) return value;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    const found = findDocumentLink(item, id);
    if (found !== undefined) return found;
  }
  return undefined;
}
