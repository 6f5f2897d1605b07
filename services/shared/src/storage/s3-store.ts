import { createHash } from "node:crypto";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  type HeadObjectCommandOutput,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import type { Logger } from "../logger.ts";
import { isSha256Hex } from "./content-hash.ts";
import { contentTypeFor } from "./content-types.ts";
import { toPutInput } from "./put-input.ts";
import type { ObjectInfo, SiteStore } from "./site-store.ts";
import { StorageError, StorageKeyError, type StorageOperation } from "./storage-errors.ts";
import { assertSafeKey, assertSafePrefix, isSafeKey, MAX_KEY_BYTES } from "./storage-keys.ts";
import { describeS3 } from "./storage-url.ts";

/** User metadata key (sent as `x-amz-meta-content-hash`). */
export const CONTENT_HASH_METADATA = "content-hash";

export interface S3Location {
  bucket: string;
  /** "" or ending with "/". */
  prefix: string;
}

export interface S3StoreOptions {
  client: S3Client;
  /** Destroy the client on close (only when the store built it). */
  ownsClient: boolean;
  listPageSize?: number;
  logger?: Logger;
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN"]);

export function createS3Store(location: S3Location, options: S3StoreOptions): SiteStore {
  const { bucket, prefix: base } = location;
  const { client, logger } = options;
  const description = describeS3(location);

  const objectKey = (key: string): string => {
    assertSafeKey(key);
    if (Buffer.byteLength(base + key, "utf8") > MAX_KEY_BYTES) {
      throw new StorageKeyError(key, `with the prefix "${base}", longer than ${MAX_KEY_BYTES} bytes (UTF-8)`);
    }
    return base + key;
  };

  const fail = (operation: StorageOperation, key: string, error: unknown): StorageError => {
    const { name, message } = error instanceof Error ? error : { name: "Error", message: String(error) };
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const code = (error as { code?: unknown }).code;
    const retryable =
      status !== undefined
        ? status >= 500 || status === 429 || status === 408
        : name === "TimeoutError" || (typeof code === "string" && NETWORK_CODES.has(code));
    const detail = `${name}${status === undefined ? "" : ` (HTTP ${status})`}: ${message}`;
    return new StorageError(operation, key, description, retryable, detail, { cause: error });
  };

  const isMissing = (error: unknown): boolean => {
    const { name } = error as { name?: unknown };
    // HeadObject has no body, so a 404 only says "NotFound"; GetObject says which thing is
    // missing, and a missing bucket must stay an error, not look like an empty site.
    return name === "NoSuchKey" || name === "NotFound";
  };

  const toInfo = (key: string, head: HeadObjectCommandOutput): ObjectInfo => {
    const hash = head.Metadata?.[CONTENT_HASH_METADATA];
    return {
      key,
      size: head.ContentLength ?? 0,
      contentType: head.ContentType ?? contentTypeFor(key),
      cacheControl: head.CacheControl ?? "",
      contentHash: isSha256Hex(hash) ? hash : undefined,
      etag: head.ETag ?? "",
      lastModified: head.LastModified ?? new Date(0),
      ...(head.WebsiteRedirectLocation ? { redirectLocation: head.WebsiteRedirectLocation } : {}),
    };
  };

  return {
    description,

    async put(key, body, putOptions) {
      const Key = objectKey(key);
      const input = toPutInput(key, body, putOptions);
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key,
            Body: input.body,
            ContentLength: input.body.length,
            ContentMD5: createHash("md5").update(input.body).digest("base64"),
            ContentType: input.contentType,
            CacheControl: input.cacheControl || undefined,
            Metadata: { [CONTENT_HASH_METADATA]: input.contentHash },
            WebsiteRedirectLocation: input.redirectLocation,
          }),
        );
      } catch (error) {
        throw fail("put", key, error);
      }
    },

    async get(key) {
      const Key = objectKey(key);
      try {
        const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key }));
        const bytes = (await response.Body?.transformToByteArray()) ?? new Uint8Array();
        const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        return { ...toInfo(key, response), size: body.length, body };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw fail("get", key, error);
      }
    },

    async head(key) {
      const Key = objectKey(key);
      try {
        return toInfo(key, await client.send(new HeadObjectCommand({ Bucket: bucket, Key })));
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw fail("head", key, error);
      }
    },

    async delete(key) {
      const Key = objectKey(key);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
      } catch (error) {
        if (isMissing(error)) return;
        throw fail("delete", key, error);
      }
    },

    async *keys(prefix = "") {
      // ListObjectsV2 returns keys and sizes only: a listing costs the same either way.
      for await (const object of this.list(prefix)) yield object.key;
    },

    async *list(prefix = "") {
      assertSafePrefix(prefix);
      let token: string | undefined;
      do {
        let page: ListObjectsV2CommandOutput;
        try {
          page = await client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: base + prefix || undefined,
              MaxKeys: options.listPageSize,
              ContinuationToken: token,
            }),
          );
        } catch (error) {
          throw fail("list", prefix, error);
        }
        for (const object of page.Contents ?? []) {
          const key = object.Key?.startsWith(base) ? object.Key.slice(base.length) : undefined;
          if (key === undefined || !isSafeKey(key)) {
            // Folder markers ("about/") made by S3 consoles are common; anything else is worth a look.
            const level = object.Key?.endsWith("/") ? "debug" : "warn";
            logger?.[level](
              { key: object.Key, store: description },
              "skipping an object whose key is not safe",
            );
            continue;
          }
          yield {
            key,
            size: object.Size ?? 0,
            contentType: contentTypeFor(key),
            cacheControl: "",
            contentHash: undefined,
            etag: object.ETag ?? "",
            lastModified: object.LastModified ?? new Date(0),
          };
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
        if (page.IsTruncated && !token) {
          throw new StorageError(
            "list",
            prefix,
            description,
            false,
            "truncated page without a continuation token",
          );
        }
      } while (token);
    },

    async close() {
      if (options.ownsClient) client.destroy();
    },
  };
}
