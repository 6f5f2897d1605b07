import { EditRejectedError } from "./errors.ts";
import { newPrismicId, prismicDate } from "./ids.ts";
import type { ModelSource } from "./models.ts";
import { oncePer } from "./once-per.ts";
import { type PersistedState, RepositoryFolder } from "./persistence.ts";
import { ApiError, type PrismicDocument, prepareDocuments } from "./query/index.ts";
import { objectFileOf, storedDocument } from "./stored-document.ts";
import { checkSingleton, repositoryCheck, validateDocument } from "./validate.ts";

export interface StoreOptions {
  dataDir: string;
  /** Edits are checked against the models as they are when the edit arrives. */
  models: ModelSource;
  /** Documents to start from when the folder holds no repository yet, read one at a time. */
  seed: () => Iterable<PrismicDocument>;
  /** How many earlier master refs stay queryable. */
  refHistory: number;
  previewTtlMs: number;
  /** Builds a preview token (a URL, as Prismic's are) for a session id. */
  previewToken: (session: string) => string;
  now?: () => Date;
  /** The most documents served (MAX_DOCUMENTS); tests lower it. */
  maxDocuments?: number;
}

/**
 * The most documents the service holds: about 600 MB of memory at most (the measured figures are in
 * docs/local-content-service.md). A repository that large belongs on Prismic itself.
 */
export const MAX_DOCUMENTS = 150_000;

const tooMany = (documents: number, limit: number) =>
  `The local content service holds at most ${limit} documents (about 600 MB of memory) and this ` +
  `repository would have ${documents}: serve it from Prismic itself (set PRISMIC_REPOSITORY), or remove documents`;

export interface Snapshot {
  ref: string;
  kind: "master" | "history" | "preview";
  documents: readonly PrismicDocument[];
}

export interface PublishResult {
  masterRef: string;
  /** Every id the publish touched (upserted or removed), as Prismic lists them in the webhook. */
  documents: string[];
}

type DocMap = ReadonlyMap<string, PrismicDocument>;

/**
 * A past master ref, kept as what its publish changed: each id it touched with the document it had
 * before (undefined: it had none). A past ref's documents are the master's with the undos of every
 * later publish applied, newest first: 50 past refs of a 100,000-document repository cost what
 * their edits changed, not 50 maps of 100,000 entries.
 */
interface PastRef {
  ref: string;
  undo: ReadonlyMap<string, PrismicDocument | undefined>;
}

/**
 * The repository's content over time: the master state, the last N master
 * states (still queryable by ref, as Prismic keeps old refs for a while),
 * editors' drafts and the preview sessions that show them.
 */
export class ContentStore {
  #master: DocMap = new Map();
  #masterRef = "";
  /** Newest first. */
  #history: PastRef[] = [];
  /** Past refs' documents made from the undos, the last few asked for (a build in flight reads one). */
  #pastMaps = new Map<string, DocMap>();
  /** Each document's place in creation order, which a past ref's documents are listed in. */
  #places = new WeakMap<PrismicDocument, number>();
  #nextPlace = 0;
  #knownRefs: string[] = [];
  #drafts = new Map<string, PrismicDocument>();
  #previews = new Map<string, number>();
  #queue: Promise<unknown> = Promise.resolve();
  readonly #folder: RepositoryFolder;
  readonly #now: () => Date;

  private constructor(private readonly options: StoreOptions) {
    this.#folder = new RepositoryFolder(options.dataDir);
    this.#now = options.now ?? (() => new Date());
  }

  /** Loads the repository from its folder, seeding it on first start. */
  static async open(options: StoreOptions): Promise<ContentStore> {
    const store = new ContentStore(options);
    const state = await store.#folder.readState();
    if (state) await store.#load(state);
    else await store.#seed();
    return store;
  }

  get masterRef(): string {
    return this.#masterRef;
  }

  get masterDocuments(): readonly PrismicDocument[] {
    return listOf(this.#master);
  }

  get previewSessions(): { session: string; expiresAt: number }[] {
    return [...this.#previews].map(([session, expiresAt]) => ({ session, expiresAt }));
  }

  /** The documents visible at a ref: master, a recent master, or a preview token (master + drafts). */
  snapshot(ref: string): Snapshot {
    if (ref === this.#masterRef) return { ref, kind: "master", documents: this.masterDocuments };
    const past = this.#pastMap(ref);
    if (past) return { ref, kind: "history", documents: listOf(past) };
    const session = this.#sessionOf(ref);
    if (session !== undefined) {
      const expiresAt = this.#previews.get(session);
      if (expiresAt === undefined || expiresAt <= this.#now().getTime()) {
        throw new ApiError(404, { type: "api_security_error", message: "This preview token has expired" });
      }
      return { ref, kind: "preview", documents: this.#withDrafts() };
    }
    const masterHint = `Master ref is: ${this.#masterRef}`;
    if (this.#knownRefs.includes(ref)) {
      throw new ApiError(410, { type: "api_expired_error", message: `Ref expired. ${masterHint}` });
    }
    throw new ApiError(404, {
      type: "api_notfound_error",
      message: `Ref not found. Ensure you have the correct ref and try again. ${masterHint}`,
    });
  }

  /** Applies upserts and removals atomically and moves the master ref. Refuses the whole edit on any problem. */
  publish(edit: { upsert?: unknown[]; remove?: unknown[] }): Promise<PublishResult> {
    return this.#serial(async () => {
      const now = this.#now();
      const upserts = (edit.upsert ?? []).map((raw, index) => this.#normalize(raw, `upsert[${index}]`, now));
      const removals = (edit.remove ?? []).map((id, index) => {
        if (typeof id !== "string" || !this.#master.has(id)) {
          throw new EditRejectedError([
            { path: `remove[${index}]`, message: `no published document has id ${JSON.stringify(id)}` },
          ]);
        }
        return id;
      });
      if (upserts.length === 0 && removals.length === 0) {
        throw new EditRejectedError([
          { path: "upsert", message: "the edit changes nothing: give upsert and/or remove" },
        ]);
      }
      const next = new Map(this.#master);
      for (const id of removals) next.delete(id);
      const seen = new Set<string>();
      for (const [index, doc] of upserts.entries()) {
        if (seen.has(doc.id) || removals.includes(doc.id)) {
          throw new EditRejectedError([
            { id: doc.id, path: `upsert[${index}].id`, message: "appears twice in one edit" },
          ]);
        }
        seen.add(doc.id);
        const previous = this.#master.get(doc.id);
        next.set(doc.id, {
          ...doc,
          first_publication_date: previous?.first_publication_date ?? doc.last_publication_date,
        });
      }
      this.#validate(upserts, next);
      this.#checkSize(next.size);

      const ref = newPrismicId();
      const documents = [...seen, ...removals];
      for (const id of seen) next.set(id, await this.#store(next.get(id) as PrismicDocument));
      const undo = new Map(documents.map((id) => [id, this.#master.get(id)]));
      for (const id of documents) this.#drafts.delete(id); // publishing a document ends its draft, as in Prismic
      await this.#commit(next, ref, undo);
      return { masterRef: ref, documents };
    });
  }

  /** Stores a draft (visible only at a preview ref) and opens a preview session that shows it. */
  putDraft(id: string, raw: unknown): Promise<{ token: string; session: string; expiresAt: number }> {
    return this.#serial(async () => {
      const doc = this.#normalize(raw, "draft", this.#now(), id);
      const drafts = new Map(this.#drafts).set(doc.id, doc);
      const previewed = new Map(this.#master);
      for (const [draftId, draft] of drafts) previewed.set(draftId, draft);
      this.#validate([doc], previewed);
      drafts.set(doc.id, await this.#store(doc));
      this.#drafts = drafts;
      const session = newPrismicId();
      const expiresAt = this.#now().getTime() + this.options.previewTtlMs;
      this.#previews.set(session, expiresAt);
      await this.#persist();
      return { token: this.options.previewToken(session), session, expiresAt };
    });
  }

  deleteDraft(id: string): Promise<boolean> {
    return this.#serial(async () => {
      const existed = this.#drafts.delete(id);
      if (existed) await this.#persist();
      return existed;
    });
  }

  #normalize(raw: unknown, path: string, now: Date, forcedId?: string): PrismicDocument {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new EditRejectedError([{ path, message: "must be a document object" }]);
    }
    const input = raw as Partial<PrismicDocument>;
    if (forcedId !== undefined && input.id !== undefined && input.id !== forcedId) {
      throw new EditRejectedError([
        { path: `${path}.id`, message: `must be ${forcedId} (the id in the URL) or absent` },
      ]);
    }
    const id = forcedId ?? input.id ?? newPrismicId();
    const uid = input.uid ?? null;
    // What Prismic computes itself is recomputed here, whatever the caller sent.
    return {
      ...input,
      id,
      uid,
      url: null,
      type: input.type as string,
      href: "",
      tags: input.tags ?? [],
      first_publication_date: input.first_publication_date ?? prismicDate(now),
      last_publication_date: prismicDate(now),
      slugs: uid ? [uid] : [],
      linked_documents: [],
      lang: input.lang ?? "en-us",
      alternate_languages: input.alternate_languages ?? [],
      data: input.data as Record<string, unknown>,
    };
  }

  #validate(changed: readonly PrismicDocument[], all: DocMap): void {
    const issues: { id: string; path: string; message: string }[] = [];
    const models = this.options.models.current();
    const others = [...all.values()];
    // Index once rather than scanning every document for every changed one. `all` already holds the
    // changed documents, so each key keeps every id that has it: one id per key would let the new
    // document shadow the old one and compare it only with itself.
    const byUid = new Map<string, string[]>();
    for (const doc of others) {
      if (!doc.uid) continue;
      const key = `${doc.type}|${doc.lang}|${doc.uid}`;
      byUid.set(key, [...(byUid.get(key) ?? []), doc.id]);
    }
    for (const doc of changed) {
      for (const issue of validateDocument(doc, models)) issues.push({ id: doc.id, ...issue });
      for (const issue of checkSingleton(doc, others, models)) issues.push({ id: doc.id, ...issue });
      const holders = doc.uid ? (byUid.get(`${doc.type}|${doc.lang}|${doc.uid}`) ?? []) : [];
      const clash = holders.find((id) => id !== doc.id);
      if (clash !== undefined) {
        issues.push({ id: doc.id, path: "uid", message: `"${doc.uid}" is already used by ${clash}` });
      }
    }
    if (issues.length > 0) throw new EditRejectedError(issues);
  }

  #withDrafts(): PrismicDocument[] {
    const docs = new Map(this.#master);
    for (const [id, draft] of this.#drafts) docs.set(id, draft);
    return [...docs.values()];
  }

  #sessionOf(ref: string): string | undefined {
    for (const session of this.#previews.keys())
      if (this.options.previewToken(session) === ref) return session;
    try {
      // Accept the token however it was re-encoded on its way (cookies, query strings).
      const url = new URL(ref);
      const session = url.pathname.split("/").pop();
      return session && url.pathname.includes("/previews/") ? session : undefined;
    } catch {
      return undefined;
    }
  }

  async #commit(next: DocMap, ref: string, undo: PastRef["undo"]): Promise<void> {
    this.#history.unshift({ ref: this.#masterRef, undo });
    this.#history.length = Math.min(this.#history.length, this.options.refHistory);
    this.#rememberPast(this.#masterRef, this.#master);
    this.#master = next;
    this.#masterRef = ref;
    // The new ref's list and indexes, made now: its first search is a publish's, on the way to live.
    prepareDocuments(listOf(next), next);
    this.#knownRefs.push(ref);
    if (this.#knownRefs.length > 10_000) this.#knownRefs.splice(0, this.#knownRefs.length - 10_000);
    await this.#persist();
  }

  /** A past ref's documents, in creation order; undefined for a ref no longer (or never) kept. */
  #pastMap(ref: string): DocMap | undefined {
    const at = this.#history.findIndex((past) => past.ref === ref);
    if (at === -1) return undefined;
    const made = this.#pastMaps.get(ref);
    if (made) return made;
    const docs = new Map(this.#master);
    let restored = false;
    for (const past of this.#history.slice(0, at + 1)) {
      for (const [id, before] of past.undo) {
        if (before === undefined) docs.delete(id);
        else {
          restored ||= !docs.has(id);
          docs.set(id, before);
        }
      }
    }
    // A document removed since comes back at the end of the map: put it back in its place.
    const place = (doc: PrismicDocument) => this.#places.get(doc) ?? 0;
    const ordered = restored ? new Map([...docs].sort(([, a], [, b]) => place(a) - place(b))) : docs;
    this.#rememberPast(ref, ordered);
    return ordered;
  }

  /** Keeps the documents of the last two past refs asked for; none of a ref no longer kept. */
  #rememberPast(ref: string, docs: DocMap): void {
    this.#pastMaps.delete(ref);
    this.#pastMaps.set(ref, docs);
    const kept = new Set(this.#history.map((past) => past.ref));
    for (const made of this.#pastMaps.keys()) if (!kept.has(made)) this.#pastMaps.delete(made);
    while (this.#pastMaps.size > 2) this.#pastMaps.delete(this.#pastMaps.keys().next().value as string);
  }

  /** Writes a document's object file and keeps it as a stored document (its data read from the file). */
  async #store(doc: PrismicDocument): Promise<PrismicDocument> {
    const file = objectFileOf(doc) ?? (await this.#folder.writeObject(doc));
    const stored = storedDocument(doc, this.#folder, file);
    const previous = this.#master.get(doc.id);
    this.#places.set(stored, previous ? (this.#places.get(previous) ?? 0) : this.#nextPlace++);
    return stored;
  }

  #checkSize(documents: number): void {
    const limit = this.options.maxDocuments ?? MAX_DOCUMENTS;
    if (documents > limit)
      throw new EditRejectedError([{ path: "upsert", message: tooMany(documents, limit) }]);
  }

  async #persist(): Promise<void> {
    const now = this.#now().getTime();
    for (const [session, expiresAt] of this.#previews) if (expiresAt <= now) this.#previews.delete(session);
    const documents: Record<string, string> = {};
    const drafts: Record<string, string> = {};
    for (const [id, doc] of this.#master) documents[id] = objectFileOf(doc) as string;
    for (const [id, doc] of this.#drafts) drafts[id] = objectFileOf(doc) as string;
    const state: PersistedState = {
      version: 1,
      masterRef: this.#masterRef,
      knownRefs: this.#knownRefs,
      documents,
      drafts,
      previews: this.previewSessions,
    };
    await this.#folder.writeState(state);
    // Past refs still show the documents their later publishes replaced: their files stay.
    const pastFiles = this.#history.flatMap((past) =>
      [...past.undo.values()].flatMap((doc) => (doc ? [objectFileOf(doc) as string] : [])),
    );
    await this.#folder.collectGarbage(state, pastFiles);
  }

  async #load(state: PersistedState): Promise<void> {
    const read = async (files: Record<string, string>, placed: boolean) => {
      const docs = new Map<string, PrismicDocument>();
      for (const [id, file] of Object.entries(files)) {
        const doc = storedDocument(await this.#folder.readObject(file), this.#folder, file);
        if (placed) this.#places.set(doc, this.#nextPlace++);
        docs.set(id, doc);
      }
      return docs;
    };
    this.#checkStart(Object.keys(state.documents).length);
    this.#master = await read(state.documents, true);
    this.#drafts = await read(state.drafts, false);
    this.#masterRef = state.masterRef;
    this.#knownRefs = state.knownRefs;
    this.#previews = new Map(state.previews.map((p) => [p.session, p.expiresAt]));
    prepareDocuments(listOf(this.#master), this.#master);
  }

  async #seed(): Promise<void> {
    const check = repositoryCheck(this.options.models.current());
    const master = new Map<string, PrismicDocument>();
    for (const doc of this.options.seed()) {
      check.add(doc);
      this.#checkStart(master.size + 1);
      // Stored as read, one at a time; a refused seed leaves files that the next one overwrites.
      if (check.issues.length === 0) master.set(doc.id, await this.#store(doc));
    }
    if (check.issues.length > 0)
      throw new EditRejectedError(check.issues.map(({ document, ...issue }) => ({ id: document, ...issue })));
    this.#master = master;
    this.#masterRef = newPrismicId();
    this.#knownRefs = [this.#masterRef];
    await this.#persist();
    prepareDocuments(listOf(this.#master), this.#master);
  }

  #checkStart(documents: number): void {
    const limit = this.options.maxDocuments ?? MAX_DOCUMENTS;
    if (documents > limit) throw new Error(tooMany(documents, limit));
  }

  /** Edits run one at a time so that each one sees the state the previous one left. */
  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/**
 * A ref's documents as a list, made once per ref: the maps are replaced, never changed, when the
 * master ref moves, and every search at a ref reads its whole list (10,000 documents copied per
 * request before).
 */
const listOf = oncePer((docs: DocMap): readonly PrismicDocument[] => Object.freeze([...docs.values()]));
