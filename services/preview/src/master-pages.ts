/**
 * What anonymous requests to the preview server cost the content API. A request without a preview
 * cookie shows the published content, the same for everyone: its page is rendered once per master
 * ref and path and kept here, and the master ref itself is asked at most once per `refTtlMs`. So a
 * burst of anonymous requests (a crawler, an attacker, a monitor) costs one `/api/v2` call per
 * interval instead of one per request, and Prismic's quota is spent on editors' previews.
 */
export interface CachedPage {
  status: number;
  contentType: string;
  body: string;
}

export class MasterPages {
  readonly #pages = new Map<string, CachedPage>();
  #ref: string | undefined;
  #refAt = Number.NEGATIVE_INFINITY;
  #asking: Promise<string> | undefined;

  constructor(
    private readonly fetchMasterRef: () => Promise<string>,
    private readonly options: { refTtlMs?: number; maxEntries?: number; now?: () => number } = {},
  ) {}

  /** The master ref, asked again once it is older than the interval; concurrent callers share one ask. */
  async masterRef(): Promise<string> {
    const now = this.#now();
    if (this.#ref !== undefined && now - this.#refAt < (this.options.refTtlMs ?? 5_000)) return this.#ref;
    this.#asking ??= this.fetchMasterRef().finally(() => {
      this.#asking = undefined;
    });
    const ref = await this.#asking;
    if (ref !== this.#ref) this.#pages.clear(); // pages of an older ref are never shown again
    this.#ref = ref;
    this.#refAt = now;
    return ref;
  }

  get(ref: string, path: string): CachedPage | undefined {
    const page = this.#pages.get(`${ref} ${path}`);
    if (page) {
      // Least recently used goes first when full: re-insert on use.
      this.#pages.delete(`${ref} ${path}`);
      this.#pages.set(`${ref} ${path}`, page);
    }
    return page;
  }

  set(ref: string, path: string, page: CachedPage): void {
    if (ref !== this.#ref) return;
    this.#pages.set(`${ref} ${path}`, page);
    const max = this.options.maxEntries ?? 500;
    while (this.#pages.size > max) this.#pages.delete(this.#pages.keys().next().value as string);
  }

  #now(): number {
    return (this.options.now ?? (() => performance.now()))();
  }
}

/**
 * A fixed-window count of renders per client: what still reaches the content API (previews, and
 * anonymous pages not yet cached) is bounded per client address. The window's map is dropped as
 * a whole when the window ends, so it never holds more than one window's clients.
 */
export class RenderLimiter {
  #window = Number.NEGATIVE_INFINITY;
  #counts = new Map<string, number>();

  constructor(
    private readonly limit = 120,
    private readonly windowMs = 60_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Undefined when allowed; otherwise the seconds to wait. */
  take(client: string): number | undefined {
    const now = this.now();
    if (now - this.#window >= this.windowMs) {
      this.#window = now;
      this.#counts = new Map();
    }
    const key = client.slice(0, 64);
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    if (count <= this.limit) return undefined;
    return Math.max(1, Math.ceil((this.#window + this.windowMs - now) / 1000));
  }
}
