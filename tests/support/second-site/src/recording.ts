import type { PrismicDocument } from "@prismicio/client";
import type { ContentSource } from "#content/source.ts";

/**
 * A source that remembers what a render read, in the engine's dependency grammar
 * (services/shared/src/content/dependencies.ts): `doc:<id>` for every document returned (shown),
 * `type:<type>` for a listing, `routes:<type>` when the listing shows only routes and dates (the
 * sitemap). This site renders no link to a single document outside a listing, so it records no
 * `url:`/`sees:`.
 */
export function recording(source: ContentSource, options: { routesOnly?: boolean } = {}) {
  const read = new Set<string>();
  const shown = <T extends PrismicDocument | undefined>(doc: T): T => {
    if (doc) read.add(`doc:${doc.id}`);
    return doc;
  };
  const recorded: ContentSource = {
    getSingle: async (type) => shown(await source.getSingle(type)),
    getByUID: async (type, uid) => shown(await source.getByUID(type, uid)),
    getByID: async (id) => shown(await source.getByID(id)),
    getAllByType: async (type) => {
      read.add(`${options.routesOnly ? "routes" : "type"}:${type}`);
      return source.getAllByType(type);
    },
    countByType: async (type) => {
      read.add(`count:${type}`);
      return source.countByType(type);
    },
  };
  return { source: recorded, dependencies: () => [...read].sort() };
}
