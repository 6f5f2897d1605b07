import { setTimeout as sleep } from "node:timers/promises";
import { ContentApiError, ContentTimeoutError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { redactUrl } from "../redact-url.ts";
import { ResponseCache, ttlFromCacheControl } from "./response-cache.ts";

export interface ContentFetchOptions {
  /** Milliseconds to wait for an answer before failing with "Response timeout for <url>". */
  timeoutMs: number;
  /** Default lifetime of a cached answer; `max-age` in the answer overrides it. 0 turns caching off. */
  cacheTtlMs: number;
  cacheMaxEntries: number;
  /** How many times a 429 answer is retried before it becomes an error. */
  rateLimitRetries: number;
  /** Wait before retrying a 429 that has no usable `retry-after` header. */
  defaultRetryAfterMs?: number;
  logger?: Logger;
  fetch?: typeof fetch;
}

export type ContentFetch = ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) & {
  readonly cache: ResponseCache;
};

const DEFAULT_RETRY_AFTER_MS = 1000;

/**
 * The fetch that every content client uses. It owns the rules the product
 * relies on, so that they hold whatever @prismicio/client does internally:
 * a bounded response cache, a timeout, bounded 429 retries honouring
 * `retry-after`, and an error carrying the status for any other non-2xx.
 * (The client's own 429 handling retries forever; it never sees a 429 from here.)
 */
export function createContentFetch(options: ContentFetchOptions): ContentFetch {
  const cache = new ResponseCache(options.cacheMaxEntries);
  const baseFetch = options.fetch ?? globalThis.fetch;
  const defaultRetryAfterMs = options.defaultRetryAfterMs ?? DEFAULT_RETRY_AFTER_MS;

  async function fetchOnce(url: string, init: RequestInit | undefined): Promise<Response> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout.signal]) : timeout.signal;
    try {
      const response = await baseFetch(url, { ...init, signal });
      // Read the body under the same timer: a server that sends headers and then stalls is a timeout too.
      const body = await response.arrayBuffer();
      return new Response(body, { status: response.status, headers: response.headers });
    } catch (error) {
      if (timeout.signal.aborted && !init?.signal?.aborted)
        throw new ContentTimeoutError(redactUrl(url), options.timeoutMs);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  const contentFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? "GET").toUpperCase();
    const cacheable = method === "GET" && init?.cache !== "no-store" && init?.cache !== "reload";
    if (cacheable) {
      const hit = cache.get(url);
      if (hit) return new Response(hit.body.slice(0), { status: hit.status, headers: hit.headers });
    }

    for (let attempt = 0; ; attempt++) {
      const response = await fetchOnce(url, init);
      if (response.ok) {
        // A request that asked not to be served from the cache is not stored in it either: a
        // publish's batch reads (100 documents, ~0.6 MB each) were kept, copied, for nothing.
        if (cacheable) {
          const ttl = ttlFromCacheControl(response.headers.get("cache-control"), options.cacheTtlMs);
          const body = await response.clone().arrayBuffer();
          cache.set(url, { status: response.status, headers: [...response.headers], body }, ttl);
        }
        return response;
      }
      if (response.status === 429 && attempt < options.rateLimitRetries) {
        const waitMs = retryAfterMs(response.headers.get("retry-after"), defaultRetryAfterMs);
        options.logger?.warn(
          { url: redactUrl(url), waitMs, attempt: attempt + 1 },
          "content API rate limit, retrying",
        );
        await sleep(waitMs, undefined, init?.signal ? { signal: init.signal } : undefined);
        continue;
      }
      throw new ContentApiError(response.status, redactUrl(url), await readBody(response));
    }
  };
  return Object.assign(contentFetch, { cache });
}

/** `retry-after` is seconds or an HTTP date; anything unusable falls back to the default. */
export function retryAfterMs(header: string | null, fallbackMs: number, now = Date.now()): number {
  if (header === null || header.trim() === "") return fallbackMs;
  if (/^\s*\d+(\.\d+)?\s*$/.test(header)) return Math.round(Number(header) * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? fallbackMs : Math.max(0, date - now);
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 500);
  }
}
