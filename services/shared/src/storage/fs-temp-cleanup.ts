import type { Dir } from "node:fs";
import { opendir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { RESERVED_SEGMENT_PREFIX } from "./storage-keys.ts";

const TEMP_PREFIX = `${RESERVED_SEGMENT_PREFIX}tmp-`;

/**
 * Removes the temp files (`.pressroom-tmp-*`) a killed process left next to their targets: an
 * atomic write is a temp file renamed into place, and SIGKILL between the two leaves the temp file
 * for good. Only files older than `olderThanMs` go: a younger one may be another process's write in
 * flight. Returns how many were removed. Walks every folder under `root` (sidecars included), until
 * `signal` aborts it. Each folder is read a few entries at a time (`opendir`), never listed whole:
 * the site's root holds a folder per page (100,000 at 100,000 pages), and the sweep runs while the
 * worker builds.
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
    let entries: Dir;
    try {
      entries = await opendir(folder);
    } catch {
      return; // gone meanwhile (a delete pruned it)
    }
    try {
      // The iteration closes the folder when it ends, breaks or throws.
      for await (const entry of entries) {
        if (signal?.aborted) break;
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
    } catch {
      // The folder went while it was read (a delete pruned it): nothing left in it to sweep.
    }
  };
  await walk(root);
  return removed;
}
