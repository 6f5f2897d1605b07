import type { PrismicDocument } from "@prismicio/client";
import { inSlots, LISTING_SLOTS, listingSlotOf, type SlotRange } from "#content/dependencies.ts";
import { type CanonicalTarget, website } from "#website";
import { ListedStubs } from "../build/listed-stubs.ts";
import type { DependencyIndex, IndexedDocument } from "./dependency-index.ts";

/** What a publish's listings read of the index: each type's stubs, and the file they wait in. */
export interface IndexListings {
  /**
   * Every type the site publishes, each with its stubs, empty or not: no listing of the sitemap
   * reads through to the content API. Each pass reads them again from a temporary file.
   */
  readonly byType: ReadonlyMap<string, Iterable<PrismicDocument>>;
  /** How many stubs were made (every document of the index, the overlay laid over it). */
  readonly count: number;
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
    const named = namedTarget(doc);
    const noindex = doc.noindex === true;
    // What the sitemap reads beyond routes and dates: whether the page is listed at all.
    const made = stubOf(
      id,
      doc,
      named ? {} : doc.canonical ? stubData(noindex, doc.canonical, undefined) : plain[noindex ? 1 : 0],
    );
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
    count: [...files.values()].reduce((sum, file) => sum + file.length, 0),
    close: () => {
      for (const file of files.values()) file.close();
    },
  };
}

/**
 * A publish's listings by listing slot (a divided sitemap's parts): the stubs of the documents of a
 * type in some slots, with the overlay laid over them, and how many documents of a type there are,
 * each read from the index when asked (`members:<type>@<slot>`, the COUNTS script): a read costs
 * what it answers, not the site. Held in memory: a part holds about 2,000 documents, an undivided
 * sitemap no more, and a listing page's whole type (the price lists) is a shared type's, few.
 * `read` counts the stubs answered.
 */
export class SlotListings {
  read = 0;
  #counts: Promise<Map<string, number>> | undefined;

  constructor(
    private readonly index: DependencyIndex,
    private readonly overlay: ReadonlyMap<string, IndexedDocument | null>,
  ) {}

  /** How many documents of `type` there are at this state: the index's, with the overlay's joins and leaves. */
  async countByType(type: string): Promise<number> {
    this.#counts ??= (async () => {
      const [held, known] = await Promise.all([
        this.index.counts(website.types),
        this.index.documents([...this.overlay.keys()]),
      ]);
      const counts = new Map(held);
      for (const [id, now] of this.overlay) {
        const before = known.get(id);
        if (before) counts.set(before.type, (counts.get(before.type) ?? 0) - 1);
        if (now) counts.set(now.type, (counts.get(now.type) ?? 0) + 1);
      }
      return counts;
    })();
    return (await this.#counts).get(type) ?? 0;
  }

  /** The stubs of the documents of `type` in `slots` (every slot without). */
  async getAllByType(type: string, slots: SlotRange = EVERY_SLOT): Promise<PrismicDocument[]> {
    const ids = (await this.index.membersIn(type, slots)).filter((id) => !this.overlay.has(id));
    const listed = [...(await this.index.documents(ids))].filter(([, doc]) => doc.type === type);
    for (const [id, doc] of this.overlay)
      if (doc?.type === type && inSlots(listingSlotOf(id), slots)) listed.push([id, doc]);
    const targets = await targetsOf(
      this.index,
      this.overlay,
      listed.flatMap(([, doc]) => namedTarget(doc) ?? []),
    );
    this.read += listed.length;
    return listed.map(([id, doc]) => stubOf(id, doc, stubData(doc.noindex === true, doc.canonical, targets)));
  }
}

const EVERY_SLOT: SlotRange = { from: 0, to: LISTING_SLOTS };

/** The document a canonical override names, if it names one. */
function namedTarget(doc: IndexedDocument): string | undefined {
  return doc.canonical && "document" in doc.canonical ? doc.canonical.document : undefined;
}

/**
 * A stub as document-hash.ts `stub` makes it of the API's document (the same fields, in the same
 * order), made from what the index recorded of it, with `data`.
 */
function stubOf(id: string, doc: IndexedDocument, data: Record<string, unknown>): PrismicDocument {
  return {
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
    data,
  } as PrismicDocument;
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
