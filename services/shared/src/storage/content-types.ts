import { extname } from "node:path";

/**
 * Content types for objects stored without metadata (files copied into the site folder by hand)
 * and for S3 listings, which do not return the stored type.
 */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".webmanifest": "application/manifest+json",
  ".xml": "application/xml; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".pdf": "application/pdf",
  ".gz": "application/gzip",
};

export const DEFAULT_CONTENT_TYPE = "application/octet-stream";

export function contentTypeFor(key: string): string {
  return BY_EXTENSION[extname(key).toLowerCase()] ?? DEFAULT_CONTENT_TYPE;
}
