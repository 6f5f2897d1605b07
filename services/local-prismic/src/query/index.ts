/**
 * The pure query engine of the local content service: Prismic's Document API v2
 * search over an in-memory list of documents. The HTTP server decides which
 * documents exist at a ref and answers an ApiError with its status and body.
 */

export type { DocumentSet } from "./document-set.ts";
export { ApiError, PARSING_ERROR, UNSUPPORTED_ERROR, VALIDATION_ERROR } from "./errors.ts";
export { API_VERSION, documentHref, searchDocuments } from "./search.ts";
export type { PrismicDocument, SearchContext, SearchResponse } from "./types.ts";
