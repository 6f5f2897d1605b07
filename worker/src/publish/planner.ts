/**
 * The planner: which routes a publish must render and which it must delete.
 * Pure — no I/O — so every case is a table test (tests/unit/planner.test.ts).
 */
import type { PrismicDocument } from "@prismicio/client";
import { countDependency, listingSlotOf, routesSlotDependency } from "#content/dependencies.ts";
import { website } from "#website";
import type { CanonicalTarget, RedirectRule } from "#website/contract.ts";

/** What the index knew of a document before this publish. */
export interface KnownDocument {
  route: string | null;
  type: string;
  /** What listings compare (absent: unknown, so listings are re-rendered): the sitemap's date, … */
  last_publication_date?: string | null;
  /** … and the content `type:` listings show (`documentHash`). */
  hash?: string;
  /** A page the editors hid from search engines (`seo.noindexOf`): not in the sitemap. Absent: false. */
  noindex?: boolean;
  /** A page's canonical override (`seo.canonicalTargetOf`): not in the sitemap when it names another address. Absent: none. */
  canonical?: CanonicalTarget;
  /** An editors' redirect document's rule (the website's `redirects.ruleOf`): where it redirects from and to. */
  redirect?: RedirectRule;
}

/** What the content API returned for a changed id at the new master ref (absent: unpublished or deleted). */
export interface FetchedDocument {
  id: string;
  type: string;
  /** Its route now; null for documents without one (the frame's) or with an unsafe uid. */
  route: string | null;
  last_publication_date?: string | null;
  /** `documentHash` of the document (absent: unknown). */
  hash?: string;
  /** `seo.noindexOf` the document: the sitemap leaves it out. */
  noindex?: boolean;
  /** `seo.canonicalTargetOf` the document: the sitemap leaves it out when it names another address. */
  canonical?: CanonicalTarget;
  /** An editors' redirect document's rule. */
  redirect?: RedirectRule;
}

/** A document the content API returned, as the planner compares it (`hash`: its `documentHash`). */
export function fetchedDocument(doc: PrismicDocument, hash: string): FetchedDocument {
  const { id, type, last_publication_date } = doc;
  const { seo, redirects } = website;
  const canonical = seo.canonicalTargetOf(doc);
  return {
    id,
    type,
    route: website.routes.ofDocument(doc),
    last_publication_date,
    hash,
    ...(seo.noindexOf(doc) ? { noindex: true } : {}),
    ...(canonical ? { canonical } : {}),
    ...(doc.type === redirects?.type ? { redirect: redirects.ruleOf(doc) } : {}),
  };
}

export interface PlanInput {
  changedIds: readonly string[];
  fetched: ReadonlyMap<string, FetchedDocument>;
  known: ReadonlyMap<string, KnownDocument>;
  /** Routes that recorded a dependency (`doc:<id>`, `url:<id>`, `type:<type>`, `routes:<type>`), from the index. */
  dependents: (dependency: string) => readonly string[];
  /**
   * Routes that link to `id` (`url:<id>`) and, when rendered, saw it anywhere but at `route` (its
   * route now, null: gone): `url:<id>` without `sees:<id>:<route>`. Absent: none.
   */
  linkedElsewhere?: (id: string, route: string | null) => readonly string[];
  /**
   * The From paths (as typed) of the editors' redirects that link to document `id` (the index's
   * rules): their location is that document's route. Absent: none.
   */
  redirectsTo?: (id: string) => readonly string[];
}

export interface Plan {
  /** Route → why it is rendered (the first reason found). */
  render: Map<string, string>;
  /** Route → why it is deleted. */
  delete: Map<string, string>;
  /**
   * Editors' redirects this publish changes, by From path as typed → why: a redirect document
   * published, changed or unpublished, or the document it links to moved, came or went. The
   * redirects stage resolves every redirect again and writes what differs (redirects-stage.ts).
   */
  redirects: Map<string, string>;
}

/**
 * Renders, for each changed id: its own route; every route that showed it (`doc:`); every route that
 * linked to it (`url:`) only when its route changed (renamed, unpublished, first published, unsafe
 * uid) or its type did; and the listings of its type when it joined, left or moved, or a field they
 * show changed (its content for `type:`, its lastmod day, `noindex` or canonical override for `routes:`). A content-only edit of a
 * page the navigation links to renders that page alone.
 */
export function planPublish(input: PlanInput): Plan {
  const render = new Map<string, string>();
  const remove = new Map<string, string>();
  const redirects = new Map<string, string>();
  const addRedirect = (from: string, why: string) => {
    const key = from === "" ? "(no From path)" : from;
    if (!redirects.has(key)) redirects.set(key, why);
  };
  const claimed = new Set<string>();
  const addRender = (route: string, why: string) => {
    if (!render.has(route)) render.set(route, why);
  };
  const addDependents = (dependency: string, why: string) => {
    for (const route of input.dependents(dependency)) addRender(route, why);
  };

  for (const id of new Set(input.changedIds)) {
    const now = input.fetched.get(id);
    const before = input.known.get(id);
    if (now?.route) {
      addRender(now.route, before?.route ? `document ${id} changed` : `document ${id} is new`);
      claimed.add(now.route);
    }
    if (before?.route && before.route !== now?.route) {
      remove.set(
        before.route,
        now ? `document ${id} moved to ${now.route ?? "no route"}` : `document ${id} was unpublished`,
      );
    }
    // Everything that showed this document's data.
    addDependents(`doc:${id}`, `shows ${id}`);
    // Links to it: only where it points, or whether it exists, changes their markup.
    const moved = routeChange(before, now);
    if (moved) addDependents(`url:${id}`, `links to ${id}, which ${moved}`);
    // Editors' redirects: the document itself is one, or redirects go wherever it is published.
    if (before?.redirect || now?.redirect) {
      const why = !before?.redirect
        ? `redirect ${id} is new`
        : !now?.redirect
          ? `redirect ${id} was unpublished`
          : `redirect ${id} changed`;
      for (const rule of [before?.redirect, now?.redirect]) if (rule) addRedirect(rule.from, why);
    }
    if (moved)
      for (const from of input.redirectsTo?.(id) ?? [])
        addRedirect(from, `redirects to ${id}, which ${moved}`);
    // Links rendered at a ref where it stood elsewhere than the index knew (a publish reads the
    // newest ref, so it can render a change whose webhook has not arrived yet).
    for (const route of input.linkedElsewhere?.(id, now?.route ?? null) ?? [])
      addRender(route, `links to ${id}, shown elsewhere than ${now?.route ?? "gone"} when rendered`);
    // Listings: a member joining, leaving or moving, or a field they show changing. `type:` listings
    // show their members' content, `routes:` listings their routes,
    // lastmod days and whether they are listed at all (`noindex`, the canonical override: the sitemap).
    const routesChange =
      moved ?? noindexChange(before, now) ?? canonicalChange(before, now) ?? dateChange(before, now);
    const listings: [string, string | undefined][] = [
      ["type", moved ?? contentChange(before, now)],
      ["routes", routesChange],
    ];
    for (const [kind, change] of listings) {
      if (!change) continue;
      if (now) addDependents(`${kind}:${now.type}`, `lists ${now.type}: ${id} ${change}`);
      if (before && before.type !== now?.type)
        addDependents(`${kind}:${before.type}`, `lists ${before.type}: ${id} ${change}`);
    }
    // A divided listing's part (the sitemap's) lists the documents of its slots: the one holding
    // this id, whatever its type.
    if (routesChange) {
      const slot = listingSlotOf(id);
      for (const type of new Set([now?.type, before?.type]))
        if (type)
          addDependents(
            routesSlotDependency(type, slot),
            `lists ${type} in slot ${slot}: ${id} ${routesChange}`,
          );
    }
    // What a listing shows of how many documents a type has (what divides the sitemap).
    if (before?.type !== now?.type) {
      if (now) addDependents(countDependency(now.type), `counts ${now.type}: ${id} joined`);
      if (before) addDependents(countDependency(before.type), `counts ${before.type}: ${id} left`);
    }
  }
  // A route a document claims now is rendered, never deleted (uids swapped, a page took over a freed uid).
  for (const route of claimed) remove.delete(route);
  // A deleted route is not rendered: its document is gone, it would only render the 404 page.
  for (const route of remove.keys()) render.delete(route);
  return { render, delete: remove, redirects };
}

/** How a document's address changed (what a link to it shows), or undefined when it did not. */
export function routeChange(
  before: KnownDocument | undefined,
  now: FetchedDocument | undefined,
): string | undefined {
  if (!before && !now) return undefined;
  if (!before) return "was published";
  if (!now) return "was unpublished";
  if (before.type !== now.type) return `changed type (${before.type} → ${now.type})`;
  if ((before.route ?? null) !== (now.route ?? null))
    return `moved (${before.route ?? "no route"} → ${now.route ?? "no route"})`;
  return undefined;
}

function contentChange(
  before: KnownDocument | undefined,
  now: FetchedDocument | undefined,
): string | undefined {
  if (!before || !now) return undefined;
  const unknown = before.hash === undefined || now.hash === undefined;
  return unknown || before.hash !== now.hash ? "changed" : undefined;
}

/** A page the sitemap lists stopped being listed (`noindex` set), or the other way round. */
function noindexChange(
  before: KnownDocument | undefined,
  now: FetchedDocument | undefined,
): string | undefined {
  if (!before || !now) return undefined;
  const was = before.noindex === true;
  const is = now.noindex === true;
  if (was === is) return undefined;
  return is ? "was hidden from search engines (noindex)" : "was listed again (noindex removed)";
}

/**
 * A page's canonical override set, removed or pointed elsewhere: the sitemap lists a page only when
 * it is canonical to itself. Compared as the index keeps it (target id or web address): where a
 * target document moves is its own change (`url:<id>`, which the sitemap records).
 */
function canonicalChange(
  before: KnownDocument | undefined,
  now: FetchedDocument | undefined,
): string | undefined {
  if (!before || !now) return undefined;
  const was = JSON.stringify(before.canonical ?? null);
  const is = JSON.stringify(now.canonical ?? null);
  return was === is ? undefined : "changed its canonical URL";
}

/** The sitemap's `<lastmod>` (`seo.lastmodOf`, a day): it changes on a document's first publication of a day. */
function dateChange(before: KnownDocument | undefined, now: FetchedDocument | undefined): string | undefined {
  if (!before || !now) return undefined;
  if (before.last_publication_date === undefined || now.last_publication_date === undefined) return "changed";
  const was = lastmodOf(before);
  const is = lastmodOf(now);
  return was !== is ? `changed its date (${was ?? "none"} → ${is ?? "none"})` : undefined;
}

/**
 * A document's `<lastmod>` from what the index keeps of it: the sitemap renders from the index's
 * stubs of documents (routes and dates, no data), so that is all `lastmodOf` may read.
 */
function lastmodOf(doc: KnownDocument | FetchedDocument): string | undefined {
  const { type, last_publication_date = null } = doc;
  return website.seo.lastmodOf({ type, last_publication_date } as PrismicDocument);
}

/** What the index recorded of a route when it was last rendered. */
export interface RecordedRoute {
  documentId?: string;
  dependencies: readonly string[];
}

/**
 * What a publish asks the content API for, in one request per 100 ids, before it plans: the changed
 * ids, the frame's documents (every render reads them), and for each route it will most likely re-render (known
 * before any fetch: the changed documents' routes and their dependents, from the index) the route's
 * document and every document it depended on last time (embedded price lists, linked documents).
 * Changed ids come first; no id twice.
 */
export function idsToFetch(
  changedIds: readonly string[],
  frameIds: readonly string[],
  routes: Iterable<RecordedRoute>,
): string[] {
  const wanted = new Set([...changedIds, ...frameIds]);
  for (const route of routes) {
    if (route.documentId) wanted.add(route.documentId);
    for (const dependency of route.dependencies)
      if (dependency.startsWith("doc:")) wanted.add(dependency.slice("doc:".length));
  }
  return [...wanted];
}
