import type { PrismicDocument } from "@prismicio/client";
import type { ContentSource } from "./content-source.ts";
import { linkedDocumentIds } from "./document-links.ts";

export interface RecordingOptions {
  /**
   * Also record the documents each returned document links to (default true):
   * right for anything that renders document data. A listing that shows only
   * the documents' own urls and dates (the sitemap) turns it off.
   */
  links?: boolean;
}

export interface RecordingSource {
  source: ContentSource;
  /** `doc:<id>` and `type:<type>` read so far, sorted and deduplicated. */
  dependencies(): string[];
}

/**
 * Wraps a source so that a render's reads become its dependencies (the
 * dependency index, ARCHITECTURE.md): `doc:<id>` for every document returned
 * and every document its data links to, `type:<type>` for every listing.
 * Recording at the source, not in components, means no component can forget it.
 */
export function recordingSource(source: ContentSource, options: RecordingOptions = {}): RecordingSource {
  const links = options.links ?? true;
  const seen = new Set<string>();
  const record = <T extends PrismicDocument | undefined>(doc: T): T => {
    if (doc) {
      seen.add(`doc:${doc.id}`);
      if (links) for (const id of linkedDocumentIds(doc)) seen.add(`doc:${id}`);
    }
    return doc;
  };
  return {
    source: {
      getSettings: async () => record(await source.getSettings()),
      getPageByUID: async (uid) => record(await source.getPageByUID(uid)),
      getPriceListByUID: async (uid) => record(await source.getPriceListByUID(uid)),
      getByID: async (id) => record(await source.getByID(id)),
      getAllByType: async (type) => {
        const documents = await source.getAllByType(type);
        seen.add(`type:${type}`);
        for (const doc of documents) record(doc);
        return documents;
      },
    },
    dependencies: () => [...seen].sort(),
  };
}
