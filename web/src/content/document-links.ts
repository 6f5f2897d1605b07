import type { PrismicDocument } from "@prismicio/client";

const cache = new WeakMap<object, readonly string[]>();

/**
 * The ids of every document that `doc`'s data links to (link fields, rich
 * text hyperlinks, content relationships, at any depth). A render that shows
 * a document's data may show these links' `url`s, which change with the
 * target's uid, so the render depends on the targets. Recording every link
 * in the data, rendered or not, over-approximates on purpose: an extra
 * re-render costs little, a missed one serves a stale link.
 *
 * Cached per document object: a memory source hands the same objects to
 * every render of a build, so each document is walked once.
 */
export function linkedDocumentIds(doc: PrismicDocument): readonly string[] {
  let ids = cache.get(doc);
  if (!ids) {
    const found = new Set<string>();
    collect(doc.data, found);
    ids = [...found];
    cache.set(doc, ids);
  }
  return ids;
}

function collect(value: unknown, found: Set<string>): void {
  if (typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) collect(item, found);
    return;
  }
  const record = value as Record<string, unknown>;
  if (record.link_type === "Document" && typeof record.id === "string") found.add(record.id);
  for (const key in record) collect(record[key], found);
}
