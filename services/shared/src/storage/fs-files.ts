import { randomUUID } from "node:crypto";
import type { BigIntStats, Dirent } from "node:fs";
import { mkdir, open, readdir, rename, rmdir, unlink } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { RESERVED_SEGMENT_PREFIX } from "./storage-keys.ts";

/** Temp files sit next to their target (same filesystem, so rename is atomic) under a reserved name. */
const TEMP_PREFIX = `${RESERVED_SEGMENT_PREFIX}tmp-`;

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Writes `data` to `target` so that readers see either the old file or the whole new one:
 * temp file in the same folder, then renamed over the target. Returns the new file's stats
 * (taken before the rename: they identify this very inode, whoever renames after us).
 * No fsync: the rename is atomic against a crash of the process, which is what readers need;
 * after a power loss, a file whose bytes did not reach the disk no longer matches the size and
 * time its metadata recorded, so the next build sees no hash for it and writes it again. An fsync
 * per object would cost 1–2 ms each, most of a 10,000-page build.
 */
export async function writeFileAtomic(target: string, data: Buffer | string): Promise<BigIntStats>;
export async function writeFileAtomic(
  target: string,
  data: Buffer | string,
  options: { stats: false },
): Promise<undefined>;
export async function writeFileAtomic(
  target: string,
  data: Buffer | string,
  options: { stats: boolean } = { stats: true },
): Promise<BigIntStats | undefined> {
  const folder = dirname(target);
  const temp = join(folder, `${TEMP_PREFIX}${randomUUID()}`);
  const handle = await openCreatingFolders(folder, temp);
  let stats: BigIntStats | undefined;
  try {
    await handle.writeFile(data);
    if (options.stats) stats = await handle.stat({ bigint: true });
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  return stats;
}

async function openCreatingFolders(folder: string, temp: string) {
  // The folder usually exists (a site has few folders and many files): open first, and create the
  // folder only when it is missing, rather than a recursive mkdir per write (8 % of a 10,000-page
  // build's main thread, measured with --cpu-prof). A concurrent delete may prune the folder between
  // mkdir and open: try again a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      return await open(temp, "wx");
    } catch (error) {
      if (errorCode(error) !== "ENOENT" || attempt >= 5) throw error;
    }
    await mkdir(folder, { recursive: true });
  }
}

/** Removes a file; a missing file (or a folder where the file would be) is already "removed". */
export async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (!["ENOENT", "ENOTDIR", "EISDIR"].includes(errorCode(error) ?? "")) throw error;
  }
}

/** Removes now-empty folders from `folder` up to, not including, `root`. */
export async function pruneEmptyFolders(root: string, folder: string): Promise<void> {
  let current = folder;
  while (current !== root && relative(root, current).split(sep)[0] !== "..") {
    try {
      await rmdir(current);
    } catch {
      return; // not empty (or already gone): everything above it is not empty either
    }
    current = dirname(current);
  }
}

export interface WalkedFile {
  /** Relative to the walk's root, with "/" separators. */
  key: string;
  path: string;
}

/**
 * Yields the regular files under `folder`, in ascending UTF-8 byte order of their keys, skipping
 * reserved names and symlinks. Siblings are sorted with a "/" after folder names, which makes the
 * depth-first order the global key order without collecting every key first.
 */
export async function* walkFiles(
  folder: string,
  base: string,
  include: (key: string, isFolder: boolean) => boolean,
  compare: (a: string, b: string) => number,
): AsyncGenerator<WalkedFile> {
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if (["ENOENT", "ENOTDIR"].includes(errorCode(error) ?? "")) return;
    throw error;
  }
  const sorted = entries
    .filter((entry) => !entry.name.startsWith(RESERVED_SEGMENT_PREFIX))
    .filter((entry) => entry.isFile() || entry.isDirectory())
    .map((entry) => ({ entry, sortName: entry.isDirectory() ? `${entry.name}/` : entry.name }))
    .sort((a, b) => compare(a.sortName, b.sortName));
  for (const { entry } of sorted) {
    const key = `${base}${entry.name}`;
    const path = join(folder, entry.name);
    if (!include(key, entry.isDirectory())) continue;
    if (entry.isDirectory()) yield* walkFiles(path, `${key}/`, include, compare);
    else yield { key, path };
  }
}
