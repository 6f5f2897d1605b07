import { promisify } from "node:util";
import { type BrotliOptions, brotliCompress, constants, gzip } from "node:zlib";

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export type Encoding = "br" | "gzip";

/**
 * Brotli's quality for what this server compresses as it serves. The first visitor of an object
 * waits for its compression (after every publish, a page's first reader): quality 5 is several times
 * faster than 9 for output barely larger (docs/decisions/001-brotli-quality-5.md). A CDN in front
 * compresses with its own settings.
 */
export const BROTLI_QUALITY = 5;
/** gzip's level, for clients without brotli: level 9 costs no more than 6 on these objects. */
export const GZIP_LEVEL = 9;

/** zlib's brotli options for `body` at `quality` (the server's by default; the benchmark tries others). */
export function brotliOptions(body: Buffer, quality: number = BROTLI_QUALITY): BrotliOptions {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  };
}

/** Below this, the headers cost more than compression saves. */
const MIN_BYTES = 1024;
const COMPRESSIBLE = /^(text\/|application\/(javascript|json|xml|manifest\+json)|image\/svg\+xml)/;

/** The best encoding the client accepts (brotli, then gzip), or undefined for identity. */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    if (name) accepted.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const quality = (name: Encoding) => accepted.get(name) ?? accepted.get("*") ?? 0;
  if (quality("br") > 0) return "br";
  if (quality("gzip") > 0) return "gzip";
  return undefined;
}

export function isCompressible(contentType: string, bytes: number): boolean {
  return bytes >= MIN_BYTES && COMPRESSIBLE.test(contentType);
}

/**
 * Compressed bodies by ETag and encoding, so each stored object is compressed
 * once per encoding however often it is served (an ETag names exactly one
 * body). Least recently used entries go first once `maxBytes` is reached.
 */
export class CompressionCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes = 32 * 1024 * 1024) {}

  async get(etag: string, encoding: Encoding, body: Buffer): Promise<Buffer> {
    const key = `${encoding}:${etag}`;
    const cached = this.entries.get(key);
    if (cached) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    const compressed =
      encoding === "br"
        ? await brotli(body, brotliOptions(body))
        : await gzipAsync(body, { level: GZIP_LEVEL });
    if (compressed.length <= this.maxBytes) {
      this.entries.set(key, compressed);
      this.bytes += compressed.length;
      for (const [oldest, value] of this.entries) {
        if (this.bytes <= this.maxBytes) break;
        this.entries.delete(oldest);
        this.bytes -= value.length;
      }
    }
    return compressed;
  }
}
