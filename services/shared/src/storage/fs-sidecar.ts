import { type BigIntStats, readFileSync, statSync } from "node:fs";
import { isSha256Hex } from "./content-hash.ts";
import { errorCode } from "./fs-files.ts";
import { isRedirectLocation } from "./put-input.ts";
import type { PutOptions } from "./site-store.ts";
import { RESERVED_SEGMENT_PREFIX } from "./storage-keys.ts";

/** `<root>/.pressroom-meta/<key>` holds the JSON metadata of `<root>/<key>` (same relative path). */
export const META_FOLDER = `${RESERVED_SEGMENT_PREFIX}meta`;

export interface Sidecar extends PutOptions {
  /** Size, modification time and inode of the body file this metadata was written for. */
  size: string;
  mtimeNs: string;
  ino: string;
}

/** `file`: the stats of the body file just written (the very inode, see writeFileAtomic). */
export function sidecarFor(file: BigIntStats, options: PutOptions): string {
  const sidecar: Sidecar = {
    contentType: options.contentType,
    cacheControl: options.cacheControl,
    contentHash: options.contentHash,
    ...(options.redirectLocation === undefined ? {} : { redirectLocation: options.redirectLocation }),
    size: String(file.size),
    mtimeNs: String(file.mtimeNs),
    ino: String(file.ino),
  };
  return `${JSON.stringify(sidecar, null, 2)}\n`;
}

/**
 * The metadata at `path`, if it still describes `body`: a body replaced behind our back (edited
 * by hand, or by a put racing in another process) must not keep a hash it no longer has.
 * Undefined when missing, stale or unreadable (`onUnreadable` is told about the last).
 */
export async function readSidecar(
  path: string,
  body: BigIntStats,
  onUnreadable: () => void,
): Promise<Sidecar | undefined> {
  let parsed: Partial<Sidecar>;
  try {
    // Synchronous, as the folder driver's reads and writes are (fs-files.ts, writeFileAtomic); most
    // objects have no metadata file, and a missing one is answered without a thrown ENOENT.
    const file = statSync(path, { throwIfNoEntry: false });
    if (!file?.isFile()) return undefined;
    parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<Sidecar>;
  } catch (error) {
    if (error instanceof SyntaxError) onUnreadable();
    else if (!["ENOENT", "ENOTDIR", "EISDIR"].includes(errorCode(error) ?? "")) throw error;
    return undefined;
  }
  const current =
    parsed.size === String(body.size) &&
    parsed.mtimeNs === String(body.mtimeNs) &&
    parsed.ino === String(body.ino) &&
    typeof parsed.contentType === "string" &&
    typeof parsed.cacheControl === "string" &&
    isSha256Hex(parsed.contentHash) &&
    (parsed.redirectLocation === undefined || isRedirectLocation(parsed.redirectLocation));
  return current ? (parsed as Sidecar) : undefined;
}
