import { setTimeout as sleep } from "node:timers/promises";
import { ContentApiError, ContentTimeoutError, RateLimitedError } from "../errors.ts";
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
  /**
   * The longest single wait a 429 may impose in place (default 10 s). A longer `retry-after` fails
   * at once with a RateLimitedError carrying the time to come back: a job must not sleep for an hour
   * holding the publish lock.
   */
  maxRetryAfterMs?: number;
  /** Told of every 429, with the time the content API asked to wait until (status, metrics). */
  onRateLimited?: (wait: RateLimitWait) => void;
  /**
   * Aborted when the process shuts down: every request in flight and every wait ends at once
   * (SIGTERM must stop a process within seconds, not after a 429's wait).
   */
  signal?: AbortSignal;
  logger?: Logger;
  fetch?: typeof fetch;
}

/** A 429 as the content fetch met it. */
export interface RateLimitWait {
  /** The request's URL, access token redacted. */
  url: string;
  /** When the content API said to come back (epoch ms). */
  until: number;
  /** Whether this process waits and retries in place (false: it fails now with a RateLimitedError). */
  retrying: boolean;
}

export type ContentFetch = ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) & {
  readonly cache: ResponseCache;
};

const DEFAULT_RETRY_AFTER_MS = 1000;
/** The default PRISMIC_RATE_LIMIT_MAX_WAIT_MS. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 10_000;

/**
 * The fetch that every content client uses. It owns the rules the product
 * relies on, so that they hold whatever @prismicio/client does internally:
 * a bounded response cache, a timeout, bounded 429 retries honouring
 * `retry-after` up to a bound (a longer one fails at once: RateLimitedError), an
 * abort on shutdown, and an error carrying the status for any other non-2xx.
 * (The client's own 429 handling retries forever; it never sees a 429 from here.)
 */
export function createContentFetch(options: ContentFetchOptions): ContentFetch {
  const cache = new ResponseCache(options.cacheMaxEntries);
  const baseFetch = options.fetch ?? globalThis.fetch;
  const defaultRetryAfterMs = options.defaultRetryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  /** The caller's signal and the process's shutdown, as one. */
  const callerSignal = (init: RequestInit | undefined): AbortSignal | undefined => {
    const signals = [init?.signal, options.signal].filter((s): s is AbortSignal => Boolean(s));
    return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  };

  async function fetchOnce(url: string, init: RequestInit | undefined): Promise<Response> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
    const caller = callerSignal(init);
    const signal = caller ? AbortSignal.any([caller, timeout.signal]) : timeout.signal;
    try {
      const response = await baseFetch(url, { ...init, signal });
      // Read the body under the same timer: a server that sends headers and then stalls is a timeout too.
      const body = await response.arrayBuffer();
      return new Response(body, { status: response.status, headers: response.headers });
    } catch (error) {
      if (timeout.signal.aborted && !caller?.aborted)
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
        // publish's batch reads are large and never read twice.
        if (cacheable) {
          const ttl = ttlFromCacheControl(response.headers.get("cache-control"), options.cacheTtlMs);
          const body = await response.clone().arrayBuffer();
          cache.set(url, { status: response.status, headers: [...response.headers], body }, ttl);
        }
        return response;
      }
      if (response.status === 429) {
        const waitMs = retryAfterMs(response.headers.get("retry-after"), defaultRetryAfterMs);
        const until = Date.now() + waitMs;
        const retrying = attempt < options.rateLimitRetries && waitMs <= maxRetryAfterMs;
        options.onRateLimited?.({ url: redactUrl(url), until, retrying });
        if (!retrying) {
          const why =
            waitMs > maxRetryAfterMs
              ? `longer than the ${maxRetryAfterMs} ms a single wait may last (PRISMIC_RATE_LIMIT_MAX_WAIT_MS)`
              : `still limited after ${options.rateLimitRetries} retries (PRISMIC_RATE_LIMIT_RETRIES)`;
          throw new RateLimitedError(redactUrl(url), await readBody(response), until, why);
        }
        options.logger?.warn(
          { url: redactUrl(url), waitMs, attempt: attempt + 1 },
          "content API rate limit, retrying",
        );
        const signal = callerSignal(init);
        await sleep(waitMs, undefined, signal ? { signal } : undefined);
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
