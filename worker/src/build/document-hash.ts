import type { PrismicDocument } from "@prismicio/client";
import { sha256 } from "#storage";

/**
 * A short hash of what a document's own publications set: its data, uid, tags and dates. Left out
 * is what reflects other documents or the ref: `href` (names the ref), `alternate_languages`, and
 * in each link to a document everything but its id (the API copies the target's uid, dates and tags
 * into the link, so publishing the target would change every document linking to it). About 20–40 µs
 * a document; reconcile compares it with the index's to find publications no webhook announced.
 * A build computes it on the render thread that parses the document (render-batch.ts).
 */
export function documentHash(doc: PrismicDocument): string {
  const { href: _href, alternate_languages: _alternates, ...own } = doc;
  return sha256(JSON.stringify(own, (_key, value) => (isDocumentLink(value) ? value.id : value))).slice(
    0,
    24,
  );
}

function isDocumentLink(value: unknown): value is { id: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { link_type?: unknown }).link_type === "Document" &&
    typeof (value as { id?: unknown }).id === "string"
  );
}

/** What listings read of a document: its identity, route and dates, without its content. */
export function stub(doc: PrismicDocument): PrismicDocument {
  return { ...doc, data: {}, alternate_languages: [], linked_documents: [] };
}
