import type { S3Client } from "@aws-sdk/client-s3";
import type { Logger } from "../logger.ts";

export interface PutOptions {
  contentType: string;
  cacheControl: string;
  /** sha256 hex of the bytes; checked on `put`, so a stored hash can be trusted to skip uploads. */
  contentHash: string;
  /**
   * Makes the object a permanent redirect to this location (a path starting with `/`, or an
   * http(s) URL): S3 stores it as `x-amz-website-redirect-location`, so a bucket served as a website
   * answers 301 itself; the folder and memory drivers keep it in the object's metadata.
   */
  redirectLocation?: string;
}

export interface ObjectInfo {
  /** Relative to the site prefix. */
  key: string;
  size: number;
  contentType: string;
  /** Empty when the object was stored without one. */
  cacheControl: string;
  /** Undefined where the backend cannot tell it cheaply (S3 listings, files changed behind our back). */
  contentHash: string | undefined;
  /** Quoted, as in an HTTP ETag header. */
  etag: string;
  lastModified: Date;
  /** Set when the object was put with one; absent otherwise, and in S3 listings (which cannot tell). */
  redirectLocation?: string;
}

export interface StoredObject extends ObjectInfo {
  body: Buffer;
}

/** One site's objects under one prefix of one backend (a folder, an S3 bucket/prefix, memory). */
export interface SiteStore {
  /** e.g. "file:///abs/dir", "s3://bucket/prefix", "memory:" — for logs. */
  readonly description: string;
  put(key: string, body: Buffer | string, options: PutOptions): Promise<void>;
  /** Undefined when missing. */
  get(key: string): Promise<StoredObject | undefined>;
  head(key: string): Promise<ObjectInfo | undefined>;
  /** Idempotent: deleting a missing key is fine. */
  delete(key: string): Promise<void>;
  /**
   * Every object under the site prefix (or under `prefix` within it, a plain string prefix as in
   * S3), keys relative to the site prefix, in ascending UTF-8 byte order. On S3, contentType is
   * derived from the key's extension and cacheControl is "" (ListObjectsV2 returns neither):
   * use `head` for the stored values.
   */
  list(prefix?: string): AsyncIterable<ObjectInfo>;
  /**
   * The keys `list` would yield, in the same order, without their metadata: on a folder this
   * reads directories only (no file or sidecar per object), which a build of 10,000 pages needs.
   */
  keys(prefix?: string): AsyncIterable<string>;
  close(): Promise<void>;
  /**
   * Folder stores only: removes temp files older than `olderThanMs` that a killed writer left
   * behind (`.pressroom-tmp-*`); returns how many. Object stores have none (an upload is atomic).
   * It reads every folder: `signal` stops it between two (it answers what it removed so far).
   */
  removeStaleTemp?(olderThanMs: number, signal?: AbortSignal): Promise<number>;
}

export interface SiteStoreOptions {
  logger?: Logger;
  /** Use this client instead of building one (the caller keeps ownership: `close` leaves it open). */
  s3Client?: S3Client;
  /** Objects per ListObjectsV2 page (S3 caps it at 1000); small values let tests cross pages. */
  listPageSize?: number;
  /** S3 socket inactivity timeout in ms (default 30 000), for the client built here. */
  s3TimeoutMs?: number;
}
