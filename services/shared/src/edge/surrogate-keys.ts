/**
 * What an edge copy is purged by. The site server tags every answer with surrogate keys (the
 * `Surrogate-Key` header, Fastly's name, which the shipped VCL hands to Varnish's xkey); the worker
 * purges by the same keys. One rule on both sides, here, so they cannot drift apart:
 *
 * - the **route key** of the request path: every spelling and query string of a URL is one key
 *   (`/about`, `/about/`, `/about?utm_source=x`, `/%61bout`, `/ABOUT`, `/about/index.html`), so
 *   purging a route reaches every copy the edge keeps of it, the 301s and 404s the site server
 *   answers for those spellings included — a URL purge would miss the copies cached under a query
 *   string;
 * - `404` on answers of the not-found page: when `404.html` changes, every cached 404 goes at once;
 * - `all` on everything: the site-wide key of a publish that rewrites most of the site.
 *
 * Routes are the site's paths (`/`, `/about`, `/price-list/`, `/sitemap.xml`) or the names of the
 * error pages (`404`), as the worker's index and manifest write them.
 */

/** The site-wide key: every answer carries it. */
export const SITE_WIDE_KEY = "all";

/** The key of every answer that is the not-found page (the route name the 404 page is indexed under). */
export const NOT_FOUND_KEY = "404";

/**
 * Keys longer than this are left out (a hostile URL's 404 is then purged by `404` and `all` only):
 * Varnish refuses backend headers over 8 KiB, and no route comes near it (a uid is ≤ 255 bytes).
 */
const MAX_KEY_LENGTH = 1024;

/**
 * The surrogate key of a route or a request path: percent-decoded where it can be, lower-cased
 * (every route is: the site server answers another case with a 301 to it), a last `index.html`
 * segment dropped (the stored key of the folder's page: a 301 to it too), one trailing slash
 * dropped (the root aside), each segment encoded again the one way `encodeURIComponent` does. A
 * route name that is not a path (`404`) is its own key. Never contains a space or a comma (xkey's
 * separators).
 */
export function routeKey(route: string): string {
  if (!route.startsWith("/")) return route;
  const path = route.split(/[?#]/, 1)[0] as string;
  const segments = path.split("/").map((segment) => {
    try {
      return encodeURIComponent(decodeURIComponent(segment).toLowerCase());
    } catch {
      return encodeURIComponent(segment.toLowerCase());
    }
  });
  if (segments.length > 1 && segments.at(-1) === "index.html") segments[segments.length - 1] = "";
  const key = segments.join("/");
  return key.length > 1 ? key.replace(/\/+$/, "") || "/" : key;
}

/**
 * The `Surrogate-Key` value of an answer at `path`: its route key, the keys of `alsoRoutes` (routes
 * whose change changes this answer too), `404` when it is the not-found page, `all`.
 */
export function surrogateKeys(
  path: string,
  options: { notFound?: boolean; alsoRoutes?: readonly string[] } = {},
): string {
  const keys = [path, ...(options.alsoRoutes ?? [])].map(routeKey);
  return [
    ...new Set(keys.filter((key) => key.length <= MAX_KEY_LENGTH)),
    ...(options.notFound ? [NOT_FOUND_KEY] : []),
    SITE_WIDE_KEY,
  ].join(" ");
}

/** The distinct keys that purge `routes` (what a purge of those routes sends). */
export function purgeKeys(routes: readonly string[]): string[] {
  return [...new Set(routes.map(routeKey))].filter((key) => key.length <= MAX_KEY_LENGTH);
}
