/**
 * Errors of the storage layer. Like the other shared errors, the class decides what happens
 * next: a StorageKeyError is a bug or a hostile uid (never retry); a StorageError says whether
 * trying again later can help (`retryable`: 5xx, 429, timeouts, dropped connections).
 */

export class StorageKeyError extends Error {
  override readonly name = "StorageKeyError";
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`Unsafe storage key ${showKey(key)}: ${reason}`);
  }
}

export type StorageOperation = "put" | "get" | "head" | "delete" | "list";

export class StorageError extends Error {
  override readonly name = "StorageError";
  constructor(
    readonly operation: StorageOperation,
    /** The key (or, for `list`, the prefix) the operation was about. */
    readonly key: string,
    /** The store's description, e.g. `s3://bucket/prefix`. */
    readonly location: string,
    readonly retryable: boolean,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Storage ${operation} of ${showKey(key)} in ${location} failed: ${detail}`, options);
  }
}

/** JSON quoting escapes control characters, so a hostile key cannot forge log lines. */
export function showKey(key: string): string {
  const shown = key.length > 120 ? `${key.slice(0, 120)}…` : key;
  return JSON.stringify(shown);
}
