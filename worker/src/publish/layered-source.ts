import type { PrismicDocument } from "@prismicio/client";
import { type ContentSource, createMemorySource } from "#web/content/index.ts";

/**
 * What a publish renders from: the documents it just fetched (by id, at the
 * new ref) answer first; anything else comes from the content API at the
 * same ref. Ids that were changed but not returned are gone: asking the API
 * again for them would be a wasted request with the same answer.
 */
export function layeredSource(
  fetched: readonly PrismicDocument[],
  gone: ReadonlySet<string>,
  fallback: ContentSource,
  listings?: Partial<Record<"page" | "price_list", readonly PrismicDocument[]>>,
): ContentSource {
  const first = createMemorySource(fetched);
  const hasSettings = fetched.some((doc) => doc.type === "settings");
  const fetchedUids = new Set(fetched.map((doc) => `${doc.type}:${doc.uid}`));
  return {
    getSettings: () => (hasSettings ? first.getSettings() : fallback.getSettings()),
    getPageByUID: (uid) =>
      fetchedUids.has(`page:${uid}`) ? first.getPageByUID(uid) : fallback.getPageByUID(uid),
    getPriceListByUID: (uid) =>
      fetchedUids.has(`price_list:${uid}`) ? first.getPriceListByUID(uid) : fallback.getPriceListByUID(uid),
    getByID: async (id) => (gone.has(id) ? undefined : ((await first.getByID(id)) ?? fallback.getByID(id))),
    getAllByType: (type) => {
      const listed = listings?.[type];
      return listed ? Promise.resolve(listed as never) : fallback.getAllByType(type);
    },
  };
}
