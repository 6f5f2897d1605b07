import type { Dirent } from "node:fs";
import { readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { RESERVED_SEGMENT_PREFIX } from "./storage-keys.ts";

const TEMP_PREFIX = `${RESERVED_SEGMENT_PREFIX}tmp-`;

/**
 * Removes the temp files (`.pressroom-tmp-*`) a killed process left next to their targets: an
 * atomic write is a temp file renamed into place, and SIGKILL between the two leaves the temp file
 * for good. Only files older than `olderThanMs` go: a younger one may be another process's write in
 * flight. Returns how many were removed. Walks every folder under `root` (sidecars included), until
 * `signal` aborts it.
 */
export async function removeStaleTempFiles(
  root: string,
  olderThanMs: number,
  now = Date.now(),
  signal?: AbortSignal,
): Promise<number> {
  let removed = 0;
  const walk = async (folder: string): Promise<void> => {
    if (signal?.aborted) return;
    let entries: Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return; // gone meanwhile (a delete pruned it)
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && entry.name.startsWith(TEMP_PREFIX)) {
        const info = await stat(path).catch(() => undefined);
        if (info && now - info.mtimeMs > olderThanMs) {
          await unlink(path).catch(() => undefined);
          removed++;
        }
      }
    }
  };
  await walk(root);
  return removed;
}
