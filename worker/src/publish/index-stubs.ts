import type { PrismicDocument } from "@prismicio/client";
import { type CanonicalTarget, website } from "#website";
import { compactStubs, stub } from "../build/document-hash.ts";
import type { DependencyIndex, IndexedDocument } from "./dependency-index.ts";

/**
 * Document-shaped stubs of what the index knows, by type, with a publish's overlay laid over it
 * (null: gone), for listings (the sitemap reads routes and dates only). Every type the site publishes
 * has its list, empty or not: no listing of the sitemap reads through to the content API. Made as
 * the index is read, 1,000 documents at a time: 100,000 indexed documents are never held at once
 * beside their stubs (37 MB of them at 100,000). In the index's order, an overlaid document in its
 * place, a new one after.
 */
export async function indexStubs(
  index: DependencyIndex,
  overlay: ReadonlyMap<string, IndexedDocument | null>,
): Promise<Map<string, PrismicDocument[]>> {
  const byType = new Map<string, PrismicDocument[]>(website.types.map((type) => [type, []]));
  const compact = compactStubs();
  // A stub holds what a canonical link to its document shows: its route, type, uid and language.
  const byId = new Map<string, PrismicDocument>();
  // Stubs whose canonical override names a document: their data once every stub is known.
  const pointing: [PrismicDocument, CanonicalTarget, boolean][] = [];
  const add = (id: string, doc: IndexedDocument) => {
    const named = doc.canonical && "document" in doc.canonical ? doc.canonical : undefined;
    const made = compact(
      stub({
        id,
        uid: doc.uid,
        url: doc.route,
        type: doc.type,
        href: "",
        tags: [],
        first_publication_date: doc.first_publication_date ?? "",
        last_publication_date: doc.last_publication_date ?? "",
        slugs: [],
        linked_documents: [],
        lang: doc.lang,
        alternate_languages: [],
        // What the sitemap reads beyond routes and dates: whether the page is listed at all.
        data: stubData(doc.noindex === true, named ? undefined : doc.canonical, byId),
      } as PrismicDocument),
    );
    if (named) pointing.push([made, named, doc.noindex === true]);
    byId.set(id, made);
    const stubs = byType.get(made.type) ?? [];
    byType.set(made.type, stubs);
    stubs.push(made);
  };
  await index.eachDocument((id, doc) => {
    const over = overlay.get(id);
    if (over !== undefined) {
      if (over) add(id, over);
    } else add(id, doc);
  });
  for (const [id, doc] of overlay) if (doc && !byId.has(id)) add(id, doc);
  for (const [made, target, noindex] of pointing)
    made.data = stubData(noindex, target, byId) as PrismicDocument["data"];
  return byType;
}

function stubData(
  noindex: boolean,
  canonical: CanonicalTarget | undefined,
  stubs: ReadonlyMap<string, PrismicDocument>,
): Record<string, unknown> {
  return website.seo.stubData({
    noindex,
    ...(canonical ? { canonical: canonicalLink(canonical, stubs) } : {}),
  });
}

/**
 * A canonical override as the content API would send it at this state of the index: a link to a
 * document carries the target's route now (broken when it is gone or has none), so the sitemap
 * decides as a full build reading the API does.
 */
function canonicalLink(target: CanonicalTarget, stubs: ReadonlyMap<string, PrismicDocument>): unknown {
  if ("web" in target) return { link_type: "Web", url: target.web };
  const doc = stubs.get(target.document);
  if (!doc?.url) return { link_type: "Document", id: target.document, isBroken: true };
  return {
    link_type: "Document",
    id: target.document,
    type: doc.type,
    uid: doc.uid,
    lang: doc.lang,
    url: doc.url,
    isBroken: false,
  };
}
