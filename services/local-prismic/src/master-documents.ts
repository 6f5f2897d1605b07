import type { DocumentSet } from "./query/document-set.ts";
import type { PrismicDocument } from "./query/index.ts";

/** The documents of one type, by id, and whether their order is still creation order. */
interface TypeList {
  docs: Map<string, PrismicDocument>;
  /** False once a document older than the newest one joined (its type changed): sorted when next read. */
  ordered: boolean;
  newest: number;
}

/**
 * The master ref's documents, with what is derived from them (places, tags, types, uids) kept up
 * to date in place: a publish changes what it changed, whatever the repository's size. A publish
 * of one document in 100,000 once copied the map of every document, listed them again, counted
 * their tags on the next API root and indexed them by id and place for the next search; now it
 * touches that one document's entries (`touched` counts them, for the tests).
 *
 * Past refs are kept as undos (store.ts), so nothing else holds on to an earlier state of this
 * set: the store changes it only between two requests (searches are synchronous).
 */
export class MasterDocuments implements DocumentSet {
  readonly #docs = new Map<string, PrismicDocument>();
  /** Each document's place in creation order, kept while any ref shows it (store.ts orders past refs by it). */
  readonly #places = new WeakMap<PrismicDocument, number>();
  #nextPlace = 0;
  readonly #types = new Map<string, TypeList>();
  /** type → uid → the documents that have it (one, unless the repository was edited by hand). */
  readonly #uids = new Map<string, Map<string, PrismicDocument | PrismicDocument[]>>();
  /** tag → how many times documents list it. */
  readonly #tags = new Map<string, number>();
  #sortedTags: readonly string[] | undefined;
  /** Index entries changed since start: a publish of one document changes the same few at any size. */
  touched = 0;

  get byId(): ReadonlyMap<string, PrismicDocument> {
    return this.#docs;
  }

  get size(): number {
    return this.#docs.size;
  }

  placeOf = (doc: PrismicDocument): number => this.#places.get(doc) ?? Number.MAX_SAFE_INTEGER;

  /**
   * Puts `doc` in (replacing the document of its id, whose place it takes) or, when undefined,
   * takes the document of `id` out.
   */
  set(id: string, doc: PrismicDocument | undefined): void {
    const before = this.#docs.get(id);
    if (before) {
      if (before.type !== doc?.type) this.#leaveType(before);
      this.#unindex(before);
    }
    if (!doc) {
      this.#docs.delete(id);
      return;
    }
    this.#places.set(doc, before ? this.placeOf(before) : this.#nextPlace++);
    this.#docs.set(id, doc);
    this.#joinType(doc);
    this.#index(doc);
  }

  ofType(type: string): Iterable<PrismicDocument> {
    const list = this.#types.get(type);
    if (!list) return [];
    if (!list.ordered) {
      const sorted = [...list.docs.values()].sort((a, b) => this.placeOf(a) - this.placeOf(b));
      list.docs = new Map(sorted.map((doc) => [doc.id, doc]));
      list.ordered = true;
    }
    return list.docs.values();
  }

  withUid(type: string, uid: string): readonly PrismicDocument[] {
    const held = this.#uids.get(type)?.get(uid);
    return held === undefined ? [] : Array.isArray(held) ? held : [held];
  }

  /** Every tag a document lists, sorted (as `[...new Set(tags)].sort()`), made again only when one comes or goes. */
  tags(): readonly string[] {
    this.#sortedTags ??= Object.freeze([...this.#tags.keys()].sort());
    return this.#sortedTags;
  }

  /** Puts `doc` in its type's list: in its place when it replaces a document of that type, else last. */
  #joinType(doc: PrismicDocument): void {
    let list = this.#types.get(doc.type);
    if (!list) {
      list = { docs: new Map(), ordered: true, newest: -1 };
      this.#types.set(doc.type, list);
    }
    if (!list.docs.has(doc.id)) {
      const place = this.placeOf(doc);
      if (place < list.newest) list.ordered = false;
      list.newest = Math.max(list.newest, place);
    }
    list.docs.set(doc.id, doc);
    this.touched++;
  }

  #leaveType(doc: PrismicDocument): void {
    const list = this.#types.get(doc.type);
    list?.docs.delete(doc.id);
    if (list?.docs.size === 0) this.#types.delete(doc.type);
    this.touched++;
  }

  /** Adds `doc`'s uid and tags. */
  #index(doc: PrismicDocument): void {
    if (doc.uid) {
      let uids = this.#uids.get(doc.type);
      if (!uids) {
        uids = new Map();
        this.#uids.set(doc.type, uids);
      }
      const held = uids.get(doc.uid);
      uids.set(doc.uid, held === undefined ? doc : [...(Array.isArray(held) ? held : [held]), doc]);
      this.touched++;
    }
    for (const tag of doc.tags) {
      const count = this.#tags.get(tag) ?? 0;
      if (count === 0) this.#sortedTags = undefined;
      this.#tags.set(tag, count + 1);
      this.touched++;
    }
  }

  /** Takes `doc`'s uid and tags out. */
  #unindex(doc: PrismicDocument): void {
    if (doc.uid) {
      const uids = this.#uids.get(doc.type);
      const held = uids?.get(doc.uid);
      const rest = (Array.isArray(held) ? held : held ? [held] : []).filter((other) => other !== doc);
      if (rest.length === 0) uids?.delete(doc.uid);
      else uids?.set(doc.uid, rest.length === 1 ? (rest[0] as PrismicDocument) : rest);
      if (uids?.size === 0) this.#uids.delete(doc.type);
      this.touched++;
    }
    for (const tag of doc.tags) {
      const count = (this.#tags.get(tag) ?? 0) - 1;
      if (count > 0) this.#tags.set(tag, count);
      else {
        this.#tags.delete(tag);
        this.#sortedTags = undefined;
      }
      this.touched++;
    }
  }
}
