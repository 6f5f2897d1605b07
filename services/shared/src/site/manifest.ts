/**
 * The build manifest: what the site in storage was built from. The build and the worker write it
 * last (it commits a build); the site server reads it to know each route's canonical path. It is
 * not part of the site: its keys sit under `.pressroom/`, which the site server never serves. Its
 * root is MANIFEST_KEY, its routes are in shards under MANIFEST_SHARDS_PREFIX: read and write it
 * with ./manifest-store.ts.
 */
export const MANIFEST_KEY = ".pressroom/manifest.json";
export const MANIFEST_SHARDS_PREFIX = ".pressroom/manifest/";
/** 2: routes in shards beside the root; 1 (still read): every route in the root. */
export const MANIFEST_VERSION = 2;

export interface ManifestRoute {
  /** Storage key of the rendered route, e.g. `about/index.html`. */
  key: string;
  /** sha256 (hex) of the stored bytes. */
  hash: string;
  status: number;
  documentId?: string;
}

export interface BuildManifest {
  version: number;
  /** The content ref the site was rendered at. */
  ref: string;
  builtAt: string;
  /** Canonical route path (`/`, `/about`, `/price-list/`, `/sitemap.xml`, `404`) → what was written. */
  routes: Record<string, ManifestRoute>;
  /** Asset key → sha256 of its bytes. */
  assets: Record<string, string>;
  /**
   * The site's version (worker/src/build/render-code.ts `siteVersion`) of the code that last built
   * every route; publishes keep it. Absent in a manifest written before it was recorded.
   */
  site?: string;
  /**
   * Every path the site answers with a redirect → where to: the old route of a renamed document
   * (its route now; the history behind it is `.pressroom/redirects.json`, see ./redirects.ts) and
   * an editor's redirect (customtypes/redirect: a page's route or a web address). Never a route of
   * `routes`: a page wins. 301 unless listed in `temporaryRedirects`.
   */
  redirects?: Record<string, string>;
  /**
   * The website's aliases (`routes.aliases`, the demo's `{ "/home": "/" }`): request paths answered
   * 301 to where their route goes. The site server knows them from here, so it need not load the
   * website. Absent in a manifest written before it was recorded (no alias is answered then).
   */
  aliases?: Record<string, string>;
  /**
   * The paths of `redirects` answered 302 (an editor's temporary redirect), sorted. A site server
   * older than this field answers them 301.
   */
  temporaryRedirects?: string[];
  /** As read from storage (manifest-store.ts): the route shards the routes came from, by name → hash. */
  shards?: Record<string, string>;
  /** As read from storage: how many shards routes are hashed into. */
  shardCount?: number;
}

/**
 * Shared caches (the edge: Varnish, CloudFront, Fastly, Cloudflare all read `s-maxage` before
 * `max-age`) keep a page for a year: the publish that changes it purges it (CDN_PURGE_URL), and
 * the edge hands visitors `max-age=0, must-revalidate` again. Browsers revalidate every time (ETag,
 * 304). `stale-if-error` lets the edge serve its last copy for a day while the site server or
 * storage fails (RFC 5861 §4: "regardless of other freshness information").
 */
export const EDGE_TTL_SECONDS = 31_536_000;
export const STALE_IF_ERROR_SECONDS = 86_400;

/** Cache policies by what the object is: pages revalidate, content-hashed assets never change. */
export const CACHE_CONTROL = {
  html: `public, max-age=0, must-revalidate, s-maxage=${EDGE_TTL_SECONDS}, stale-if-error=${STALE_IF_ERROR_SECONDS}`,
  immutable: "public, max-age=31536000, immutable",
  metadata: "no-store",
} as const;

/**
 * The cache policy an object gets when nothing says otherwise, by where it lives: the build's
 * metadata is never cached, content-hashed assets never change, everything else is a page. The
 * folder driver stores metadata beside an object only when it differs from this and the type its
 * extension implies (storage/fs-store.ts): one file per page instead of two.
 */
export function defaultCacheControl(key: string): string {
  if (key.startsWith(".pressroom/")) return CACHE_CONTROL.metadata;
  if (key.startsWith("assets/")) return CACHE_CONTROL.immutable;
  return CACHE_CONTROL.html;
}
