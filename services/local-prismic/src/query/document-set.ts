/**
 * The documents that exist at one ref, as the search reads them: by id, iterated in creation order
 * (the default order of every answer, and of ties). The store keeps the master ref's set up to
 * date in place, publish by publish (store.ts), with indexes that answer a query naming documents
 * by id, by type or by uid without reading every document; a plain list gets the by-id index only.
 */

import { oncePer } from "../once-per.ts";
import type { PrismicDocument } from "./types.ts";

export interface DocumentSet {
  /** Every document by id, iterated in creation order. */
  readonly byId: ReadonlyMap<string, PrismicDocument>;
  /** Orders documents of this set as `byId` iterates them (any increasing numbers). */
  placeOf(doc: PrismicDocument): number;
  /** The documents of a type, in creation order (a set without this index has no such method). */
  ofType?(type: string): Iterable<PrismicDocument>;
  /** The documents of a type that have a uid, in any language, in any order. */
  withUid?(type: string, uid: string): readonly PrismicDocument[];
}

/** A list's set, made once per list (a list is never changed once made). */
export const documentSetOf = oncePer((documents: readonly PrismicDocument[]): DocumentSet => {
  const byId = new Map(documents.map((doc) => [doc.id, doc]));
  return { byId, placeOf: placesIn(byId) };
});

/**
 * `placeOf` for a map made once and never changed afterwards (a past ref's, a preview's): each
 * document's place in the map's order, counted on the first call (the search asks only to put
 * documents named by id in order).
 */
export function placesIn(byId: ReadonlyMap<string, PrismicDocument>): (doc: PrismicDocument) => number {
  let places: Map<string, number> | undefined;
  return (doc) => {
    if (!places) {
      places = new Map();
      for (const id of byId.keys()) places.set(id, places.size);
    }
    return places.get(doc.id) ?? Number.MAX_SAFE_INTEGER;
  };
}
