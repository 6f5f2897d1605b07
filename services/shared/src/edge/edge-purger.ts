/**
 * One interface for every edge a publish purges, chosen by `CDN_PURGE_URL` the way `STORAGE_URL`
 * chooses storage (create-edge-purger.ts): `varnish://host:port` (varnish-purger.ts),
 * `cloudfront://DISTRIBUTION_ID` (cloudfront-purger.ts). Unset: no purge.
 */

export interface PurgeRequest {
  /** The routes whose edge copies go: paths (`/about`, `/price-list/`) or error-page routes (`404`). */
  routes: readonly string[];
  /** Everything the edge holds of the site (the site-wide key, CloudFront's `/*`), instead of `routes`. */
  everything?: boolean;
  /**
   * Unique per purge (a publish's generation and wave, a retry's time): CloudFront's
   * CallerReference, so a request its SDK sends again is one invalidation, not two.
   */
  reference: string;
}

export interface PurgeReceipt {
  /** What was purged in the end: the routes, or everything (asked for, or a driver's fallback). */
  scope: "routes" | "everything";
  /** HTTP requests it took. */
  requests: number;
  /** What the edge said: Varnish's count of objects, CloudFront's invalidation id. */
  detail: string;
}

export interface EdgePurger {
  /** `varnish://host:port` or `cloudfront://ID`, for logs and `pressroom status`. */
  readonly description: string;
  /**
   * Resolves when the edge acknowledged every request: from then on it serves nothing it held of
   * those routes (CloudFront: the invalidation was accepted; it completes within minutes). Throws
   * a PurgeError otherwise, after which any part may or may not have been purged: the caller sends
   * the whole request again later (purges are idempotent).
   */
  purge(request: PurgeRequest): Promise<PurgeReceipt>;
  close(): Promise<void>;
}

/** The edge did not acknowledge a purge: refused, unreachable, timed out. Always worth retrying. */
export class PurgeError extends Error {
  override readonly name = "PurgeError";
  readonly retryable = true;
  constructor(
    message: string,
    readonly edge: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
