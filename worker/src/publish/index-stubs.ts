import type { PrismicDocument } from "@prismicio/client";
import { type CanonicalTarget, website } from "#website";
import { ListedStubs } from "../build/listed-stubs.ts";
import type { StubFiles } from "../build/stub-files.ts";
import type { DependencyIndex, IndexedDocument } from "./dependency-index.ts";

/** What a publish's listings read of the index: each type's stubs, and the file they wait in. */
export interface IndexListings {
  /**
   * Every type the site publishes, each with its stubs, empty or not: no listing of the sitemap
   * reads through to the content API. Each pass reads them again from a temporary file.
   */
  readonly byType: ReadonlyMap<string, Iterable<PrismicDocument>>;
  /** The same stubs where a render thread of this process reads them itself (stub-files.ts), until `close`. */
  forThread(): StubFiles;
  /** Lets go of the temporary files. */
  close(): void;
}

/**
 * Document-shaped stubs of what the index knows, by type, with a publish's overlay laid over it
 * (null: gone), for listings (the sitemap reads routes and dates only). Made as the index is read,
 * 1,000 documents at a time, and written to a temporary file per type (listed-stubs.ts), as a build
 * keeps its stubs: a listing reads them back a chunk at a time at each pass, so no stub is held
 * whole (100,000 of them as objects held ~60 MB of a worker's heap while the sitemap rendered). A
 * stub whose canonical override names a document waits in a temporary file of its own until the
 * targets are read (one request for all of them after the pass), then is written after the others
 * of its type. Held in memory, they would be cloned to the render thread with every sitemap: ~100
 * ms a publish where a third of 100,000 pages name one (a generated site's random links).
 */
export async function indexStubs(
  index: DependencyIndex,
  overlay: ReadonlyMap<string, IndexedDocument | null>,
): Promise<IndexListings> {
  const files = new Map<string, ListedStubs>(website.types.map((type) => [type, new ListedStubs()]));
  const fileOf = (type: string) => {
    let file = files.get(type);
    if (!file) {
      file = new ListedStubs();
      files.set(type, file);
    }
    return file;
  };
  // Stubs whose canonical override names a document wait in a file of their own until the targets
  // are read; what each needs of its override waits beside them, in the same order.
  const waiting = new ListedStubs();
  const waitingFor: { target: string; noindex: boolean }[] = [];
  // The overlay's documents the index holds: the others are new, added after the index's.
  const overlaid = new Set<string>();
  // Most stubs' data: written to their file as they are made, so they may share it.
  const plain = [stubData(false, undefined, undefined), stubData(true, undefined, undefined)] as const;
  const add = (id: string, doc: IndexedDocument) => {
    const named = doc.canonical && "document" in doc.canonical ? doc.canonical.document : undefined;
    const noindex = doc.noindex === true;
    // A stub as document-hash.ts `stub` makes it of the API's document (the same fields, in the same
    // order), made here from what the index recorded of it.
    const made = {
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
      data: named ? {} : doc.canonical ? stubData(noindex, doc.canonical, undefined) : plain[noindex ? 1 : 0],
    } as PrismicDocument;
    if (named === undefined) fileOf(doc.type).add(made);
    else {
      waiting.add(made);
      waitingFor.push({ target: named, noindex });
    }
  };
  try {
    await index.eachDocument((id, doc) => {
      const over = overlay.get(id);
      if (over === undefined) add(id, doc);
      else {
        overlaid.add(id);
        if (over) add(id, over);
      }
    });
    for (const [id, doc] of overlay) if (doc && !overlaid.has(id)) add(id, doc);
    const targets = await targetsOf(
      index,
      overlay,
      waitingFor.map(({ target }) => target),
    );
    let i = 0;
    for (const made of waiting.drain()) {
      const { target, noindex } = waitingFor[i++] as (typeof waitingFor)[number];
      made.data = stubData(noindex, { document: target }, targets) as PrismicDocument["data"];
      fileOf(made.type).add(made);
    }
  } catch (error) {
    waiting.close();
    for (const file of files.values()) file.close();
    throw error;
  }
  return {
    byType: files,
    forThread: () => ({ types: [...files].map(([type, file]) => ({ type, ...file.where() })) }),
    close: () => {
      for (const file of files.values()) file.close();
    },
  };
}

/** The documents canonical overrides name, at this state of the index (the overlay first; absent: gone). */
async function targetsOf(
  index: DependencyIndex,
  overlay: ReadonlyMap<string, IndexedDocument | null>,
  ids: readonly string[],
): Promise<ReadonlyMap<string, IndexedDocument>> {
  const found = new Map<string, IndexedDocument>();
  const unknown: string[] = [];
  for (const id of new Set(ids)) {
    const over = overlay.get(id);
    if (over === undefined) unknown.push(id);
    else if (over) found.set(id, over);
  }
  for (const [id, doc] of await index.documents(unknown)) found.set(id, doc);
  return found;
}

function stubData(
  noindex: boolean,
  canonical: CanonicalTarget | undefined,
  targets: ReadonlyMap<string, IndexedDocument> | undefined,
): Record<string, unknown> {
  return website.seo.stubData({
    noindex,
    ...(canonical ? { canonical: canonicalLink(canonical, targets) } : {}),
  });
}

/**
 * A canonical override as the content API would send it at this state of the index: a link to a
 * document carries the target's route now (broken when it is gone or has none), so the sitemap
 * decides as a full build reading the API does.
 */
function canonicalLink(
  target: CanonicalTarget,
  targets: ReadonlyMap<string, IndexedDocument> | undefined,
): unknown {
  if ("web" in target) return { link_type: "Web", url: target.web };
  const doc = targets?.get(target.document);
  if (!doc?.route) return { link_type: "Document", id: target.document, isBroken: true };
  return {
    link_type: "Document",
    id: target.document,
    type: doc.type,
    uid: doc.uid,
    lang: doc.lang,
    url: doc.route,
    isBroken: false,
  };
}
