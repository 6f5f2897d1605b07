import type { SiteStore } from "../storage/site-store.ts";
import { StorageError, StorageKeyError } from "../storage/storage-errors.ts";
import { storageErrors, storageOperations } from "./metrics.ts";

type Operation = "put" | "get" | "head" | "delete" | "list";

/** Counts every operation of `store`, and its failures by kind, in `pressroom_storage_*`. */
export function meteredStore(store: SiteStore): SiteStore {
  const metered = async <T>(operation: Operation, work: () => Promise<T>): Promise<T> => {
    storageOperations.inc({ operation });
    try {
      return await work();
    } catch (error) {
      storageErrors.inc({ operation, error: errorKind(error) });
      throw error;
    }
  };
  async function* meteredList<T>(items: () => AsyncIterable<T>): AsyncIterable<T> {
    storageOperations.inc({ operation: "list" });
    try {
      yield* items();
    } catch (error) {
      storageErrors.inc({ operation: "list", error: errorKind(error) });
      throw error;
    }
  }
  return {
    description: store.description,
    put: (key, body, options) => metered("put", () => store.put(key, body, options)),
    get: (key) => metered("get", () => store.get(key)),
    head: (key) => metered("head", () => store.head(key)),
    delete: (key) => metered("delete", () => store.delete(key)),
    list: (prefix) => meteredList(() => store.list(prefix)),
    keys: (prefix) => meteredList(() => store.keys(prefix)),
    close: () => store.close(),
    // Optional capabilities pass through as they are (a wrapper that dropped one would silently
    // turn it off: the folder store's temp-file cleanup was lost this way once).
    ...(store.removeStaleTemp ? { removeStaleTemp: store.removeStaleTemp.bind(store) } : {}),
  };
}

function errorKind(error: unknown): string {
  if (error instanceof StorageKeyError) return "unsafe-key";
  if (error instanceof StorageError) return error.retryable ? "retryable" : "permanent";
  return "permanent";
}
