import type { Logger } from "../logger.ts";
import { type CloudFrontPurgerOptions, createCloudFrontPurger } from "./cloudfront-purger.ts";
import type { EdgePurger } from "./edge-purger.ts";
import { parsePurgeUrl } from "./purge-url.ts";
import { createVarnishPurger } from "./varnish-purger.ts";

export interface EdgePurgerOptions {
  logger?: Logger;
  /** Varnish: how long a purge request may take (default 2 s). */
  timeoutMs?: number;
  /** CloudFront: another endpoint, credentials or client (tests). */
  cloudfront?: Omit<CloudFrontPurgerOptions, "logger">;
}

/**
 * The purger `CDN_PURGE_URL` names, or undefined when it is unset (no edge to purge). No I/O: the
 * CloudFront SDK is loaded on the first purge. Throws a ConfigError for a bad URL.
 */
export function createEdgePurger(
  url: string | undefined,
  options: EdgePurgerOptions = {},
): EdgePurger | undefined {
  const target = parsePurgeUrl(url);
  if (!target) return undefined;
  switch (target.kind) {
    case "varnish":
      return createVarnishPurger(target, { timeoutMs: options.timeoutMs, logger: options.logger });
    case "cloudfront":
      return createCloudFrontPurger(target.distributionId, { ...options.cloudfront, logger: options.logger });
  }
}
