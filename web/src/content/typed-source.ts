import type { SlotRange } from "#content/dependencies.ts";
import type { ContentSource as EngineSource } from "#content/source.ts";
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
 * The site's typed view of the content the engine hands a render (any ref, memory or API): the
 * demo's document types by name, and settings required (every page's layout needs one).
 */
export function typedSource(source: EngineSource): ContentSource {
  return {
    getSettings: async () => {
      const settings = await source.getSingle("settings");
      if (!settings) throw new MissingSettingsError("in the content the render was given");
      return settings as SettingsDocument;
    },
    getPageByUID: async (uid) => (await source.getByUID("page", uid)) as PageDocument | undefined,
    getPriceListByUID: async (uid) =>
      (await source.getByUID("price_list", uid)) as PriceListDocument | undefined,
    getByID: async (id) => (await source.getByID(id)) as AllDocumentTypes | undefined,
    getAllByType: async <T extends ListedType>(type: T, slots?: SlotRange) =>
      (await source.getAllByType(type, slots)) as Iterable<DocumentOfType<T>>,
    countByType: (type) => source.countByType(type),
  };
}
