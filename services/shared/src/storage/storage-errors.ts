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
    options?: { cause?: unknown; code?: string },
  ) {
    super(`Storage ${operation} of ${showKey(key)} in ${location} failed: ${detail}`, options);
    if (options?.code) this.code = options.code;
  }

  /** The system's error code where the backend gave one (`ENOSPC`, `EACCES`: the folder driver). */
  readonly code?: string;
}

/** The codes of a store with no room left: the disk (ENOSPC) or the user's quota (EDQUOT). */
export const STORAGE_FULL_CODES = ["ENOSPC", "EDQUOT"] as const;

/**
 * `ENOSPC` or `EDQUOT` when `error` (or an error it was caused by) says the store has no room left.
 * A child job's failure reaches the publish waiting for it as its message only (BullMQ keeps the
 * reason as text), so the message counts too.
 */
export function storageFullCode(error: unknown): (typeof STORAGE_FULL_CODES)[number] | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    const full = STORAGE_FULL_CODES.find(
      (name) => code === name || (typeof message === "string" && message.includes(`${name}:`)),
    );
    if (full) return full;
    current = cause;
  }
  return undefined;
}

/** JSON quoting escapes control characters, so a hostile key cannot forge log lines. */
export function showKey(key: string): string {
  const shown = key.length > 120 ? `${key.slice(0, 120)}…` : key;
  return JSON.stringify(shown);
}
