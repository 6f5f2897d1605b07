/**
 * A small LRU cache of API answers with per-entry expiry. Prismic answers are
 * immutable for a given ref, so a short default TTL (5 s) only bounds how long
 * a "current" answer such as /api/v2 may be reused; `max-age` overrides it.
 */
export interface CachedResponse {
  status: number;
  headers: [string, string][];
  body: ArrayBuffer;
}

export class ResponseCache {
  readonly #entries = new Map<string, { value: CachedResponse; expiresAt: number }>();
  /** When expired entries are next looked for. */
  #nextSweep = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): CachedResponse | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    // Re-insert so Map order stays least-recently-used first.
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: CachedResponse, ttlMs: number): void {
    if (ttlMs <= 0 || this.maxEntries <= 0) return;
    this.#dropExpired();
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: this.now() + ttlMs });
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  /**
   * Expired entries go when the next answer is stored, not when the same key is asked again (which
   * may be never: an answer names its ref). At most once a second, and bounded by `maxEntries`.
   */
  #dropExpired(): void {
    const now = this.now();
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + 1_000;
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}

/**
 * How long an answer may be reused: `no-store`/`no-cache` never, `max-age`
 * (or `s-maxage`) when present, otherwise the default.
 */
export function ttlFromCacheControl(header: string | null, defaultTtlMs: number): number {
  if (!header) return defaultTtlMs;
  const directives = header.toLowerCase();
  if (/(^|[\s,])(no-store|no-cache|private)($|[\s,=])/.test(directives)) return 0;
  const maxAge = /(?:^|[\s,])max-age\s*=\s*"?(\d+)/.exec(directives);
  return maxAge?.[1] === undefined ? defaultTtlMs : Number(maxAge[1]) * 1000;
}
