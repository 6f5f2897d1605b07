export { CLOUDFRONT_MAX_PATHS, cloudFrontPaths } from "./cloudfront-purger.ts";
export { createEdgePurger, type EdgePurgerOptions } from "./create-edge-purger.ts";
export { edgeUnavailablePage } from "./edge-error-page.ts";
export { type EdgePurger, PurgeError, type PurgeReceipt, type PurgeRequest } from "./edge-purger.ts";
export { isPurgeUrl, PURGE_URL_FIX, type PurgeTarget, parsePurgeUrl } from "./purge-url.ts";
export { NOT_FOUND_KEY, purgeKeys, routeKey, SITE_WIDE_KEY, surrogateKeys } from "./surrogate-keys.ts";
export { VARNISH_TIMEOUT_MS } from "./varnish-purger.ts";
