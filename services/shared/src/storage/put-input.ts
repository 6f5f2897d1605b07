import { isSha256Hex, sha256 } from "./content-hash.ts";
import type { PutOptions } from "./site-store.ts";
import { hasControlCharacter } from "./storage-keys.ts";

export interface PutInput extends PutOptions {
  body: Buffer;
}

/**
 * Checks what a caller hands to `put` before any driver writes anything. The hash is verified
 * because callers skip uploads by comparing stored hashes: a wrong one would pin a stale page.
 * Control characters are refused because the values travel as HTTP headers on S3.
 * Throws a TypeError: these are programming errors, not storage failures.
 */
export function toPutInput(key: string, body: Buffer | string, options: PutOptions): PutInput {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  if (!Buffer.isBuffer(bytes))
    throw new TypeError(`put ${JSON.stringify(key)}: body is not a Buffer or string`);
  const { contentType, cacheControl, contentHash, redirectLocation } = options;
  if (typeof contentType !== "string" || contentType === "" || hasControlCharacter(contentType)) {
    throw new TypeError(
      `put ${JSON.stringify(key)}: contentType ${JSON.stringify(contentType)} is not valid`,
    );
  }
  if (typeof cacheControl !== "string" || hasControlCharacter(cacheControl)) {
    throw new TypeError(
      `put ${JSON.stringify(key)}: cacheControl ${JSON.stringify(cacheControl)} is not valid`,
    );
  }
  if (!isSha256Hex(contentHash)) {
    throw new TypeError(`put ${JSON.stringify(key)}: contentHash is not a lowercase sha256 hex digest`);
  }
  if (redirectLocation !== undefined && !isRedirectLocation(redirectLocation)) {
    throw new TypeError(
      `put ${JSON.stringify(key)}: redirectLocation ${JSON.stringify(redirectLocation)} is not a path starting with "/" or an http(s) URL`,
    );
  }
  const actual = sha256(bytes);
  if (actual !== contentHash) {
    throw new TypeError(
      `put ${JSON.stringify(key)}: contentHash ${contentHash} is not the sha256 of the body (${actual})`,
    );
  }
  return {
    body: bytes,
    contentType,
    cacheControl,
    contentHash,
    ...(redirectLocation === undefined ? {} : { redirectLocation }),
  };
}

/** What S3 accepts as `x-amz-website-redirect-location`: a path on the site or an http(s) URL. */
export function isRedirectLocation(value: unknown): value is string {
  return (
    typeof value === "string" &&
    /^(\/(?!\/)|https?:\/\/)/.test(value) &&
    value.length <= 2048 &&
    !hasControlCharacter(value) &&
    !/\s/.test(value)
  );
}
