import { type Client, filter, type PrismicDocument } from "@prismicio/client";
import type { SlotRange } from "./dependencies.ts";

/**
 * Everything a render reads, at ONE ref: a render never sees two versions of the content. The
 * engine hands a website's `render` one of these; the website asks by type and uid as Prismic's
 * client does, and knows nothing of where the documents come from. Implementations: the content
 * client at a ref (preview, publish) and a set of documents in memory (a build preloads them).
 * Returned documents are shared, never copied: treat them as read-only.
 */
export interface ContentSource {
  /** The one document of a singleton type (the first, if a repository holds more), or undefined. */
  getSingle(type: string): Promise<PrismicDocument | undefined>;
  getByUID(type: string, uid: string): Promise<PrismicDocument | undefined>;
  getByID(id: string): Promise<PrismicDocument | undefined>;
  /**
   * Every document of a type (a listing), to iterate: a build reads the stubs of its routed types
   * again from its temporary file each time they are iterated, so that no listing holds every one
   * of them at once (100,000 at 100,000 pages). Keep what the listing shows, not the documents.
   * With `slots`, a source may answer only the documents whose listing slot is in that range (the
   * worker's index reads them by slot) or every one of them: a caller asking by slot filters what
   * it gets (`listingSlotOf`).
   */
  getAllByType(type: string, slots?: SlotRange): Promise<Iterable<PrismicDocument>>;
  /** How many documents of a type there are (without reading them where the source can). */
  countByType(type: string): Promise<number>;
}

const EMPTY: readonly PrismicDocument[] = Object.freeze([]);

/** How many documents a listing holds, read once through. */
export function countOf(documents: Iterable<PrismicDocument>): number {
  let count = 0;
  for (const _ of documents) count++;
  return count;
}

/**
 * Documents kept elsewhere than in memory, read again each time they are asked for (a build's
 * stubs of its routed types, in its temporary file: worker/src/build/listed-stubs.ts).
 */
export interface StreamedDocuments extends Iterable<PrismicDocument> {
  /** The types they are of: a listing of any other type never reads them. */
  readonly types: ReadonlySet<string>;
  /**
   * Those in some listing slots only (a divided sitemap's part), when they can be read so without
   * passing over the others (a build's: worker/src/build/slotted-stubs.ts).
   */
  inSlots?(slots: SlotRange): Iterable<PrismicDocument>;
}

/**
 * Documents already fetched at one ref (a full build lists them all once): every lookup is a Map
 * read, so a render does no I/O. The documents are indexed, not copied; they must carry `url`
 * (fetched with the route resolver). `streamed`: more documents at the same ref, never held whole:
 * a listing of their types iterates them as they are read, and a lookup by id or uid that the
 * documents in memory do not answer reads them until one matches.
 */
export function createMemorySource(
  documents: readonly PrismicDocument[],
  streamed?: StreamedDocuments,
): ContentSource {
  const byId = new Map<string, PrismicDocument>();
  const byTypeUid = new Map<string, PrismicDocument>();
  const byType = new Map<string, PrismicDocument[]>();
  for (const doc of documents) {
    byId.set(doc.id, doc);
    // uids are unique per type and language; the site is single-language, the first one wins.
    const uidKey = `${doc.type}:${doc.uid}`;
    if (doc.uid && !byTypeUid.has(uidKey)) byTypeUid.set(uidKey, doc);
    const list = byType.get(doc.type);
    if (list) list.push(doc);
    else byType.set(doc.type, [doc]);
  }
  const inMemory: ContentSource = {
    getSingle: async (type) => byType.get(type)?.[0],
    getByUID: async (type, uid) => byTypeUid.get(`${type}:${uid}`),
    getByID: async (id) => byId.get(id),
    getAllByType: async (type) => byType.get(type) ?? EMPTY,
    countByType: async (type) => byType.get(type)?.length ?? 0,
  };
  return streamed ? withStreamed(inMemory, streamed) : inMemory;
}

/** `source`, answering from `streamed` too: read again for every listing and every lookup it must answer. */
function withStreamed(source: ContentSource, streamed: StreamedDocuments): ContentSource {
  const counted = new Map<string, number>();
  const find = (match: (doc: PrismicDocument) => boolean) => {
    for (const doc of streamed) if (match(doc)) return doc;
    return undefined;
  };
  const firstOf = (type: string, match: (doc: PrismicDocument) => boolean) =>
    streamed.types.has(type) ? find((doc) => doc.type === type && match(doc)) : undefined;
  return {
    getSingle: async (type) => (await source.getSingle(type)) ?? firstOf(type, () => true),
    getByUID: async (type, uid) =>
      (await source.getByUID(type, uid)) ?? firstOf(type, (doc) => doc.uid === uid),
    getByID: async (id) => (await source.getByID(id)) ?? find((doc) => doc.id === id),
    getAllByType: async (type, slots) => {
      const held = await source.getAllByType(type);
      if (!streamed.types.has(type)) return held;
      const from = slots && streamed.inSlots ? streamed.inSlots.bind(streamed, slots) : () => streamed;
      return {
        *[Symbol.iterator]() {
          yield* held;
          for (const doc of from()) if (doc.type === type) yield doc;
        },
      };
    },
    // Counted once: the documents a source streams do not change.
    countByType: async (type) => {
      const held = await source.countByType(type);
      if (!streamed.types.has(type)) return held;
      let count = counted.get(type);
      if (count === undefined) {
        count = 0;
        for (const doc of streamed) if (doc.type === type) count++;
        counted.set(type, count);
      }
      return held + count;
    },
  };
}

/** Prismic's largest page size. */
const PAGE_SIZE = 100;
/** Listing pages fetched at once once the first page said how many there are. */
const PAGE_CONCURRENCY = 4;

/**
 * Reads through the content client at one fixed ref (preview, publish). Each question is asked
 * once per source: a render that needs the same document twice (a nav link and an embed, say)
 * costs one request. A failed request is not remembered. The client must carry the route resolver
 * so that `url` is filled on documents and links.
 */
export function createClientSource(client: Client, ref: string): ContentSource {
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, load: () => Promise<T>): Promise<T> => {
    let found = memo.get(key) as Promise<T> | undefined;
    if (!found) {
      found = load();
      memo.set(key, found);
      found.catch(() => memo.delete(key));
    }
    return found;
  };
  const first = async (filters: string[]): Promise<PrismicDocument | undefined> =>
    (await client.get({ ref, filters, pageSize: 1 })).results[0];
  return {
    getSingle: (type) => once(`single:${type}`, () => first([filter.at("document.type", type)])),
    getByUID: (type, uid) => once(`uid:${type}:${uid}`, () => first([filter.at(`my.${type}.uid`, uid)])),
    getByID: (id) => once(`id:${id}`, () => first([filter.at("document.id", id)])),
    getAllByType: (type) => once(`type:${type}`, () => listAll(client, ref, type)),
    countByType: (type) =>
      once(
        `count:${type}`,
        async () =>
          (await client.get({ ref, filters: [filter.at("document.type", type)], pageSize: 1 }))
            .total_results_size,
      ),
  };
}

async function listAll(client: Client, ref: string, type: string): Promise<PrismicDocument[]> {
  const ask = (page: number) =>
    client.get({ ref, filters: [filter.at("document.type", type)], pageSize: PAGE_SIZE, page });
  const firstPage = await ask(1);
  const documents = [...firstPage.results];
  const pages = Array.from({ length: Math.max(0, firstPage.total_pages - 1) }, (_, i) => i + 2);
  for (let i = 0; i < pages.length; i += PAGE_CONCURRENCY) {
    const answers = await Promise.all(pages.slice(i, i + PAGE_CONCURRENCY).map(ask));
    for (const answer of answers) documents.push(...answer.results);
  }
  return documents;
}
