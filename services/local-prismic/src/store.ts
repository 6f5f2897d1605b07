import { EditRejectedError } from "./errors.ts";
import { newPrismicId, prismicDate } from "./ids.ts";
import { MasterDocuments } from "./master-documents.ts";
import type { ModelSource } from "./models.ts";
import { overlaySet } from "./overlay-set.ts";
import { KNOWN_REFS_LIMIT, type LogEntry, type PersistedState, RepositoryFolder } from "./persistence.ts";
import type { DocumentSet } from "./query/document-set.ts";
import { ApiError, type PrismicDocument } from "./query/index.ts";
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
  documents: DocumentSet;
}

/** What the store did since it opened, counted: what a publish costs, compared across sizes by the tests. */
export interface StoreWork {
  /** Documents copied one by one: the master listed (`masterDocuments`, which tests read); no answer copies them. */
  documentsCopied: number;
  /** Entries of the master's indexes changed (by id, type, uid, tag). */
  indexEntriesTouched: number;
  /** Files written or appended to, their bytes, and names read from the object folder. */
  files: number;
  bytes: number;
  listed: number;
}

export interface PublishResult {
  masterRef: string;
  /** Every id the publish touched (upserted or removed), as Prismic lists them in the webhook. */
  documents: string[];
}

/** What an edit changes, by id: the new document, or undefined for one removed. */
type Changes = ReadonlyMap<string, PrismicDocument | undefined>;

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
  /** The master ref's documents, changed in place by each publish (master-documents.ts). */
  #master = new MasterDocuments();
  #masterRef = "";
  /** Newest first. */
  #history: PastRef[] = [];
  /** Past refs' documents, laid over the master from the undos: made again after each publish. */
  #pastSets = new Map<string, DocumentSet>();
  #knownRefs: string[] = [];
  #drafts = new Map<string, PrismicDocument>();
  #previews = new Map<string, number>();
  #queue: Promise<unknown> = Promise.resolve();
  /** Bumped by each publish: what is made from the master's documents is made again after it. */
  #version = 0;
  #listed: { version: number; list: readonly PrismicDocument[] } | undefined;
  #copied = 0;
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
    // The log folded into a new state, and what an interrupted publish or seed left removed.
    const written = await store.#writeState();
    await store.#folder.collectGarbage(written);
    return store;
  }

  get masterRef(): string {
    return this.#masterRef;
  }

  /** How many documents the master ref has. */
  get masterCount(): number {
    return this.#master.size;
  }

  /** The master ref's documents as a list, in creation order: made again after each publish (tests read it). */
  get masterDocuments(): readonly PrismicDocument[] {
    if (this.#listed?.version !== this.#version) {
      this.#copied += this.#master.size;
      this.#listed = { version: this.#version, list: Object.freeze([...this.#master.byId.values()]) };
    }
    return this.#listed.list;
  }

  /** Every tag a master document lists, sorted. */
  get masterTags(): readonly string[] {
    return this.#master.tags();
  }

  get previewSessions(): { session: string; expiresAt: number }[] {
    return [...this.#previews].map(([session, expiresAt]) => ({ session, expiresAt }));
  }

  get work(): StoreWork {
    const { files, bytes, listed } = this.#folder.work;
    return { documentsCopied: this.#copied, indexEntriesTouched: this.#master.touched, files, bytes, listed };
  }

  /** The documents visible at a ref: master, a recent master, or a preview token (master + drafts). */
  snapshot(ref: string): Snapshot {
    if (ref === this.#masterRef) return { ref, kind: "master", documents: this.#master };
    const past = this.#pastSet(ref);
    if (past) return { ref, kind: "history", documents: past };
    const session = this.#sessionOf(ref);
    if (session !== undefined) {
      const expiresAt = this.#previews.get(session);
      if (expiresAt === undefined || expiresAt <= this.#now().getTime()) {
        throw new ApiError(404, { type: "api_security_error", message: "This preview token has expired" });
      }
      // Every current draft over the master (the map is read within the search, which is synchronous).
      return { ref, kind: "preview", documents: overlaySet(this.#master, this.#drafts) };
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
        if (typeof id !== "string" || !this.#master.byId.has(id)) {
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
      const changes = new Map<string, PrismicDocument | undefined>();
      for (const id of removals) changes.set(id, undefined);
      const seen = new Set<string>();
      for (const [index, doc] of upserts.entries()) {
        if (seen.has(doc.id) || removals.includes(doc.id)) {
          throw new EditRejectedError([
            { id: doc.id, path: `upsert[${index}].id`, message: "appears twice in one edit" },
          ]);
        }
        seen.add(doc.id);
        const previous = this.#master.byId.get(doc.id);
        changes.set(doc.id, {
          ...doc,
          first_publication_date: previous?.first_publication_date ?? doc.last_publication_date,
        });
      }
      this.#validate(
        upserts.map((doc) => changes.get(doc.id) as PrismicDocument),
        changes,
      );
      const added = [...seen].filter((id) => !this.#master.byId.has(id)).length;
      this.#checkSize(this.#master.size + added - removals.length);

      const ref = newPrismicId();
      const documents = [...seen, ...removals];
      for (const id of seen) changes.set(id, await this.#store(changes.get(id) as PrismicDocument));
      const undo = new Map(documents.map((id) => [id, this.#master.byId.get(id)]));
      // Publishing a document ends its draft, as in Prismic.
      const endedDrafts = documents.flatMap((id) => {
        const draft = this.#drafts.get(id);
        this.#drafts.delete(id);
        return draft ? [[id, draft] as const] : [];
      });
      await this.#commit(changes, ref, undo, endedDrafts);
      return { masterRef: ref, documents };
    });
  }

  /** Stores a draft (visible only at a preview ref) and opens a preview session that shows it. */
  putDraft(id: string, raw: unknown): Promise<{ token: string; session: string; expiresAt: number }> {
    return this.#serial(async () => {
      const doc = this.#normalize(raw, "draft", this.#now(), id);
      const drafts = new Map(this.#drafts).set(doc.id, doc);
      // Checked as the preview shows it: the master with every draft over it.
      this.#validate([doc], drafts);
      const replaced = this.#drafts.get(doc.id);
      drafts.set(doc.id, await this.#store(doc));
      this.#drafts = drafts;
      const session = newPrismicId();
      const expiresAt = this.#now().getTime() + this.options.previewTtlMs;
      this.#previews.set(session, expiresAt);
      await this.#append({}, replaced ? [[doc.id, replaced]] : []);
      return { token: this.options.previewToken(session), session, expiresAt };
    });
  }

  deleteDraft(id: string): Promise<boolean> {
    return this.#serial(async () => {
      const draft = this.#drafts.get(id);
      if (!draft) return false;
      this.#drafts.delete(id);
      await this.#append({}, [[id, draft]]);
      return true;
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

  /**
   * Checks the changed documents against the models and against the repository as it would be with
   * `changes` (id → new document, undefined: removed) over the master: uids unique per type and
   * language, singletons single. Reads the master's indexes for the few documents that can clash,
   * never every document.
   */
  #validate(changed: readonly PrismicDocument[], changes: Changes): void {
    const issues: { id: string; path: string; message: string }[] = [];
    const models = this.options.models.current();
    for (const doc of changed) {
      for (const issue of validateDocument(doc, models)) issues.push({ id: doc.id, ...issue });
      // Lazily: checkSingleton reads the documents of the type only for a singleton type.
      const ofType = this.#inNextOrder(
        () => this.#master.ofType(doc.type),
        (other) => other.type === doc.type,
        changes,
      );
      for (const issue of checkSingleton(doc, ofType, models)) issues.push({ id: doc.id, ...issue });
      if (!doc.uid) continue;
      const uid = doc.uid;
      const holders = this.#inNextOrder(
        () => this.#master.withUid(doc.type, uid),
        (other) => other.type === doc.type && other.lang === doc.lang && other.uid === uid,
        changes,
      );
      const clash = [...holders].find((other) => other.id !== doc.id);
      if (clash !== undefined) {
        issues.push({ id: doc.id, path: "uid", message: `"${doc.uid}" is already used by ${clash.id}` });
      }
    }
    if (issues.length > 0) throw new EditRejectedError(issues);
  }

  /**
   * The documents that `holds` once `changes` are applied over the master, in the order the master
   * would then list them, read from `indexed` (the master's documents that may hold) and the changes.
   */
  *#inNextOrder(
    indexed: () => Iterable<PrismicDocument>,
    holds: (doc: PrismicDocument) => boolean,
    changes: Changes,
  ): Generator<PrismicDocument> {
    const found: PrismicDocument[] = [];
    for (const doc of indexed()) if (!changes.has(doc.id) && holds(doc)) found.push(doc);
    const added = [...changes.keys()];
    for (const doc of changes.values()) if (doc && holds(doc)) found.push(doc);
    // A changed document keeps its master place; a new one comes last, in the edit's order.
    const place = (doc: PrismicDocument) => {
      const before = this.#master.byId.get(doc.id);
      return before ? this.#master.placeOf(before) : Number.MAX_SAFE_INTEGER / 2 + added.indexOf(doc.id);
    };
    yield* found.sort((a, b) => place(a) - place(b));
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

  /**
   * Moves the master ref: `changes` applied to the master in place, the previous ref kept as their
   * undo, the change appended to the log. The repository's size changes nothing here.
   */
  async #commit(
    changes: Changes,
    ref: string,
    undo: PastRef["undo"],
    endedDrafts: readonly (readonly [string, PrismicDocument])[],
  ): Promise<void> {
    this.#history.unshift({ ref: this.#masterRef, undo });
    const dropped = this.#history.splice(this.options.refHistory);
    this.#pastSets.clear();
    for (const [id, doc] of changes) this.#master.set(id, doc);
    this.#masterRef = ref;
    this.#version++;
    this.#knownRefs.push(ref);
    if (this.#knownRefs.length > KNOWN_REFS_LIMIT)
      this.#knownRefs.splice(0, this.#knownRefs.length - KNOWN_REFS_LIMIT);
    const set: Record<string, string> = {};
    const remove: string[] = [];
    for (const [id, doc] of changes) {
      if (doc) set[id] = objectFileOf(doc) as string;
      else remove.push(id);
    }
    // Files no ref shows any more: those of the past refs that dropped out of history (or, kept
    // for none, this publish's replaced documents), and of the drafts it ended.
    const released = [...dropped.flatMap((past) => [...past.undo]), ...endedDrafts];
    await this.#append({ masterRef: ref, set, remove }, released);
  }

  /**
   * A past ref's documents: the master with the undos of every publish since laid over it (the
   * oldest undo of a document wins), without copying the master. Undefined for a ref no longer
   * (or never) kept.
   */
  #pastSet(ref: string): DocumentSet | undefined {
    const at = this.#history.findIndex((past) => past.ref === ref);
    if (at === -1) return undefined;
    let made = this.#pastSets.get(ref);
    if (!made) {
      const over = new Map<string, PrismicDocument | undefined>();
      for (const past of this.#history.slice(0, at + 1))
        for (const [id, before] of past.undo) over.set(id, before);
      made = overlaySet(this.#master, over);
      this.#pastSets.set(ref, made);
    }
    return made;
  }

  /** Writes a document's object file and keeps it as a stored document (its data read from the file). */
  async #store(doc: PrismicDocument): Promise<PrismicDocument> {
    const file = objectFileOf(doc) ?? (await this.#folder.writeObject(doc));
    return storedDocument(doc, this.#folder, file);
  }

  #checkSize(documents: number): void {
    const limit = this.options.maxDocuments ?? MAX_DOCUMENTS;
    if (documents > limit)
      throw new EditRejectedError([{ path: "upsert", message: tooMany(documents, limit) }]);
  }

  /**
   * Appends a change to the log, then removes the object files of `released` (id, document) that
   * no queryable ref, draft or the master shows any longer. Folds the log into a new state once
   * the log has grown past the state's size: rare, so a publish costs the same at any size.
   */
  async #append(
    change: Omit<LogEntry, "drafts" | "previews">,
    released: readonly (readonly [string, PrismicDocument | undefined])[],
  ): Promise<void> {
    const now = this.#now().getTime();
    for (const [session, expiresAt] of this.#previews) if (expiresAt <= now) this.#previews.delete(session);
    await this.#folder.append({ ...change, ...this.#draftsAndPreviews() });
    const garbage = new Set<string>();
    for (const [id, doc] of released) {
      const file = doc && objectFileOf(doc);
      if (file && !this.#shows(id, file)) garbage.add(file);
    }
    await this.#folder.removeObjects(garbage);
    const sizes = this.#folder.sizes;
    if (sizes.log > Math.max(sizes.state, 1024 * 1024)) await this.#writeState();
  }

  /** Whether the master, a draft or a past ref still shows `file` (a version of document `id`). */
  #shows(id: string, file: string): boolean {
    const shown = (doc: PrismicDocument | undefined) => doc !== undefined && objectFileOf(doc) === file;
    return (
      shown(this.#master.byId.get(id)) ||
      shown(this.#drafts.get(id)) ||
      this.#history.some((past) => shown(past.undo.get(id)))
    );
  }

  #draftsAndPreviews(): Pick<LogEntry, "drafts" | "previews"> {
    const drafts: Record<string, string> = {};
    for (const [id, doc] of this.#drafts) drafts[id] = objectFileOf(doc) as string;
    return { drafts, previews: this.previewSessions };
  }

  /** Writes the whole state (every document's file): at start, and when the log is folded. */
  async #writeState(): Promise<PersistedState> {
    const now = this.#now().getTime();
    for (const [session, expiresAt] of this.#previews) if (expiresAt <= now) this.#previews.delete(session);
    const documents: Record<string, string> = {};
    for (const [id, doc] of this.#master.byId) documents[id] = objectFileOf(doc) as string;
    const state: PersistedState = {
      version: 2,
      masterRef: this.#masterRef,
      knownRefs: this.#knownRefs,
      documents,
      ...this.#draftsAndPreviews(),
    };
    await this.#folder.writeState(state);
    return state;
  }

  async #load(state: PersistedState): Promise<void> {
    this.#checkStart(Object.keys(state.documents).length);
    for (const [id, file] of Object.entries(state.documents)) {
      this.#master.set(id, storedDocument(await this.#folder.readObject(file), this.#folder, file));
    }
    for (const [id, file] of Object.entries(state.drafts)) {
      this.#drafts.set(id, storedDocument(await this.#folder.readObject(file), this.#folder, file));
    }
    this.#masterRef = state.masterRef;
    this.#knownRefs = state.knownRefs;
    this.#previews = new Map(state.previews.map((p) => [p.session, p.expiresAt]));
  }

  async #seed(): Promise<void> {
    const check = repositoryCheck(this.options.models.current());
    const seeded: PrismicDocument[] = [];
    for (const doc of this.options.seed()) {
      check.add(doc);
      this.#checkStart(seeded.length + 1);
      // Stored as read, one at a time; a refused seed leaves files that the next start removes.
      if (check.issues.length === 0) seeded.push(await this.#store(doc));
    }
    if (check.issues.length > 0)
      throw new EditRejectedError(check.issues.map(({ document, ...issue }) => ({ id: document, ...issue })));
    for (const doc of seeded) this.#master.set(doc.id, doc);
    this.#masterRef = newPrismicId();
    this.#knownRefs = [this.#masterRef];
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
