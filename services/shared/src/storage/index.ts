export { sha256 } from "./content-hash.ts";
export { contentTypeFor } from "./content-types.ts";
export { createSiteStore } from "./create-site-store.ts";
export type { ObjectInfo, PutOptions, SiteStore, SiteStoreOptions, StoredObject } from "./site-store.ts";
export { StorageError, StorageKeyError, type StorageOperation, storageFullCode } from "./storage-errors.ts";
export { assertSafeKey, assertSafePrefix, compareKeys, isSafeKey } from "./storage-keys.ts";
export { parseStorageUrl, type StorageTarget } from "./storage-url.ts";
