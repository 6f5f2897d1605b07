/**
 * `GET /api/v2/documents/search` without the HTTP: filter, order, cut after the
 * cursor, page, then present each result as Prismic does (url, href, links).
 */

import { oncePer } from "../once-per.ts";
import { pickFields } from "./field-lists.ts";
import { documentUrl, type LinkContext, resolveLinks } from "./links.ts";
import { sortDocuments } from "./orderings.ts";
import { applyAfter, searchEndpoint, slicePage } from "./pagination.ts";
import { parseSearchRequest, type SearchRequest } from "./search-request.ts";
import type { PrismicDocument, SearchContext, SearchResponse } from "./types.ts";

/** Prismic puts its build id here; ours says where the answer came from. */
export const API_VERSION = "local-prismic";

/**
 * @param documents every document that exists at `context.ref`, in creation order (never mutated).
 * @throws ApiError (status 400) for a request Prismic would refuse or this service does not implement.
 */
export function searchDocuments(
  documents: readonly PrismicDocument[],
  params: URLSearchParams,
  context: SearchContext,
): SearchResponse {
  const request = parseSearchRequest(params, context);
  // A query naming documents by id reads those from the index, in the list's order (a publish asks
  // for its few changed documents in a repository of 10,000), and tests every predicate on them only.
  const ids = request.matchers.find((match) => match.ids)?.ids;
  const matched = (ids ? inListOrder(documents, ids) : documents).filter(
    (doc) =>
      (request.lang === null || doc.lang === request.lang) && request.matchers.every((match) => match(doc)),
  );
  const ordered = applyAfter(sortDocuments(matched, request.orderings), request.page.after);
  const page = slicePage(ordered, request.page, context.apiBase, params);
  const links: LinkContext = {
    documentsById: byId(documents),
    routes: request.routes,
    brokenRoute: request.brokenRoute,
    masterLang: context.masterLang,
    fetchLinks: request.fetchLinks,
  };
  return {
    page: request.page.page,
    results_per_page: request.page.pageSize,
    results_size: page.results.length,
    total_results_size: ordered.length,
    total_pages: page.totalPages,
    next_page: page.nextPage,
    prev_page: page.prevPage,
    results: page.results.map((doc) => present(doc, request, links, context)),
    version: API_VERSION,
    license: "All Rights Reserved",
  };
}

/** Each document's place in a list, by id, made once per list (a ref's list is made once: store.ts). */
const placesOf = oncePer(
  (documents: readonly PrismicDocument[]): ReadonlyMap<string, number> =>
    new Map(documents.map((doc, place) => [doc.id, place])),
);

/** The documents by id, indexed once per list, or the map the list was made from (prepareDocuments). */
const byIdGiven = new WeakMap<readonly PrismicDocument[], ReadonlyMap<string, PrismicDocument>>();
const byIdMade = oncePer(
  (documents: readonly PrismicDocument[]): ReadonlyMap<string, PrismicDocument> =>
    new Map(documents.map((doc) => [doc.id, doc])),
);
const byId = (documents: readonly PrismicDocument[]) => byIdGiven.get(documents) ?? byIdMade(documents);

/** The documents of `ids` that the list holds, in the list's order. */
function inListOrder(documents: readonly PrismicDocument[], ids: ReadonlySet<string>): PrismicDocument[] {
  const at = placesOf(documents);
  return [...ids]
    .map((id) => at.get(id))
    .filter((place): place is number => place !== undefined)
    .sort((a, b) => a - b)
    .map((place) => documents[place] as PrismicDocument);
}

/**
 * Makes a ref's indexes now rather than on its first search: the store calls it when the master
 * ref moves, so the first search at a new ref (a publish's) does not wait for them. `byIdMap`: the
 * documents by id the list was made from, kept rather than a second map of every document.
 */
export function prepareDocuments(
  documents: readonly PrismicDocument[],
  byIdMap?: ReadonlyMap<string, PrismicDocument>,
): void {
  placesOf(documents);
  if (byIdMap) byIdGiven.set(documents, byIdMap);
  else byId(documents);
}

/** A copy of `doc` as the API shows it for this request. */
function present(
  doc: PrismicDocument,
  request: SearchRequest,
  links: LinkContext,
  context: SearchContext,
): PrismicDocument {
  const data = request.fetch === null ? doc.data : pickFields(doc.data, request.fetch.get(doc.type));
  return {
    ...withoutData(doc),
    url: documentUrl(doc, links),
    href: documentHref(context, doc.id),
    tags: [...doc.tags],
    slugs: [...doc.slugs],
    linked_documents: structuredClone(doc.linked_documents),
    alternate_languages: structuredClone(doc.alternate_languages),
    data: resolveLinks(data, links) as Record<string, unknown>,
  };
}

/**
 * A document's other fields: a stored document reads its data from disk each time `data` is read
 * (stored-document.ts), and a spread would read it once more only to have it replaced.
 */
function withoutData(doc: PrismicDocument): Omit<PrismicDocument, "data"> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(doc)) if (key !== "data") copy[key] = doc[key as keyof PrismicDocument];
  return copy as Omit<PrismicDocument, "data">;
}

/** Prismic's `href`: the query that fetches this one document at this ref. */
export function documentHref(context: SearchContext, id: string): string {
  const query = new URLSearchParams({ ref: context.ref, q: `[[:d = at(document.id, "${id}") ]]` });
  return `${searchEndpoint(context.apiBase)}?${query.toString()}`;
}
