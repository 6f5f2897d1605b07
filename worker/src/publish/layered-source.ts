import type { PrismicDocument } from "@prismicio/client";
import { type ContentSource, countOf, createMemorySource } from "#content/source.ts";

/**
 * What a publish renders from: the documents it just fetched (by id, at the new ref) answer first;
 * anything else comes from the content API at the same ref. Ids that were changed but not returned
 * are gone: asking the API again for them would be a wasted request with the same answer.
 * `listings`, by type, answer `getAllByType` instead of the API (the sitemap's stubs of the index).
 */
export function layeredSource(
  fetched: readonly PrismicDocument[],
  gone: ReadonlySet<string>,
  fallback: ContentSource,
  listings?: ReadonlyMap<string, Iterable<PrismicDocument>>,
): ContentSource {
  const first = createMemorySource(fetched);
  const fetchedTypes = new Set(fetched.map((doc) => doc.type));
  const fetchedUids = new Set(fetched.map((doc) => `${doc.type}:${doc.uid}`));
  return {
    // A singleton fetched with the changed ids is the one at this ref.
    getSingle: (type) => (fetchedTypes.has(type) ? first.getSingle(type) : fallback.getSingle(type)),
    getByUID: (type, uid) =>
      fetchedUids.has(`${type}:${uid}`) ? first.getByUID(type, uid) : fallback.getByUID(type, uid),
    getByID: async (id) => (gone.has(id) ? undefined : ((await first.getByID(id)) ?? fallback.getByID(id))),
    getAllByType: (type) => {
      const listed = listings?.get(type);
      return listed ? Promise.resolve(listed) : fallback.getAllByType(type);
    },
    countByType: (type) => {
      const listed = listings?.get(type);
      return listed ? Promise.resolve(countOf(listed)) : fallback.countByType(type);
    },
  };
}
