/**
 * The redirects stage, storage's side: reads the rename history, resolves every redirect the site
 * serves — renames' and editors' (the website's `redirects`), decided by the pure `resolveRedirects`
 * (#redirects) — writes the redirect objects that are new or changed, drops those that went
 * away, stores the new history. Run by a publish after its pages are written and its removed routes
 * deleted, and by a build after every route is written; the manifest, written after it, lists the
 * redirects (`redirects`, `temporaryRedirects`) for the site server.
 */

import { CACHE_CONTROL } from "#manifest/manifest.ts";
import {
  parseRedirectHistory,
  REDIRECTS_KEY,
  type RedirectHistory,
  serializeRedirectHistory,
} from "#manifest/redirects.ts";
import {
  type RedirectNotice,
  redirectPaths,
  resolveRedirects,
  type ServedRedirect,
} from "#redirects/resolve-redirects.ts";
import { type SiteStore, sha256 } from "#storage";
import type { RedirectRule } from "#website/contract.ts";
import { keyOrUndefined, putRedirect, redirectObject, type Served } from "./redirect-objects.ts";
import { type DocumentMove, planRedirects, redirectLocations } from "./redirects.ts";

export { redirectHashes } from "./redirect-objects.ts";

export async function readRedirectHistory(store: SiteStore): Promise<RedirectHistory> {
  return parseRedirectHistory((await store.get(REDIRECTS_KEY))?.body);
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

export interface StageOutcome {
  /** Path → what the site serves there: the manifest's `redirects` and `temporaryRedirects`. */
  served: Map<string, ServedRedirect>;
  /** What editors should know of their redirects (status, preview, the log). */
  notices: RedirectNotice[];
}

/**
 * A publish's redirects: each changed id's route before (the index) and now (the fetch), and the
 * editors' redirects (the index's rules, with this publish's changed redirect documents) against
 * the routes their targets have now. A route is a page after this publish when it was rendered now,
 * or was indexed and is not deleted. Writes what differs from what the manifest served before.
 * Idempotent: a retry after a failure (the index and manifest not yet committed) sees the same
 * moves and the same previous redirects, and writes the same objects.
 */
export async function publishRedirects(
  store: SiteStore,
  changes: {
    siteUrl: string;
    ids: readonly string[];
    /** What the index knew of each id (its route before); structural, so the build can import this file. */
    known: ReadonlyMap<string, { route: string | null }>;
    /** What the content API returned for each id now (a redirect document's rule with it). */
    fetched: ReadonlyMap<string, { route: string | null; redirect?: RedirectRule }>;
    /** Routes rendered by this publish. */
    written: { has(route: string): boolean };
    deleted: readonly string[];
    /** The editors' redirects the index held before this publish. */
    rules: ReadonlyMap<string, RedirectRule>;
    /** What the manifest served before this publish. */
    served: Served;
    indexedRoutes(routes: readonly string[]): Promise<ReadonlyMap<string, unknown>>;
    /** The index's documents (for the routes of redirects' target documents). */
    indexedDocuments(ids: readonly string[]): Promise<ReadonlyMap<string, { route: string | null }>>;
    /** Filled with the routes whose redirect object was written or dropped (the edge purges them). */
    touched?: Set<string>;
  },
): Promise<StageOutcome> {
  const history = await readRedirectHistory(store);
  const changed = new Set(changes.ids);
  const rules = new Map(changes.rules);
  for (const id of changes.ids) {
    const rule = changes.fetched.get(id)?.redirect;
    if (rule) rules.set(id, rule);
    else rules.delete(id);
  }
  const documents: DocumentMove[] = changes.ids.map((id) => ({
    id,
    from: changes.known.get(id)?.route ?? null,
    to: changes.fetched.get(id)?.route ?? null,
  }));
  const targets = [...rules.values()].flatMap((rule) =>
    rule.to.kind === "document" && !changed.has(rule.to.id) ? [rule.to.id] : [],
  );
  const candidates = [
    ...new Set([
      ...Object.keys(history),
      ...documents.flatMap((d) => d.from ?? []),
      ...redirectPaths(rules.values(), changes.siteUrl),
      ...changes.served.keys(),
    ]),
  ];
  const [indexed, targetDocs] = await Promise.all([
    changes.indexedRoutes(candidates),
    changes.indexedDocuments([...new Set(targets)]),
  ]);
  const deleted = new Set(changes.deleted);
  const isPage = (route: string) => changes.written.has(route) || (indexed.has(route) && !deleted.has(route));
  const plan = planRedirects({ history, documents, complete: false, isPage });
  const resolution = resolveRedirects({
    siteUrl: changes.siteUrl,
    rules: rules.values(),
    renames: redirectLocations(plan.history),
    routeOf: (id) => (changed.has(id) ? (changes.fetched.get(id)?.route ?? null) : targetDocs.get(id)?.route),
    isPage,
  });
  for (const [path, redirect] of resolution.served) {
    const before = changes.served.get(path);
    if (before?.location === redirect.location && before.permanent === redirect.permanent) continue;
    await putRedirect(store, path, redirect);
    changes.touched?.add(path);
  }
  for (const path of changes.served.keys()) {
    if (resolution.served.has(path) || isPage(path)) continue;
    const key = keyOrUndefined(path);
    if (key) await store.delete(key);
    changes.touched?.add(path);
  }
  await writeRedirectHistory(store, history, plan.history);
  return resolution;
}

/**
 * A build's redirects: the stored history replayed against every document's route now, so a full
 * build produces the redirects the publishes made; and a document whose route in the previous
 * manifest (`from`) is not its route now moved without a publish seeing it (its webhook was lost, or
 * the operator ran `pressroom build`): its old route gets a redirect, as a publish would write it.
 * The editors' redirects (`rules`, every redirect document at the ref) are resolved against every
 * document's route as a publish resolves them. Writes each redirect object unless `isStored` says
 * its bytes are there; what it drops is left to the build's orphan sweep (its keys are not in
 * `keys`). Returns what is served, the keys to keep and the notices.
 */
export async function buildRedirects(
  store: SiteStore,
  input: {
    siteUrl: string;
    /** Every published document's route now (null: it has none), by id. */
    routes: ReadonlyMap<string, string | null>;
    /** The documents whose route in the last build's manifest (`from`) is not their route now (`to`). */
    moves: readonly DocumentMove[];
    rules: readonly RedirectRule[];
    isPage: (route: string) => boolean;
    isStored: (key: string, hash: string) => boolean;
  },
): Promise<StageOutcome & { keys: string[]; written: number }> {
  const history = await readRedirectHistory(store);
  const { routes } = input;
  const plan = planRedirects({
    history,
    documents: input.moves,
    routes,
    complete: true,
    isPage: input.isPage,
  });
  const resolution = resolveRedirects({
    siteUrl: input.siteUrl,
    rules: input.rules,
    renames: redirectLocations(plan.history),
    routeOf: (id) => routes.get(id),
    isPage: input.isPage,
  });
  const keys: string[] = [];
  let written = 0;
  for (const [path, redirect] of resolution.served) {
    const { key, hash } = redirectObject(path, redirect);
    keys.push(key);
    if (input.isStored(key, hash)) continue;
    await putRedirect(store, path, redirect);
    written++;
  }
  await writeRedirectHistory(store, history, plan.history);
  return { ...resolution, keys, written };
}

/**
 * The documents whose page the manifest has at another route than `routes` says (their route now):
 * renames no publish saw. A document with no route now has no move (its redirects go with it).
 */
export function movedSince(
  manifest: { routes: Record<string, { documentId?: string }> } | undefined,
  routes: ReadonlyMap<string, string | null>,
): DocumentMove[] {
  const moves: DocumentMove[] = [];
  const before = manifest?.routes ?? {};
  // Its keys, not its entries: no pair made per route of the site.
  for (const from of Object.keys(before)) {
    const id = before[from]?.documentId;
    const to = id === undefined ? undefined : routes.get(id);
    if (id !== undefined && to && to !== from) moves.push({ id, from, to });
  }
  return moves;
}
