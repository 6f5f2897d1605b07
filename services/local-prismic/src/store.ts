import { EditRejectedError } from "./errors.ts";
import { newPrismicId, prismicDate } from "./ids.ts";
import type { ModelSource } from "./models.ts";
import { oncePer } from "./once-per.ts";
import { type PersistedState, RepositoryFolder } from "./persistence.ts";
import { ApiError, type PrismicDocument, prepareDocuments } from "./query/index.ts";
import { checkSingleton, validateDocument, validateRepository } from "./validate.ts";

export interface StoreOptions {
  dataDir: string;
  /** Edits are checked against the models as they are when the edit arrives. */
  models: ModelSource;
  /** Documents to start from when the folder holds no repository yet. */
  seed: () => Promise<PrismicDocument[]>;
  /** How many earlier master refs stay queryable. */
  refHistory: number;
  previewTtlMs: number;
  /** Builds a preview token (a URL, as Prismic's are) for a session id. */
  previewToken: (session: string) => string;
  now?: () => Date;
}

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
 * The repository's content over time: the master state, the last N master
 * states (still queryable by ref, as Prismic keeps old refs for a while),
 * editors' drafts and the preview sessions that show them.
 */
export class ContentStore {
  #master: DocMap = new Map();
  #masterRef = "";
  #history: { ref: string; docs: DocMap }[] = [];
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
    const past = this.#history.find((h) => h.ref === ref);
    if (past) return { ref, kind: "history", documents: listOf(past.docs) };
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

      const ref = newPrismicId();
      const documents = [...seen, ...removals];
      for (const id of documents) this.#drafts.delete(id); // publishing a document ends its draft, as in Prismic
      await this.#commit(next, ref);
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

  async #commit(next: DocMap, ref: string): Promise<void> {
    this.#history.unshift({ ref: this.#masterRef, docs: this.#master });
    this.#history.length = Math.min(this.#history.length, this.options.refHistory);
    this.#master = next;
    this.#masterRef = ref;
    // The new ref's list and indexes, made now: its first search is a publish's, on the way to live.
    prepareDocuments(listOf(next));
    this.#knownRefs.push(ref);
    if (this.#knownRefs.length > 10_000) this.#knownRefs.splice(0, this.#knownRefs.length - 10_000);
    await this.#persist();
  }

  async #persist(): Promise<void> {
    const now = this.#now().getTime();
    for (const [session, expiresAt] of this.#previews) if (expiresAt <= now) this.#previews.delete(session);
    const documents: Record<string, string> = {};
    const drafts: Record<string, string> = {};
    // Only changed documents get a new object file: writeObject is content-addressed.
    for (const [id, doc] of this.#master) documents[id] = await this.#objectFile(doc);
    for (const [id, doc] of this.#drafts) drafts[id] = await this.#objectFile(doc);
    const state: PersistedState = {
      version: 1,
      masterRef: this.#masterRef,
      knownRefs: this.#knownRefs,
      documents,
      drafts,
      previews: this.previewSessions,
    };
    await this.#folder.writeState(state);
    await this.#folder.collectGarbage(state);
  }

  readonly #files = new WeakMap<PrismicDocument, string>();
  async #objectFile(doc: PrismicDocument): Promise<string> {
    let file = this.#files.get(doc);
    if (!file) {
      file = await this.#folder.writeObject(doc);
      this.#files.set(doc, file);
    }
    return file;
  }

  async #load(state: PersistedState): Promise<void> {
    const read = async (files: Record<string, string>) => {
      const docs = new Map<string, PrismicDocument>();
      for (const [id, file] of Object.entries(files)) {
        const doc = await this.#folder.readObject(file);
        this.#files.set(doc, file);
        docs.set(id, doc);
      }
      return docs;
    };
    this.#master = await read(state.documents);
    this.#drafts = await read(state.drafts);
    this.#masterRef = state.masterRef;
    this.#knownRefs = state.knownRefs;
    this.#previews = new Map(state.previews.map((p) => [p.session, p.expiresAt]));
  }

  async #seed(): Promise<void> {
    const docs = await this.options.seed();
    const issues = validateRepository(docs, this.options.models.current());
    if (issues.length > 0)
      throw new EditRejectedError(issues.map(({ document, ...issue }) => ({ id: document, ...issue })));
    this.#master = new Map(docs.map((doc) => [doc.id, doc]));
    this.#masterRef = newPrismicId();
    this.#knownRefs = [this.#masterRef];
    await this.#persist();
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
