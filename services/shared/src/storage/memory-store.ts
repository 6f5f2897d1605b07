import { toPutInput } from "./put-input.ts";
import type { ObjectInfo, SiteStore, StoredObject } from "./site-store.ts";
import { assertSafeKey, assertSafePrefix, compareKeys } from "./storage-keys.ts";

/** For tests: a Map. Buffers are copied in and out so callers cannot change what is stored. */
export function createMemoryStore(): SiteStore {
  const objects = new Map<string, StoredObject>();

  const info = ({ body: _body, ...rest }: StoredObject): ObjectInfo => ({
    ...rest,
    lastModified: new Date(rest.lastModified),
  });

  return {
    description: "memory:",

    async put(key, body, options) {
      assertSafeKey(key);
      const input = toPutInput(key, body, options);
      objects.set(key, {
        key,
        body: Buffer.from(input.body),
        size: input.body.length,
        contentType: input.contentType,
        cacheControl: input.cacheControl,
        contentHash: input.contentHash,
        etag: `"${input.contentHash}"`,
        lastModified: new Date(),
        ...(input.redirectLocation === undefined ? {} : { redirectLocation: input.redirectLocation }),
      });
    },

    async get(key) {
      const stored = objects.get(assertSafeKey(key));
      return stored && { ...info(stored), body: Buffer.from(stored.body) };
    },

    async head(key) {
      const stored = objects.get(assertSafeKey(key));
      return stored && info(stored);
    },

    async delete(key) {
      objects.delete(assertSafeKey(key));
    },

    async *list(prefix = "") {
      assertSafePrefix(prefix);
      // A snapshot, so that deleting while iterating behaves as on the other drivers.
      const matching = [...objects.values()].filter((stored) => stored.key.startsWith(prefix));
      matching.sort((a, b) => compareKeys(a.key, b.key));
      for (const stored of matching) yield info(stored);
    },

    async *keys(prefix = "") {
      for await (const object of this.list(prefix)) yield object.key;
    },

    async close() {},
  };
}
