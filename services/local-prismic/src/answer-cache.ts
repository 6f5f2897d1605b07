import type { MatchCache } from "./query/types.ts";

/**
 * Search answers at refs whose content never changes (the master ref and past ones, never a
 * preview's), kept as the bytes sent, by URL: what Prismic's CDN does for its API. A rebuild then
 * reads its answers here instead of waiting for every document to be filtered and serialized again.
 * Bounded by bytes, least recently used out first; the default holds a 10,000-page site's listing,
 * since a cache smaller than a sequential scan it serves would never be hit.
 */
export interface AnswerCache {
  get(key: string): Buffer | undefined;
  set(key: string, body: Buffer): void;
}

/**
 * The last few queries' matching documents in order (search.ts `orderedMatches`), at refs whose
 * content never changes: each page of a listing after the first is cut from them. References to
 * documents the service holds anyway; 8 queries of 100,000 documents hold ~6 MB of references, and
 * the documents a publish since replaced until they are dropped.
 */
export function createMatchCache(entries = 8): MatchCache {
  return boundedCache(entries, () => 1);
}

export const DEFAULT_ANSWER_CACHE_BYTES = 128 * 1024 * 1024;

export function createAnswerCache(maxBytes = DEFAULT_ANSWER_CACHE_BYTES): AnswerCache {
  return boundedCache(maxBytes, (body: Buffer) => body.byteLength);
}

/**
 * Values by key, least recently used out first once their sizes add up to more than `limit`; a value
 * larger than `limit` alone is not kept. Map iteration follows insertion order: the most recently
 * used is last.
 */
function boundedCache<V>(limit: number, sizeOf: (value: V) => number) {
  const kept = new Map<string, V>();
  let total = 0;
  return {
    get(key: string): V | undefined {
      const value = kept.get(key);
      if (value !== undefined) {
        kept.delete(key);
        kept.set(key, value);
      }
      return value;
    },
    set(key: string, value: V): void {
      const size = sizeOf(value);
      if (size > limit) return;
      const before = kept.get(key);
      if (before !== undefined) {
        kept.delete(key);
        total -= sizeOf(before);
      }
      kept.set(key, value);
      total += size;
      for (const [oldest, old] of kept) {
        if (total <= limit) break;
        kept.delete(oldest);
        total -= sizeOf(old);
      }
    },
  };
}
