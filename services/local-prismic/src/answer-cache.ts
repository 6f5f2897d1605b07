/**
 * Search answers at refs whose content never changes (the master ref and past ones, never a
 * preview's), kept as the bytes sent, by the request's URL: what Prismic's CDN does for its API
 * (its answers at a ref are `immutable`, as ours say). A second build reads its answers from here
 * instead of filtering, ordering, presenting and serializing every document again (issue 22: a
 * 10,000-page listing costs this service 3-4 s, which a rebuild waited on).
 *
 * Bounded by bytes, least recently used out first. The default holds a 10,000-page site's listing
 * (67 MB): a cache smaller than a sequential scan it serves would evict each answer before it is
 * asked for again and never be hit.
 */
export interface AnswerCache {
  get(key: string): Buffer | undefined;
  set(key: string, body: Buffer): void;
}

export const DEFAULT_ANSWER_CACHE_BYTES = 128 * 1024 * 1024;

export function createAnswerCache(maxBytes = DEFAULT_ANSWER_CACHE_BYTES): AnswerCache {
  const answers = new Map<string, Buffer>();
  let bytes = 0;
  return {
    get(key) {
      const body = answers.get(key);
      if (body) {
        // Most recently used last: Map iteration follows insertion order.
        answers.delete(key);
        answers.set(key, body);
      }
      return body;
    },
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
