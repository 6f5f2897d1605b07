import type { BuiltWith, IndexedDocument } from "#worker/publish/dependency-index.ts";

/** A document as the dependency index holds it (`DependencyIndex.replace`): its uid from its route, fixed dates. */
export function indexedDocument(
  type: string,
  route: string | null,
  extra: Partial<IndexedDocument> = {},
): IndexedDocument {
  return {
    route,
    type,
    uid: route?.slice(1) ?? null,
    lang: "en-us",
    first_publication_date: "2026-11-01T10:00:00+0000",
    last_publication_date: "2026-11-02T10:00:00+0000",
    hash: `h-${route}`,
    ...extra,
  };
}

/** The code an index written directly by a test says it was built with. */
export const TEST_BUILT_WITH: BuiltWith = {
  version: "v1",
  frame: "f1",
  modules: { hashes: {}, imports: {} },
};
