import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PrismicDocument } from "./query/index.ts";

/**
 * How the repository survives a restart. Documents are written as immutable,
 * content-addressed files (`objects/<id>.<hash>.json`) and `state.json` names
 * the ones that make up each state, so that one rename commits a whole publish:
 * a crash mid-write leaves the previous state intact, never half a publish.
 */
export interface PersistedState {
  version: 1;
  masterRef: string;
  /** Every master ref this repository has had, oldest first (bounded): answers 410 once out of history. */
  knownRefs: string[];
  /** id → object file, in creation order. */
  documents: Record<string, string>;
  drafts: Record<string, string>;
  previews: { session: string; expiresAt: number }[];
}

const STATE_FILE = "state.json";
const OBJECTS_DIR = "objects";

export class RepositoryFolder {
  constructor(readonly dir: string) {}

  async readState(): Promise<PersistedState | undefined> {
    let text: string;
    try {
      text = await readFile(join(this.dir, STATE_FILE), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    const state = JSON.parse(text) as PersistedState;
    if (state.version !== 1)
      throw new Error(`${join(this.dir, STATE_FILE)} has unknown version ${String(state.version)}`);
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
    await atomicWrite(join(this.dir, OBJECTS_DIR, file), json);
    return file;
  }

  async writeState(state: PersistedState): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await atomicWrite(join(this.dir, STATE_FILE), JSON.stringify(state, null, 1));
  }

  /**
   * Removes object files that neither the state (once committed) nor `alsoLive` names: the files of
   * documents that past refs still show (store.ts).
   */
  async collectGarbage(state: PersistedState, alsoLive: Iterable<string> = []): Promise<void> {
    const live = new Set([...Object.values(state.documents), ...Object.values(state.drafts), ...alsoLive]);
    let files: string[];
    try {
      files = await readdir(join(this.dir, OBJECTS_DIR));
    } catch {
      return;
    }
    await Promise.all(
      files.filter((f) => !live.has(f)).map((f) => rm(join(this.dir, OBJECTS_DIR, f), { force: true })),
    );
  }
}

async function atomicWrite(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}
