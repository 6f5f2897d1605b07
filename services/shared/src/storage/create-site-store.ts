import type { StorageConfig } from "../config/index.ts";
import { meteredStore } from "../metrics/metered-store.ts";
import { createFsStore } from "./fs-store.ts";
import { lazyStore } from "./lazy-store.ts";
import { createMemoryStore } from "./memory-store.ts";
import type { SiteStore, SiteStoreOptions } from "./site-store.ts";
import { describeS3, parseStorageUrl } from "./storage-url.ts";

/**
 * The store named by `config.url`: `file://<folder>`, `s3://<bucket>/<prefix>` or `memory:`.
 * Does no I/O: folders and connections are made on first use. Throws a ConfigError for a bad URL.
 */
export function createSiteStore(config: StorageConfig, options: SiteStoreOptions = {}): SiteStore {
  const target = parseStorageUrl(config.url);
  const { logger } = options;
  let store: SiteStore;
  switch (target.kind) {
    case "memory":
      store = createMemoryStore();
      break;
    case "file":
      store = createFsStore(target.root, { logger });
      break;
    case "s3":
      store = lazyStore(describeS3(target), async () => {
        const [{ createS3Store }, { createS3Client }] = await Promise.all([
          import("./s3-store.ts"),
          import("./s3-client.ts"),
        ]);
        return createS3Store(target, {
          client: options.s3Client ?? createS3Client(config, options.s3TimeoutMs),
          ownsClient: options.s3Client === undefined,
          listPageSize: options.listPageSize,
          logger,
        });
      });
      break;
  }
  logger?.debug({ store: store.description, endpoint: config.s3Endpoint }, "site store ready");
  return meteredStore(store);
}
