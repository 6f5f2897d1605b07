import type { MasterDocuments } from "./master-documents.ts";
import type { DocumentSet } from "./query/document-set.ts";
import type { PrismicDocument } from "./query/index.ts";

/**
 * A ref's documents as the master's with a few laid over them: `over` maps an id to the document
 * this ref shows instead (undefined: none). A past ref is the master with the undos of the
 * publishes since; a preview, the master with the drafts. Made from what differs, read through to
 * the master for the rest: a search at the ref a build started on, or at a preview, copies no map
 * of every document. Valid until the master next changes (the store makes past refs' sets again
 * after a publish; a search is answered in one go).
 *
 * Order, as the master's: a document shown instead of the master's keeps its place; one the master
 * no longer has (removed, or removed and published again since) goes back to the place it had; a
 * draft of a document never published comes last, in the drafts' order.
 */
export function overlaySet(
  master: MasterDocuments,
  over: ReadonlyMap<string, PrismicDocument | undefined>,
): DocumentSet {
  const news = [...over.keys()].filter((id) => !master.byId.has(id));
  const newPlace = (id: string) => Number.MAX_SAFE_INTEGER / 2 + news.indexOf(id);
  const placeOf = (doc: PrismicDocument): number => {
    const own = master.placeOf(doc);
    if (own !== Number.MAX_SAFE_INTEGER) return own;
    const current = master.byId.get(doc.id);
    return current ? master.placeOf(current) : newPlace(doc.id);
  };
  /** Whether the master's document `current` is where this ref's version of it goes. */
  const inPlace = (shown: PrismicDocument, current: PrismicDocument) =>
    master.placeOf(shown) === Number.MAX_SAFE_INTEGER || master.placeOf(shown) === master.placeOf(current);
  // The documents this ref shows that the master does not have in their place, by place.
  const elsewhere = [...over.values()]
    .filter((doc): doc is PrismicDocument => {
      if (!doc) return false;
      const current = master.byId.get(doc.id);
      return !current || !inPlace(doc, current);
    })
    .sort((a, b) => placeOf(a) - placeOf(b));
  let size = master.size;
  for (const [id, doc] of over) {
    if (master.byId.has(id)) size -= doc ? 0 : 1;
    else if (doc) size++;
  }
  function* values(): Generator<PrismicDocument> {
    let next = 0;
    for (const current of master.byId.values()) {
      const place = master.placeOf(current);
      while (next < elsewhere.length && placeOf(elsewhere[next] as PrismicDocument) < place)
        yield elsewhere[next++] as PrismicDocument;
      if (!over.has(current.id)) yield current;
      else {
        const shown = over.get(current.id);
        if (shown && inPlace(shown, current)) yield shown;
      }
    }
    while (next < elsewhere.length) yield elsewhere[next++] as PrismicDocument;
  }
  const get = (id: string) => (over.has(id) ? over.get(id) : master.byId.get(id));
  const byId: ReadonlyMap<string, PrismicDocument> = {
    get,
    has: (id) => get(id) !== undefined,
    size,
    values,
    *keys() {
      for (const doc of values()) yield doc.id;
    },
    *entries() {
      for (const doc of values()) yield [doc.id, doc];
    },
    [Symbol.iterator]() {
      return this.entries();
    },
    forEach(callback, thisArg) {
      for (const doc of values()) callback.call(thisArg, doc, doc.id, byId);
    },
  } as ReadonlyMap<string, PrismicDocument>;
  return { byId, placeOf };
}
