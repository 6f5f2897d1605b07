import type { SiteStore } from "./site-store.ts";

/**
 * A store whose driver module is loaded on first use. The S3 driver pulls in
 * the AWS SDK (about 25 MB of memory): processes that write to a folder, and
 * tests, should not pay for it.
 */
export function lazyStore(description: string, load: () => Promise<SiteStore>): SiteStore {
  let loading: Promise<SiteStore> | undefined;
  const store = () => {
    loading ??= load();
    return loading;
  };
  return {
    description,
    put: async (key, body, options) => (await store()).put(key, body, options),
    get: async (key) => (await store()).get(key),
    head: async (key) => (await store()).head(key),
    delete: async (key) => (await store()).delete(key),
    async *list(prefix) {
      yield* (await store()).list(prefix);
    },
    async *keys(prefix) {
      yield* (await store()).keys(prefix);
    },
    close: async () => {
      if (loading) await (await loading).close();
    },
  };
}
