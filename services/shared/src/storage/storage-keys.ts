import { StorageKeyError } from "./storage-errors.ts";

/**
 * Path segments starting with this are the file driver's own (metadata tree, temp files). They
 * are refused for every driver so that a key that works on one driver works on all of them.
 */
export const RESERVED_SEGMENT_PREFIX = ".pressroom-";

/** S3's own limit; keeping it for every driver keeps the drivers interchangeable. */
export const MAX_KEY_BYTES = 1024;

/**
 * A folder's limit on one file name (ext4, APFS, NTFS: 255 bytes). Kept for every driver, so a
 * key one driver cannot hold is refused by all, before any I/O: a request for such a key is a
 * plain "not found", never an ENAMETOOLONG carrying the storage path.
 */
export const MAX_SEGMENT_BYTES = 255;

const DRIVE_LETTER = /^[A-Za-z]:$/;

/**
 * Returns `key` when it is a relative path that stays inside the site's prefix on every driver;
 * throws a StorageKeyError naming the key and the rule it breaks otherwise.
 */
export function assertSafeKey(key: string): string {
  if (typeof key !== "string") throw new StorageKeyError(String(key), "not a string");
  const problem = keyProblem(key);
  if (problem) throw new StorageKeyError(key, problem);
  return key;
}

export function isSafeKey(key: string): boolean {
  return typeof key === "string" && keyProblem(key) === undefined;
}

/** C0 and C1 controls and DEL: never part of a path, and harmful in HTTP headers and log lines. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

function characterProblem(text: string): string | undefined {
  if (Buffer.byteLength(text, "utf8") > MAX_KEY_BYTES) return `longer than ${MAX_KEY_BYTES} bytes (UTF-8)`;
  if (hasControlCharacter(text)) return "contains a control character";
  // A lone surrogate has no UTF-8 form: it would be stored under a different key than asked.
  if (Buffer.from(text, "utf8").toString("utf8") !== text) return "contains an invalid character";
  if (text.includes("\\")) return "contains a backslash";
  return undefined;
}

function keyProblem(key: string): string | undefined {
  if (key === "") return "empty";
  const problem = characterProblem(key);
  if (problem) return problem;
  if (key.startsWith("/")) return "is an absolute path";
  if (key.endsWith("/")) return "ends with a slash";
  const segments = key.split("/");
  if (segments[0] !== undefined && DRIVE_LETTER.test(segments[0])) return "is an absolute path";
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) return problem;
  }
  return undefined;
}

function segmentProblem(segment: string): string | undefined {
  if (segment === "") return "has an empty path segment";
  if (segment === "." || segment === "..") return `has a "${segment}" path segment`;
  if (Buffer.byteLength(segment, "utf8") > MAX_SEGMENT_BYTES) {
    return `has a path segment longer than ${MAX_SEGMENT_BYTES} bytes (UTF-8)`;
  }
  if (segment.startsWith(RESERVED_SEGMENT_PREFIX)) {
    return `has a path segment starting with "${RESERVED_SEGMENT_PREFIX}" (reserved for the storage layer)`;
  }
  return undefined;
}

/**
 * A list prefix is a plain string prefix, as in S3 ("price-list/", or "price"). Its complete
 * segments (those before the last slash) must be safe; the last, partial one only filters.
 */
export function assertSafePrefix(prefix: string): string {
  if (prefix === "") return prefix;
  if (typeof prefix !== "string") throw new StorageKeyError(String(prefix), "not a string");
  if (prefix.startsWith("/")) throw new StorageKeyError(prefix, "as a list prefix, is an absolute path");
  const lastSlash = prefix.lastIndexOf("/");
  const folders = prefix.slice(0, Math.max(lastSlash, 0));
  const partial = prefix.slice(lastSlash + 1);
  const problem = (lastSlash >= 0 ? keyProblem(folders) : undefined) ?? characterProblem(partial);
  if (problem) throw new StorageKeyError(prefix, `as a list prefix, ${problem}`);
  return prefix;
}

/** UTF-8 byte order: what S3 lists in, so that every driver lists in the same order. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
