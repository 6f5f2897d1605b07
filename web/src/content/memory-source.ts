import type { PrismicDocument } from "@prismicio/client";
import {
  type AllDocumentTypes,
  type ContentSource,
  type DocumentOfType,
  type ListedType,
  MissingSettingsError,
  type PageDocument,
  type PriceListDocument,
  type SettingsDocument,
} from "./content-source.ts";

/**
 * Documents already fetched at one ref (a full build lists them all once):
 * every lookup is a Map read, so a render does no I/O. The documents are
 * indexed, not copied; they must carry `url` (fetched with the route resolver).
 */
export function createMemorySource(documents: readonly PrismicDocument[]): ContentSource {
  const byId = new Map<string, AllDocumentTypes>();
  const byTypeUid = new Map<string, AllDocumentTypes>();
  const byType = new Map<string, AllDocumentTypes[]>();
  for (const raw of documents) {
    const doc = raw as AllDocumentTypes;
    byId.set(doc.id, doc);
    // uids are unique per type and language; the site is single-language, the first one wins.
    const uidKey = `${doc.type}:${doc.uid}`;
    if (doc.uid && !byTypeUid.has(uidKey)) byTypeUid.set(uidKey, doc);
    const list = byType.get(doc.type);
    if (list) list.push(doc);
    else byType.set(doc.type, [doc]);
  }
  const settings = byType.get("settings")?.[0] as SettingsDocument | undefined;
  const empty: readonly never[] = Object.freeze([]);

  return {
    getSettings: async () => {
      if (!settings) throw new MissingSettingsError("among the documents given to the memory source");
      return settings;
    },
    getPageByUID: async (uid) => byTypeUid.get(`page:${uid}`) as PageDocument | undefined,
    getPriceListByUID: async (uid) => byTypeUid.get(`price_list:${uid}`) as PriceListDocument | undefined,
    getByID: async (id) => byId.get(id),
    getAllByType: async <T extends ListedType>(type: T) =>
      (byType.get(type) ?? empty) as readonly DocumentOfType<T>[],
  };
}
