import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { appendFile, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PrismicDocument } from "./query/index.ts";

/**
 * How the repository survives a restart. Documents are written as immutable, content-addressed
 * files (`objects/<id>.<hash>.json`). `state.json` names the ones that made up the repository when
 * it was written, and the log it names (`log-<random>.jsonl`) says what changed since, one line a
 * change: a publish appends the documents it set and removed, never the whole list (a publish of
 * one document in a repository of 100,000 once rewrote 5 MB). A crash mid-append leaves a line
 * that does not parse, which is the change that did not happen: the previous state, never half a
 * publish. The log is folded into a new `state.json` (renamed into place, naming a new, empty
 * log) when the service starts and when the log has grown larger than the state.
 */
export interface PersistedState {
  version: 2;
  masterRef: string;
  /** Every master ref this repository has had, oldest first (bounded): answers 410 once out of history. */
  knownRefs: string[];
  /** id → object file, in creation order. */
  documents: Record<string, string>;
  drafts: Record<string, string>;
  previews: { session: string; expiresAt: number }[];
}

/** One change, as a line of the log. */
export interface LogEntry {
  /** A publish: its master ref, the documents it set (id → object file) and those it removed. */
  masterRef?: string;
  set?: Record<string, string>;
  remove?: string[];
  /** The drafts and preview sessions after the change, whole: an editor's handful. */
  drafts: Record<string, string>;
  previews: { session: string; expiresAt: number }[];
}

/** As stored: the state and the name of its log (an older folder's state.json, version 1, has none). */
interface StoredState extends Omit<PersistedState, "version"> {
  version: 1 | 2;
  log?: string;
}

const STATE_FILE = "state.json";
const OBJECTS_DIR = "objects";
const LOG_FILE = /^log-[\w-]+\.jsonl$/;
/** The most known refs kept (the oldest go first). */
export const KNOWN_REFS_LIMIT = 10_000;

/** What this folder wrote and read since it was opened: counts for the tests (a publish's cost). */
export interface FolderWork {
  /** Files written whole (objects, state.json) or appended to (the log). */
  files: number;
  bytes: number;
  /** Names read from the object folder (a garbage collection over every file). */
  listed: number;
}

export class RepositoryFolder {
  /** The log the current state.json names; undefined until a state is read or written. */
  #log: string | undefined;
  #logBytes = 0;
  #stateBytes = 0;
  readonly work: FolderWork = { files: 0, bytes: 0, listed: 0 };

  constructor(readonly dir: string) {}

  /** Bytes appended to the log since the state was last written, and that state's size. */
  get sizes(): { log: number; state: number } {
    return { log: this.#logBytes, state: this.#stateBytes };
  }

  /** The repository as last written: state.json with its log's changes applied. */
  async readState(): Promise<PersistedState | undefined> {
    let text: string;
    try {
      text = await readFile(join(this.dir, STATE_FILE), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    const stored = JSON.parse(text) as StoredState;
    if (stored.version !== 1 && stored.version !== 2)
      throw new Error(`${join(this.dir, STATE_FILE)} has unknown version ${String(stored.version)}`);
    const { log, version: _version, ...rest } = stored;
    const state: PersistedState = { version: 2, ...rest };
    this.#stateBytes = Buffer.byteLength(text);
    this.#log = log;
    this.#logBytes = 0;
    if (log) {
      for (const entry of await this.#readLog(log)) applyEntry(state, entry);
    }
    return state;
  }

  async readObject(file: string): Promise<PrismicDocument> {
    return JSON.parse(await readFile(join(this.dir, OBJECTS_DIR, file), "utf8")) as PrismicDocument;
  }

  /**
   * A stored document's object, read when its data is asked for (stored-document.ts): synchronously,
   * since a search is answered in one go, and from the page cache (a page of results is 100 reads).
   */
  readObjectSync(file: string): PrismicDocument {
    return JSON.parse(readFileSync(join(this.dir, OBJECTS_DIR, file), "utf8")) as PrismicDocument;
  }

  /** Writes a document's object file (a no-op when the same bytes are already there) and returns its name. */
  async writeObject(doc: PrismicDocument): Promise<string> {
    const json = JSON.stringify(doc);
    const hash = createHash("sha256").update(json).digest("hex").slice(0, 16);
    const file = `${doc.id}.${hash}.json`;
    await mkdir(join(this.dir, OBJECTS_DIR), { recursive: true });
    await this.#atomicWrite(join(this.dir, OBJECTS_DIR, file), json);
    return file;
  }

  /**
   * Writes the whole state as state.json, naming a new, empty log, then removes the logs folded
   * into it (a crash in between leaves the old log unnamed: removed at the next start).
   */
  async writeState(state: PersistedState): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const log = `log-${randomUUID()}.jsonl`;
    const text = JSON.stringify({ ...state, log } satisfies StoredState, null, 1);
    await this.#atomicWrite(join(this.dir, STATE_FILE), text);
    this.#log = log;
    this.#logBytes = 0;
    this.#stateBytes = Buffer.byteLength(text);
    const names = await readdir(this.dir);
    await Promise.all(
      names.filter((name) => LOG_FILE.test(name) && name !== log).map((name) => rm(join(this.dir, name))),
    );
  }

  /** Appends one change to the log (after writeState or readState: there is a log to append to). */
  async append(entry: LogEntry): Promise<void> {
    if (!this.#log) throw new Error("no state written yet: write the state before appending changes");
    const line = `${JSON.stringify(entry)}\n`;
    await appendFile(join(this.dir, this.#log), line);
    const bytes = Buffer.byteLength(line);
    this.#logBytes += bytes;
    this.work.files++;
    this.work.bytes += bytes;
  }

  /** Removes object files that no queryable ref shows any longer. */
  async removeObjects(files: Iterable<string>): Promise<void> {
    await Promise.all([...files].map((file) => rm(join(this.dir, OBJECTS_DIR, file), { force: true })));
  }

  /**
   * Removes every object file that the state does not name, nor `alsoLive`: what an interrupted
   * publish or seed left. Reads the whole object folder: at start only.
   */
  async collectGarbage(state: PersistedState, alsoLive: Iterable<string> = []): Promise<void> {
    const live = new Set([...Object.values(state.documents), ...Object.values(state.drafts), ...alsoLive]);
    let files: string[];
    try {
      files = await readdir(join(this.dir, OBJECTS_DIR));
    } catch {
      return;
    }
    this.work.listed += files.length;
    await this.removeObjects(files.filter((f) => !live.has(f)));
  }

  /** The log's entries, up to the first line that does not parse (a crash mid-append). */
  async #readLog(log: string): Promise<LogEntry[]> {
    let text: string;
    try {
      text = await readFile(join(this.dir, log), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const entries: LogEntry[] = [];
    for (const line of text.split("\n")) {
      if (line === "") continue;
      try {
        entries.push(JSON.parse(line) as LogEntry);
      } catch {
        break;
      }
      this.#logBytes += Buffer.byteLength(line) + 1;
    }
    return entries;
  }

  async #atomicWrite(path: string, text: string): Promise<void> {
    const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, path);
    this.work.files++;
    this.work.bytes += Buffer.byteLength(text);
  }
}

/** `entry` applied to `state`, as the service applied it when it appended the line. */
function applyEntry(state: PersistedState, entry: LogEntry): void {
  for (const id of entry.remove ?? []) delete state.documents[id];
  Object.assign(state.documents, entry.set ?? {});
  if (entry.masterRef !== undefined) {
    state.masterRef = entry.masterRef;
    state.knownRefs.push(entry.masterRef);
    if (state.knownRefs.length > KNOWN_REFS_LIMIT)
      state.knownRefs.splice(0, state.knownRefs.length - KNOWN_REFS_LIMIT);
  }
  state.drafts = entry.drafts;
  state.previews = entry.previews;
}
