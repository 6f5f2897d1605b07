/**
 * Reads and validates every search parameter before any document is looked at,
 * so a bad request fails the same way whatever the repository holds.
 */

import { unsupportedError } from "./errors.ts";
import { type FieldList, parseFieldList } from "./field-lists.ts";
import { type Ordering, parseOrderings } from "./orderings.ts";
import { type PageRequest, parsePageRequest } from "./pagination.ts";
import { compileQuery, type Matcher } from "./predicates.ts";
import { parseRoutes, type Route } from "./routes.ts";
import type { SearchContext } from "./types.ts";

/**
 * Accepted and ignored: `ref` (the HTTP server resolved it), `access_token`,
 * `integrationFieldsRef` (no integration fields here), `referer` (listed in Prismic's
 * `everything` form), and `x-c` / `x-d`, which @prismicio/client 7 adds to every
 * request (client version, development mode).
 */
const IGNORED = new Set(["ref", "access_token", "integrationFieldsRef", "referer", "x-c", "x-d"]);
const HANDLED = new Set([
  "q",
  "lang",
  "page",
  "pageSize",
  "after",
  "orderings",
  "routes",
  "brokenRoute",
  "fetch",
  "fetchLinks",
]);

export interface SearchRequest {
  /** All must match (every predicate of every `q` value). */
  matchers: Matcher[];
  /** The language to keep; null for `lang=*`. */
  lang: string | null;
  page: PageRequest;
  orderings: Ordering[];
  routes: Route[] | null;
  brokenRoute: string | null;
  fetch: FieldList | null;
  fetchLinks: FieldList | null;
}

export function parseSearchRequest(params: URLSearchParams, context: SearchContext): SearchRequest {
  for (const name of new Set(params.keys())) {
    if (name === "graphQuery") {
      throw unsupportedError(
        "The local content service does not implement graphQuery; use fetchLinks to fetch fields of linked documents",
      );
    }
    if (!IGNORED.has(name) && !HANDLED.has(name)) throw unsupportedError(`Unknown parameter: ${name}`);
  }
  const lang = params.get("lang");
  const routes = params.get("routes");
  const brokenRoute = params.get("brokenRoute");
  return {
    matchers: params.getAll("q").flatMap((q) => compileQuery(q)),
    lang: lang === null || lang === "" ? context.masterLang : lang === "*" ? null : lang,
    page: parsePageRequest(params),
    orderings: parseOrderings(params.getAll("orderings")),
    routes: routes === null ? null : parseRoutes(routes),
    brokenRoute: brokenRoute === null || brokenRoute === "" ? null : brokenRoute,
    fetch: parseFieldList("fetch", params.getAll("fetch"), context.knownTypes),
    fetchLinks: parseFieldList("fetchLinks", params.getAll("fetchLinks"), context.knownTypes),
  };
}
