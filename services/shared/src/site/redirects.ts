import { CACHE_CONTROL } from "./manifest.ts";

/**
 * The redirect history: every route a document left (a uid rename) → that document's id and the
 * route it lives at now. It is what lets a full build produce the same redirects as the publishes
 * that made them (the content API only knows a document's current uid), so it lives in storage,
 * beside the manifest, under `.pressroom/` (never served). Chains are collapsed on every update: each
 * entry points at the document's current route, never at another redirect.
 */
export const REDIRECTS_KEY = ".pressroom/redirects.json";
export const REDIRECTS_VERSION = 1;

export interface RedirectEntry {
  documentId: string;
  /** Where the old route redirects: the document's current route. */
  location: string;
}

/** Old route → entry. */
export type RedirectHistory = Record<string, RedirectEntry>;

/** The history's bytes: keys sorted, so that equal histories are equal bytes. */
export function serializeRedirectHistory(history: RedirectHistory): string {
  const redirects: RedirectHistory = {};
  for (const route of Object.keys(history).sort()) redirects[route] = history[route] as RedirectEntry;
  return `${JSON.stringify({ version: REDIRECTS_VERSION, redirects }, null, 1)}\n`;
}

/**
 * A stored history; none stored is an empty one. One that cannot be read is an error, never an
 * empty history: reading it as empty would make the next build delete every redirect, a loss
 * nothing could undo. The message says how to start over deliberately.
 */
export function parseRedirectHistory(body: Buffer | string | undefined): RedirectHistory {
  if (body === undefined) return {};
  const fail = (why: string) =>
    new Error(
      `The redirect history ${REDIRECTS_KEY} ${why}; fix it, or delete it to start a new history (the redirects it held are then removed by the next build)`,
    );
  let parsed: { version?: unknown; redirects?: unknown };
  try {
    parsed = JSON.parse(body.toString()) as typeof parsed;
  } catch {
    throw fail("is not JSON");
  }
  if (parsed?.version !== REDIRECTS_VERSION) throw fail(`is not of version ${REDIRECTS_VERSION}`);
  const { redirects } = parsed;
  if (typeof redirects !== "object" || redirects === null || Array.isArray(redirects))
    throw fail("has no redirects object");
  for (const [route, entry] of Object.entries(redirects)) {
    const { documentId, location } = (entry ?? {}) as Partial<RedirectEntry>;
    if (!route.startsWith("/") || typeof documentId !== "string" || typeof location !== "string")
      throw fail(`has an unreadable entry for ${JSON.stringify(route)}`);
  }
  return redirects as RedirectHistory;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The body of a redirect object. Servers that honour the redirect location (S3 website hosting,
 * the site server) never send it; a plain web server serving the folder does, and the page then
 * still takes the visitor on (and tells search engines not to index it).
 */
export function redirectPage(location: string, permanent = true): string {
  const href = escapeHtml(location);
  // A temporary redirect's object carries no S3 redirect location (S3 would answer 301): on a bucket
  // website this page is what forwards the visitor, so its bytes differ from a permanent one's too.
  const [title, text] = permanent
    ? ["Moved", "This page has moved to"]
    : ["Moved for now", "This page is, for now, at"];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><meta http-equiv="refresh" content="0; url=${href}"><title>${title}</title></head><body><p>${text} <a href="${href}">${href}</a>.</p></body></html>\n`;
}

/** How a redirect object is stored: revalidated like a page, as a new document may take its route. */
export const REDIRECT_CONTENT_TYPE = "text/html; charset=utf-8";
export const REDIRECT_CACHE_CONTROL = CACHE_CONTROL.html;
