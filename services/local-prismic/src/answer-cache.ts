import type { MatchCache, PrismicDocument } from "./query/types.ts";

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
  const kept = new Map<string, readonly PrismicDocument[]>();
  return {
    get: (key) => used(kept, key),
    set(key, documents) {
      kept.delete(key);
      kept.set(key, documents);
      for (const oldest of kept.keys()) {
        if (kept.size <= entries) break;
        kept.delete(oldest);
      }
    },
  };
}

export const DEFAULT_ANSWER_CACHE_BYTES = 128 * 1024 * 1024;

export function createAnswerCache(maxBytes = DEFAULT_ANSWER_CACHE_BYTES): AnswerCache {
  const answers = new Map<string, Buffer>();
  let bytes = 0;
  return {
    get: (key) => used(answers, key),
    set(key, body) {
      if (body.byteLength > maxBytes) return;
      const before = answers.get(key);
      if (before) {
        answers.delete(key);
        bytes -= before.byteLength;
      }
      answers.set(key, body);
      bytes += body.byteLength;
      for (const [oldest, old] of answers) {
        if (bytes <= maxBytes) break;
        answers.delete(oldest);
        bytes -= old.byteLength;
      }
    },
  };
}

/** The value at `key`, made the most recently used: Map iteration follows insertion order. */
function used<V>(map: Map<string, V>, key: string): V | undefined {
  const value = map.get(key);
  if (value !== undefined) {
    map.delete(key);
    map.set(key, value);
  }
  return value;
}
