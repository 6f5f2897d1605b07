import type { SlotRange } from "#content/dependencies.ts";
import type {
  AllDocumentTypes,
  PageDocument,
  PriceListDocument,
  SettingsDocument,
} from "../../prismicio-types.d.ts";

export type { AllDocumentTypes, PageDocument, PriceListDocument, SettingsDocument };

/** The document types that have routes and listings. */
export type ListedType = "page" | "price_list";

export type DocumentOfType<T extends ListedType> = T extends "page" ? PageDocument : PriceListDocument;

/**
 * Everything a render reads, at ONE ref: a render never sees two versions of
 * the content. Implementations: the content client (preview, publish) and an
 * in-memory set of documents (a full build preloads every document once).
 * Returned documents are shared, never copied: treat them as read-only.
 */
export interface ContentSource {
  getSettings(): Promise<SettingsDocument>;
  getPageByUID(uid: string): Promise<PageDocument | undefined>;
  getPriceListByUID(uid: string): Promise<PriceListDocument | undefined>;
  getByID(id: string): Promise<AllDocumentTypes | undefined>;
  /**
   * Every document of a type, to iterate once per use: a build reads a routed type's stubs again
   * from its temporary file each time (the engine's `getAllByType`). Keep what is shown, not them.
   * With `slots`, the source may answer only the documents in those listing slots, or all: filter.
   */
  getAllByType<T extends ListedType>(type: T, slots?: SlotRange): Promise<Iterable<DocumentOfType<T>>>;
  /** How many documents of a type there are. */
  countByType(type: ListedType): Promise<number>;
}

/** There is no settings document: every page's layout needs one, so nothing can render. */
export class MissingSettingsError extends Error {
  override readonly name = "MissingSettingsError";
  constructor(where: string) {
    super(
      `No "settings" document ${where}: publish one (brand, navigation, footer) before rendering the site`,
    );
  }
}
