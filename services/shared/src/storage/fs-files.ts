import { randomUUID } from "node:crypto";
import {
  type BigIntStats,
  closeSync,
  type Dirent,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { rename, rmdir, unlink } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { RESERVED_SEGMENT_PREFIX } from "./storage-keys.ts";

/** Temp files sit next to their target (same filesystem, so rename is atomic) under a reserved name. */
const TEMP_PREFIX = `${RESERVED_SEGMENT_PREFIX}tmp-`;

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Writes `data` to `target` so that readers see either the old file or the whole new one: temp file
 * in the same folder, renamed over the target. Returns the new file's stats (taken before the
 * rename: they identify this very inode). No fsync, and synchronous calls but the rename: a page is
 * one small file on a local disk, and these choices are argued in
 * docs/decisions/006-folder-store-layout.md. A folder on a slow network mount is better served by
 * the s3 driver (docs/storage.md).
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
  const file = writeTemp(target, data, options);
  await commitTempAside(file);
  return file.stats;
}

/**
 * `commitTemp` on libuv's thread pool. A rename over an existing file makes ext4 (by default,
 * `auto_da_alloc`) start writing the new file's data out first: 0.1–1 ms per page a rebuild or a
 * publish replaces, during which this thread would do nothing else (docs/storage.md).
 */
async function commitTempAside(file: TempFile): Promise<void> {
  try {
    await rename(file.temp, file.target);
  } catch (error) {
    removeQuietly(file.temp);
    throw error;
  }
}

/** A file written beside its target under a temp name, not yet in place (`commitTemp`). */
export interface TempFile {
  temp: string;
  target: string;
  /** The temp file's stats when asked for: the very inode the target will be. */
  stats: BigIntStats | undefined;
}

/**
 * The first half of `writeFileAtomic`: every byte written (a full disk fails here, with the temp
 * file removed and the target untouched), nothing visible yet.
 */
export function writeTemp(target: string, data: Buffer | string, options: { stats: boolean }): TempFile {
  const folder = dirname(target);
  const temp = join(folder, `${TEMP_PREFIX}${randomUUID()}`);
  const fd = openCreatingFolders(folder, temp);
  let stats: BigIntStats | undefined;
  try {
    writeAll(fd, typeof data === "string" ? Buffer.from(data) : data);
    if (options.stats) stats = fstatSync(fd, { bigint: true });
  } catch (error) {
    closeSync(fd);
    removeQuietly(temp);
    throw error;
  }
  closeSync(fd);
  return { temp, target, stats };
}

/** Renames a temp file over its target (atomic); the temp file is removed if that fails. */
export function commitTemp(file: TempFile): void {
  try {
    renameSync(file.temp, file.target);
  } catch (error) {
    removeQuietly(file.temp);
    throw error;
  }
}

/** Removes a temp file that will not be committed. */
export function discardTemp(file: TempFile): void {
  removeQuietly(file.temp);
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.byteLength; ) {
    offset += writeSync(fd, bytes, offset, bytes.byteLength - offset);
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone, or never made: nothing to clean up
  }
}

/**
 * Folders this process made or found lately, so that a write into one opens its file at once. A
 * folder not known is made first (a recursive mkdir of a folder that exists fails no call): a first
 * build writes into 10,000 new folders, and opening first would fail (and throw) once for each.
 * Forgotten 10,000 at a time: a build writes each page's folder once, and at 100,000 pages a set of
 * every folder held ~8 MB for nothing.
 */
const knownFolders = new Set<string>();
const KNOWN_FOLDERS_LIMIT = 10_000;

function openCreatingFolders(folder: string, temp: string): number {
  if (!knownFolders.has(folder)) {
    mkdirSync(folder, { recursive: true });
    if (knownFolders.size >= KNOWN_FOLDERS_LIMIT) knownFolders.clear();
    knownFolders.add(folder);
  }
  // A folder known may have been pruned since (a delete of its last object, here or in another
  // process), or pruned between mkdir and open: make it again, a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      return openSync(temp, "wx");
    } catch (error) {
      if (errorCode(error) !== "ENOENT" || attempt >= 5) throw error;
    }
    mkdirSync(folder, { recursive: true });
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

/**
 * Removes a file that is usually not there (a page's metadata file, which only redirects and
 * unusual types have): one check that throws nothing when it is missing, as it is for every page.
 */
export function removeFileIfPresent(path: string): void {
  if (!existsSync(path)) return;
  try {
    unlinkSync(path);
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
export function* walkFiles(
  folder: string,
  base: string,
  include: (key: string, isFolder: boolean) => boolean,
  compare: (a: string, b: string) => number,
): Generator<WalkedFile> {
  let entries: Dirent[];
  try {
    // Synchronous, as the writes are (writeFileAtomic): a rebuild lists 10,000 folders, and the pool's
    // round trip cost more than reading each one. A generator of its own kind too: each file passed
    // up through nested async generators cost more than its folder's read (4.7 s against 1.9 s for
    // 100,000 folders).
    entries = readdirSync(folder, { withFileTypes: true });
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
