/**
 * `page`, `pageSize` and the `after` cursor, and the absolute `next_page` /
 * `prev_page` URLs Prismic puts in every answer.
 */

import { validationError } from "./errors.ts";
import type { PrismicDocument } from "./types.ts";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface PageRequest {
  page: number;
  pageSize: number;
  /** Results start after this document id in the final ordering; null: from the start. */
  after: string | null;
}

export function parsePageRequest(params: URLSearchParams): PageRequest {
  const page = readInteger(params, "page", 1);
  if (page < 1) throw validationError(`page must be an integer of at least 1, got ${page}`);
  const pageSize = readInteger(params, "pageSize", DEFAULT_PAGE_SIZE);
  if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw validationError(`pageSize must be an integer between 1 and ${MAX_PAGE_SIZE}, got ${pageSize}`);
  }
  const after = params.get("after");
  return { page, pageSize, after: after === null || after === "" ? null : after };
}

function readInteger(params: URLSearchParams, name: string, fallback: number): number {
  const raw = params.get(name);
  if (raw === null) return fallback;
  if (!/^-?\d+$/.test(raw.trim()))
    throw validationError(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return Number(raw.trim());
}

/**
 * The documents after `after` in `ordered`. An id that is not among them (unknown,
 * or filtered out by `q`/`lang`) gives no results: restarting from the first
 * document would make a cursor-following caller loop over the same page forever.
 */
export function applyAfter(
  ordered: readonly PrismicDocument[],
  after: string | null,
): readonly PrismicDocument[] {
  if (after === null) return ordered;
  const index = ordered.findIndex((doc) => doc.id === after);
  return index === -1 ? [] : ordered.slice(index + 1);
}

export interface PageSlice {
  results: readonly PrismicDocument[];
  totalPages: number;
  nextPage: string | null;
  prevPage: string | null;
}

/** One page of `all`, with the URLs of its neighbours (the same parameters, another `page`). */
export function slicePage(
  all: readonly PrismicDocument[],
  request: PageRequest,
  apiBase: string,
  params: URLSearchParams,
): PageSlice {
  const start = (request.page - 1) * request.pageSize;
  const totalPages = Math.ceil(all.length / request.pageSize);
  return {
    results: all.slice(start, start + request.pageSize),
    totalPages,
    nextPage: request.page < totalPages ? pageUrl(apiBase, params, request.page + 1) : null,
    prevPage: request.page > 1 ? pageUrl(apiBase, params, request.page - 1) : null,
  };
}

export function pageUrl(apiBase: string, params: URLSearchParams, page: number): string {
  const copy = new URLSearchParams(params);
  copy.set("page", String(page));
  return `${searchEndpoint(apiBase)}?${copy.toString()}`;
}

export function searchEndpoint(apiBase: string): string {
  return `${apiBase.replace(/\/+$/, "")}/documents/search`;
}
