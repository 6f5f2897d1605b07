/**
 * The site's routes: request paths ↔ what to render ↔ storage keys. Pure
 * functions, table-tested (tests/unit/web-routes.test.ts). A uid becomes a
 * path segment and part of a storage key: the grammar and the reserved names
 * are uid-rules.ts, shared with the local content service's edit API.
 */
import { isSitemapDivision } from "./handlers/sitemap-split.ts";
import { RESERVED_PAGE_UIDS, uidFromSegment, uidProblem, uidToSegment } from "./uid-rules.ts";

export { MAX_UID_LENGTH, RESERVED_PAGE_UIDS, uidProblem } from "./uid-rules.ts";

export type Route =
  | { kind: "home" }
  | { kind: "page"; uid: string }
  | { kind: "price-list"; uid: string }
  | { kind: "price-list-index" }
  | { kind: "sitemap" }
  /** `/sitemap-K-of-N.xml` (1 ≤ K ≤ N, N a division: sitemap-split.ts): one part of a divided sitemap. */
  | { kind: "sitemap-part"; part: number; of: number }
  | { kind: "robots" }
  | { kind: "not-found" }
  | { kind: "error"; status: ServerErrorStatus };

/** The statuses the site has a stored error page for besides 404 (`500.html`, `503.html`). */
export const SERVER_ERROR_STATUSES = [500, 503] as const;
export type ServerErrorStatus = (typeof SERVER_ERROR_STATUSES)[number];

/** The uid of the page served at `/`. */
export const HOME_UID = "home";

/** The route name the 404 page is rendered and indexed under (it is no request path: any unmatched path gets it). */
export const NOT_FOUND_ROUTE = "404";

/**
 * The route names of the stored server error pages ("500", "503"): like "404", no request path (no
 * leading slash), so no visitor can ask for them; the site server serves them when storage or content
 * fails (services/shared/src/http/error-pages.ts).
 */
export const SERVER_ERROR_ROUTES: readonly string[] = SERVER_ERROR_STATUSES.map(String);

/** Every error page a build writes, always, whatever the content: 404, 500, 503. */
export const ERROR_PAGE_ROUTES: readonly string[] = [NOT_FOUND_ROUTE, ...SERVER_ERROR_ROUTES];

export const PRICE_LIST_INDEX_ROUTE = "/price-list/";
export const SITEMAP_ROUTE = "/sitemap.xml";
export const ROBOTS_ROUTE = "/robots.txt";
/** `/sitemap-1-of-4.xml` …: canonical spelling only (no leading zero), a part within a division. */
const SITEMAP_PART = /^\/sitemap-([1-9][0-9]{0,2})-of-([1-9][0-9]{0,2})\.xml$/;

/** The route of part `part` (1-based) of a sitemap divided into `of` parts. */
export function sitemapPartRoute(part: number, of: number): string {
  return `/sitemap-${part}-of-${of}.xml`;
}

/** The part a path names, when it is a sitemap part's route. */
function sitemapPartOf(path: string): { part: number; of: number } | undefined {
  const found = SITEMAP_PART.exec(path);
  if (!found) return undefined;
  const part = Number(found[1]);
  const of = Number(found[2]);
  return isSitemapDivision(of) && part <= of ? { part, of } : undefined;
}

/** `/sitemap.xml` or one of its parts: the routes rendered from documents' routes and dates. */
export function isSitemapRoute(path: string): boolean {
  return path === SITEMAP_ROUTE || sitemapPartOf(path) !== undefined;
}

const RESERVED = new Set(RESERVED_PAGE_UIDS);

/** A uid that can stand in a path segment (any type; reserved page names aside). */
export function isSafeUid(uid: unknown): uid is string {
  return uidProblem("", uid) === undefined;
}

/**
 * What a path shows. Query strings and fragments are ignored; one trailing
 * slash is tolerated on page and price-list paths (the canonical spelling is
 * given by `pathForRoute`); a uid segment is percent-decoded only in its
 * canonical spelling and must then obey the uid grammar, so an encoded
 * character can never smuggle `/`, `.` or `..` into a uid.
 */
export function parseRoute(rawPath: string): Route {
  const path = stripQuery(rawPath);
  if (path === "/") return { kind: "home" };
  const errorStatus = SERVER_ERROR_STATUSES.find((status) => String(status) === path);
  if (errorStatus !== undefined) return { kind: "error", status: errorStatus };
  if (path === SITEMAP_ROUTE) return { kind: "sitemap" };
  if (path === ROBOTS_ROUTE) return { kind: "robots" };
  const part = sitemapPartOf(path);
  if (part) return { kind: "sitemap-part", ...part };
  if (path === "/price-list" || path === PRICE_LIST_INDEX_ROUTE) return { kind: "price-list-index" };
  const segments = (path.endsWith("/") ? path.slice(0, -1) : path).split("/");
  // A leading "/" gives an empty first segment.
  if (segments[0] !== "") return NOT_FOUND;
  if (segments.length === 2) {
    const uid = uidFromSegment(segments[1] as string);
    if (uid === undefined || uid === HOME_UID || RESERVED.has(uid)) return NOT_FOUND;
    return { kind: "page", uid };
  }
  if (segments.length === 3 && segments[1] === "price-list") {
    const uid = uidFromSegment(segments[2] as string);
    return uid === undefined ? NOT_FOUND : { kind: "price-list", uid };
  }
  return NOT_FOUND;
}

/** The canonical path of a route (`/about`, `/price-list/`); the 404 route's name for not-found. */
export function pathForRoute(route: Route): string {
  switch (route.kind) {
    case "home":
      return "/";
    case "page":
      return `/${uidToSegment(route.uid)}`;
    case "price-list":
      return `/price-list/${uidToSegment(route.uid)}`;
    case "price-list-index":
      return PRICE_LIST_INDEX_ROUTE;
    case "sitemap":
      return SITEMAP_ROUTE;
    case "sitemap-part":
      return sitemapPartRoute(route.part, route.of);
    case "robots":
      return ROBOTS_ROUTE;
    case "not-found":
      return NOT_FOUND_ROUTE;
    case "error":
      return String(route.status);
  }
}

/** The storage key a path's render is written to. Every unmatched path shares `404.html`. */
export function keyForRoute(path: string): string {
  const route = parseRoute(path);
  switch (route.kind) {
    case "home":
      return "index.html";
    case "page":
      return `${route.uid}/index.html`;
    case "price-list":
      return `price-list/${route.uid}/index.html`;
    case "price-list-index":
      return "price-list/index.html";
    case "sitemap":
      return "sitemap.xml";
    case "sitemap-part":
      return `sitemap-${route.part}-of-${route.of}.xml`;
    case "robots":
      return "robots.txt";
    case "not-found":
      return "404.html";
    case "error":
      return `${route.status}.html`;
  }
}

/**
 * The canonical path of a document, the same as the route resolver's `url`;
 * null for a document without a route (settings) or whose uid cannot be a
 * route (`uidProblem` says why; the caller logs it and reports it).
 */
export function routeForDocument(doc: { type: string; uid?: string | null }): string | null {
  if (doc.type !== "page" && doc.type !== "price_list") return null;
  if (uidProblem(doc.type, doc.uid) !== undefined) return null;
  const uid = doc.uid as string;
  if (doc.type === "page") return uid === HOME_UID ? "/" : pathForRoute({ kind: "page", uid });
  return pathForRoute({ kind: "price-list", uid });
}

/** Why a routable document gets no route; undefined when it has one or is not routable (settings). */
export function routeProblem(doc: { type: string; uid?: string | null }): string | undefined {
  if (doc.type !== "page" && doc.type !== "price_list") return undefined;
  return uidProblem(doc.type, doc.uid);
}

const NOT_FOUND: Route = { kind: "not-found" };

function stripQuery(path: string): string {
  const end = path.search(/[?#]/);
  return end === -1 ? path : path.slice(0, end);
}
