/**
 * Shapes shared by the query engine. They mirror Prismic's Document API v2
 * JSON so that `@prismicio/client` cannot tell the local service from Prismic.
 */

/** A document as the Document API returns it (dates look like `2020-04-03T17:09:09+0000`). */
export interface PrismicDocument {
  id: string;
  uid: string | null;
  url: string | null;
  type: string;
  href: string;
  tags: string[];
  first_publication_date: string;
  last_publication_date: string;
  slugs: string[];
  linked_documents: unknown[];
  lang: string;
  alternate_languages: unknown[];
  data: Record<string, unknown>;
}

/** What the HTTP server knows about the request beyond its search parameters. */
export interface SearchContext {
  /** The ref the documents were taken at; echoed in each result's `href`. */
  ref: string;
  /** Absolute base of the API, e.g. `http://127.0.0.1:4100/api/v2` (no trailing slash needed). */
  apiBase: string;
  /** The repository's master language, the default of `lang`, e.g. `en-us`. */
  masterLang: string;
  /** Every custom type id of the repository; `fetch`/`fetchLinks` naming another type is refused. */
  knownTypes: string[];
  /**
   * Where a query's matching documents, in order, are kept between its pages: only for a ref whose
   * content never changes (search.ts `orderedMatches`).
   */
  matches?: MatchCache;
}

/** A query's matching documents in order, by what decides them (search.ts `orderedMatches`). */
export interface MatchCache {
  get(key: string): readonly PrismicDocument[] | undefined;
  set(key: string, documents: readonly PrismicDocument[]): void;
}

/** The body of `GET /api/v2/documents/search`. */
export interface SearchResponse {
  page: number;
  results_per_page: number;
  results_size: number;
  total_results_size: number;
  total_pages: number;
  next_page: string | null;
  prev_page: string | null;
  results: PrismicDocument[];
  version: string;
  license: "All Rights Reserved";
}

/** A plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
