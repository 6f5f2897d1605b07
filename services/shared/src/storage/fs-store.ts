import { type BigIntStats, closeSync, fstatSync, openSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Logger } from "../logger.ts";
import { defaultCacheControl } from "../site/manifest.ts";
import { sha256 } from "./content-hash.ts";
import { contentTypeFor } from "./content-types.ts";
import {
  commitTemp,
  discardTemp,
  errorCode,
  pruneEmptyFolders,
  removeFile,
  removeFileIfPresent,
  type TempFile,
  walkFiles,
  writeFileAtomic,
  writeTemp,
} from "./fs-files.ts";
import { META_FOLDER, readSidecar, type Sidecar, sidecarFor } from "./fs-sidecar.ts";
import { removeStaleTempFiles } from "./fs-temp-cleanup.ts";
import { KeyedLock } from "./keyed-lock.ts";
import { toPutInput } from "./put-input.ts";
import type { ObjectInfo, SiteStore, StoredObject } from "./site-store.ts";
import { STORAGE_FULL_CODES, StorageError, type StorageOperation } from "./storage-errors.ts";
import { assertSafeKey, assertSafePrefix, compareKeys, isSafeKey } from "./storage-keys.ts";

// A full disk too: freeing space is all it takes (the publish waits for it: worker.ts).
const RETRYABLE_CODES = new Set(["EAGAIN", "EBUSY", "EMFILE", "ENFILE", "ETIMEDOUT", ...STORAGE_FULL_CODES]);
// ENAMETOOLONG: a key longer than a file name can be (255 bytes a segment) cannot have been stored.
const isNotFound = (error: unknown) => ["ENOENT", "ENOTDIR", "ENAMETOOLONG"].includes(errorCode(error) ?? "");

/**
 * The site as a plain folder: `<root>/<key>` is the body, so any web server can serve `<root>`.
 * Metadata lives in a parallel tree, `<root>/.pressroom-meta/<key>`, written after the body, and only
 * for an object whose key does not imply it: a redirect, or a content type or cache policy other than
 * its extension's and its place's. So pages and assets are one file each
 * (docs/decisions/006-folder-store-layout.md). Without metadata an object's tag is weak (size and
 * time), `get` hashes the bytes it read, and `list` reports no hash.
 */
export function createFsStore(root: string, options: { logger?: Logger } = {}): SiteStore {
  const description = pathToFileURL(root).href;
  const metaRoot = join(root, META_FOLDER);
  // Per key, so that two puts of one key in this process cannot interleave body and metadata.
  const lock = new KeyedLock();
  const bodyPath = (key: string) => join(root, ...key.split("/"));
  const metaPath = (key: string) => join(metaRoot, ...key.split("/"));

  const fail = (operation: StorageOperation, key: string, error: unknown): StorageError => {
    const code = errorCode(error);
    const retryable = RETRYABLE_CODES.has(code ?? "");
    const detail = error instanceof Error ? error.message : String(error);
    return new StorageError(operation, key, description, retryable, detail, {
      cause: error,
      ...(code ? { code } : {}),
    });
  };

  const metadata = (key: string, file: BigIntStats) =>
    readSidecar(metaPath(key), file, () =>
      options.logger?.warn({ key, store: description }, "ignoring unreadable metadata"),
    );

  const toInfo = (key: string, file: BigIntStats, meta: Sidecar | undefined): ObjectInfo => ({
    key,
    size: Number(file.size),
    contentType: meta?.contentType ?? contentTypeFor(key),
    cacheControl: meta?.cacheControl ?? defaultCacheControl(key),
    contentHash: meta?.contentHash,
    // Without (current) metadata, a weak tag from size and time, as static file servers do.
    etag: meta ? `"${meta.contentHash}"` : `W/"${file.size.toString(16)}-${file.mtimeNs.toString(16)}"`,
    lastModified: new Date(Number(file.mtimeMs)),
    ...(meta?.redirectLocation === undefined ? {} : { redirectLocation: meta.redirectLocation }),
  });

  // Reads are synchronous calls, as writes are (fs-files.ts): a page in a local disk's cache costs
  // tens of microseconds of kernel time, less than the thread pool's round trips (docs/storage.md).
  const statFile = async (path: string): Promise<BigIntStats | undefined> => {
    let file: BigIntStats | undefined;
    try {
      file = statSync(path, { bigint: true, throwIfNoEntry: false });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    return file?.isFile() ? file : undefined;
  };

  /** The files under `prefix` that a key can name, in key order. */
  async function* files(prefix: string): AsyncGenerator<{ key: string; path: string }> {
    assertSafePrefix(prefix);
    const folderKey = prefix.slice(0, prefix.lastIndexOf("/") + 1);
    const start = folderKey === "" ? root : bodyPath(folderKey.slice(0, -1));
    const include = (key: string, isFolder: boolean) =>
      isFolder ? `${key}/`.startsWith(prefix) || prefix.startsWith(`${key}/`) : key.startsWith(prefix);
    try {
      for (const file of walkFiles(start, folderKey, include, compareKeys)) {
        if (isSafeKey(file.key)) yield file;
        // Put there by hand: no key can name it, so listing it would only invite failures.
        else
          options.logger?.warn(
            { key: file.key, store: description },
            "skipping a file whose name is not a safe key",
          );
      }
    } catch (error) {
      throw fail("list", prefix, error);
    }
  }

  const readBody = async (path: string): Promise<{ file: BigIntStats; bytes: Buffer } | undefined> => {
    // Stats and bytes from one descriptor: the same file even if a put renames over it meanwhile.
    // (Not existsSync first: it answers false for a folder that cannot be read, which must fail.)
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    try {
      const file = fstatSync(fd, { bigint: true });
      return file.isFile() ? { file, bytes: readFileSync(fd) } : undefined;
    } finally {
      closeSync(fd);
    }
  };

  return {
    description,

    async put(key, body, putOptions) {
      assertSafeKey(key);
      const input = toPutInput(key, body, putOptions);
      const implied =
        input.redirectLocation === undefined &&
        input.contentType === contentTypeFor(key) &&
        input.cacheControl === defaultCacheControl(key);
      await lock.run(key, async () => {
        try {
          if (implied) {
            await writeFileAtomic(bodyPath(key), input.body, { stats: false });
            // What an earlier put of the key left (a redirect, now a page) would no longer be current.
            removeFileIfPresent(metaPath(key));
          } else {
            // Both files are written before either is renamed into place, so a write that fails (a
            // full disk) leaves the object as it was: never a redirect's body without its location,
            // served as a page. Metadata first: until the body's rename it names an inode not in
            // place yet, which readers ignore (readSidecar).
            const file = writeTemp(bodyPath(key), input.body, { stats: true });
            let meta: TempFile;
            try {
              meta = writeTemp(metaPath(key), sidecarFor(file.stats as BigIntStats, input), { stats: false });
              commitTemp(meta);
            } catch (error) {
              discardTemp(file);
              throw error;
            }
            commitTemp(file);
          }
        } catch (error) {
          throw fail("put", key, error);
        }
      });
    },

    async get(key): Promise<StoredObject | undefined> {
      assertSafeKey(key);
      try {
        const read = await readBody(bodyPath(key));
        if (!read) return undefined;
        const info = toInfo(key, read.file, await metadata(key, read.file));
        // The bytes are at hand, so the hash is known even without (current) metadata.
        return { ...info, contentHash: info.contentHash ?? sha256(read.bytes), body: read.bytes };
      } catch (error) {
        throw fail("get", key, error);
      }
    },

    async head(key) {
      assertSafeKey(key);
      try {
        const file = await statFile(bodyPath(key));
        return file && toInfo(key, file, await metadata(key, file));
      } catch (error) {
        throw fail("head", key, error);
      }
    },

    async delete(key) {
      assertSafeKey(key);
      await lock.run(key, async () => {
        try {
          await removeFile(bodyPath(key));
          await removeFile(metaPath(key));
          await pruneEmptyFolders(root, dirname(bodyPath(key)));
          await pruneEmptyFolders(metaRoot, dirname(metaPath(key)));
        } catch (error) {
          throw fail("delete", key, error);
        }
      });
    },

    async *list(prefix = "") {
      for await (const { key, path } of files(prefix)) {
        const file = await statFile(path); // undefined: deleted since its folder was read
        if (file) yield toInfo(key, file, await metadata(key, file));
      }
    },

    async *keys(prefix = "") {
      for await (const { key } of files(prefix)) yield key;
    },

    async close() {},

    removeStaleTemp: (olderThanMs, signal) => removeStaleTempFiles(root, olderThanMs, Date.now(), signal),
  };
}
