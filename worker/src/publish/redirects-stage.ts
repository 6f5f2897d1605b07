/**
 * The redirects stage, storage's side: reads the history, writes redirect objects and drops those
 * that went away, stores the new history. Run by a publish after its pages are written and its
 * removed routes deleted, and by a build after every route is written; the manifest, written after
 * it, lists the redirects (`redirects`: old route → location) for the site server.
 */

import { CACHE_CONTROL } from "#manifest/manifest.ts";
import {
  parseRedirectHistory,
  REDIRECT_CACHE_CONTROL,
  REDIRECT_CONTENT_TYPE,
  REDIRECTS_KEY,
  type RedirectHistory,
  redirectPage,
  serializeRedirectHistory,
} from "#manifest/redirects.ts";
import { type SiteStore, sha256 } from "#storage";
import { keyForRoute } from "#web/routes.ts";
import { type DocumentMove, planRedirects, redirectLocations } from "./redirects.ts";

export async function readRedirectHistory(store: SiteStore): Promise<RedirectHistory> {
  return parseRedirectHistory((await store.get(REDIRECTS_KEY))?.body);
}

/** The key and bytes of the redirect object at `route`. */
export function redirectObject(route: string, location: string) {
  const body = redirectPage(location);
  return { key: keyForRoute(route), body, hash: sha256(body) };
}

export async function putRedirect(store: SiteStore, route: string, location: string): Promise<void> {
  const { key, body, hash } = redirectObject(route, location);
  await store.put(key, body, {
    contentType: REDIRECT_CONTENT_TYPE,
    cacheControl: REDIRECT_CACHE_CONTROL,
    contentHash: hash,
    redirectLocation: location,
  });
}

export async function writeRedirectHistory(
  store: SiteStore,
  before: RedirectHistory,
  after: RedirectHistory,
): Promise<void> {
  const body = serializeRedirectHistory(after);
  if (body === serializeRedirectHistory(before)) return;
  await store.put(REDIRECTS_KEY, body, {
    contentType: "application/json",
    cacheControl: CACHE_CONTROL.metadata,
    contentHash: sha256(body),
  });
}

/**
 * A publish's redirects: each changed id's route before (the index) and now (the fetch). A route is
 * a page after this publish when it was rendered now, or was indexed and is not deleted. Returns the
 * manifest's `redirects`. Idempotent: a retry after a failure (the index not yet committed) sees the
 * same moves and writes the same objects.
 */
export async function publishRedirects(
  store: SiteStore,
  changes: {
    ids: readonly string[];
    /** What the index knew of each id (its route before); structural, so the build can import this file. */
    known: ReadonlyMap<string, { route: string | null }>;
    /** What the content API returned for each id now. */
    fetched: ReadonlyMap<string, { route: string | null }>;
    /** Routes rendered by this publish. */
    written: ReadonlyMap<string, unknown>;
    deleted: readonly string[];
    indexedRoutes(routes: readonly string[]): Promise<ReadonlyMap<string, unknown>>;
    /** Filled with the routes whose redirect object was written or dropped (the edge purges them). */
    touched?: Set<string>;
  },
): Promise<Record<string, string>> {
  const history = await readRedirectHistory(store);
  const documents: DocumentMove[] = changes.ids.map((id) => ({
    id,
    from: changes.known.get(id)?.route ?? null,
    to: changes.fetched.get(id)?.route ?? null,
  }));
  const candidates = [...new Set([...Object.keys(history), ...documents.flatMap((d) => d.from ?? [])])];
  const indexed = await changes.indexedRoutes(candidates);
  const deleted = new Set(changes.deleted);
  const plan = planRedirects({
    history,
    documents,
    complete: false,
    isPage: (route) => changes.written.has(route) || (indexed.has(route) && !deleted.has(route)),
  });
  for (const [route, location] of plan.write) {
    await putRedirect(store, route, location);
    changes.touched?.add(route);
  }
  for (const route of plan.drop) {
    await store.delete(keyForRoute(route));
    changes.touched?.add(route);
  }
  await writeRedirectHistory(store, history, plan.history);
  return redirectLocations(plan.history);
}

/**
 * A build's redirects: the stored history replayed against every document's route now, so a full
 * build produces the redirects the publishes made; and a document whose route in the previous
 * manifest (`from`) is not its route now moved without a publish seeing it (its webhook was lost, or
 * the operator ran `pressroom build`): its old route gets a redirect, as a publish would write it.
 * Writes each redirect object unless `isStored` says its bytes are there; what it drops is left to
 * the build's orphan sweep (its keys are not in `keys`). Returns the manifest's `redirects` and the
 * keys to keep.
 */
export async function buildRedirects(
  store: SiteStore,
  documents: readonly { id: string; route: string | null; from?: string | undefined }[],
  isPage: (route: string) => boolean,
  isStored: (key: string, hash: string) => boolean,
): Promise<{ locations: Record<string, string>; keys: string[]; written: number }> {
  const history = await readRedirectHistory(store);
  const plan = planRedirects({
    history,
    documents: documents.map(({ id, route, from }) => ({ id, to: route, ...(from ? { from } : {}) })),
    complete: true,
    isPage,
  });
  const locations = redirectLocations(plan.history);
  const keys: string[] = [];
  let written = 0;
  for (const [route, location] of Object.entries(locations)) {
    const { key, hash } = redirectObject(route, location);
    keys.push(key);
    if (isStored(key, hash)) continue;
    await putRedirect(store, route, location);
    written++;
  }
  await writeRedirectHistory(store, history, plan.history);
  return { locations, keys, written };
}

/**
 * Where each document's page was when the manifest was written: document id → route (issue 20 §4).
 * A build compares it with the routes now to see renames no publish saw.
 */
export function previousRoutes(manifest: { routes: Record<string, { documentId?: string }> } | undefined) {
  const routes = new Map<string, string>();
  for (const [route, entry] of Object.entries(manifest?.routes ?? {}))
    if (entry.documentId) routes.set(entry.documentId, route);
  return routes;
}

/** The hashes of the redirect objects a manifest lists, by key (a build skips those already stored). */
export function redirectHashes(redirects: Record<string, string> | undefined): [string, string][] {
  return Object.entries(redirects ?? {}).map(([route, location]) => {
    const { key, hash } = redirectObject(route, location);
    return [key, hash];
  });
}
