/**
 * What a publish or build purges at the edge: pure decisions, table-tested
 * (tests/unit/purge-plan.test.ts); worker/src/publish/purge-stage.ts sends them.
 *
 * Exactly the routes whose stored object changed: written with other bytes, deleted, or a
 * redirect written or dropped at them (both ends of a rename: the new route is written, the old
 * one gets its redirect). Routes rendered to the same bytes are not purged: their edge copy is
 * still right, and keeps serving (its `Age` grows).
 */

interface Entry {
  key: string;
  hash: string;
}

/** Routes rendered whose bytes (or key) differ from what the index held: the ones written. */
export function changedRoutes(
  rendered: ReadonlyMap<string, Entry> | Iterable<[string, Entry]>,
  previous: ReadonlyMap<string, Entry>,
): string[] {
  const changed: string[] = [];
  for (const [route, entry] of rendered) {
    const before = previous.get(route);
    if (before?.hash !== entry.hash || before.key !== entry.key) changed.push(route);
  }
  return changed;
}

/**
 * Whether the site server serves `route` from `entry.key` before the manifest is written: then its
 * purge can go out as soon as its page is written (the editor's wait). It does when the route was
 * at that key before, and when the key is the one its path gives (`/careers` → `careers/index.html`):
 * a path no manifest names yet is served from there (services/site/src/route-table.ts), as a bucket
 * website serves it. So a new route (a renamed page's) is purged at once, and an edge holding its
 * 404 lets it go even while the manifest cannot be written (a full disk). A route moved to another
 * key is purged after the manifest names it, or the edge would fetch a 404.
 */
export function servedBeforeCommit(
  route: string,
  entry: Entry,
  previous: ReadonlyMap<string, Entry>,
): boolean {
  return previous.get(route)?.key === entry.key || entry.key === keyOfPath(route);
}

/** The key the site server reads for a path no manifest names (`/` and pages; a trailing slash redirects). */
function keyOfPath(route: string): string | undefined {
  if (route === "/") return "index.html";
  if (route.endsWith("/")) return undefined;
  try {
    return `${decodeURIComponent(route.slice(1))}/index.html`;
  } catch {
    return undefined;
  }
}

/** Fewer routes than this are always purged one by one, whatever the site's size. */
export const SITE_WIDE_MIN_ROUTES = 100;

/**
 * Whether a purge of `routes` goes out as the one site-wide key instead: when it covers most of
 * the site (a settings change rewrites every page), one request instead of thousands.
 */
export function purgeEverything(routes: number, siteRoutes: number): boolean {
  return routes > Math.max(SITE_WIDE_MIN_ROUTES, siteRoutes / 2);
}

/**
 * The routes of storage keys a build changed: by the manifests' route → key (before and after the
 * build) and redirects, else from the key's shape (`about/index.html` → `/about`, `index.html` →
 * `/`). Hashed assets (`assets/`) are never purged: a new version has a new name.
 */
export function routesOfKeys(keys: Iterable<string>, routeByKey: ReadonlyMap<string, string>): string[] {
  const routes = new Set<string>();
  for (const key of keys) {
    if (key.startsWith("assets/") || key.startsWith(".pressroom/")) continue;
    routes.add(routeByKey.get(key) ?? routeOfKey(key));
  }
  return [...routes].sort();
}

/** A key's route by its shape, percent-encoded as routes are (`café/index.html` → `/caf%C3%A9`). */
function routeOfKey(key: string): string {
  const errorPage = /^(\d{3})\.html$/.exec(key);
  if (errorPage) return errorPage[1] as string;
  const path =
    key === "index.html" ? "" : key.endsWith("/index.html") ? key.slice(0, -"/index.html".length) : key;
  return `/${path.split("/").map(encodeURIComponent).join("/")}`;
}
