/**
 * The planner: which routes a publish must render and which it must delete.
 * Pure — no I/O — so every case is a table test (tests/unit/planner.test.ts).
 */

/** What the index knew of a document before this publish. */
export interface KnownDocument {
  route: string | null;
  type: string;
}

/** What the content API returned for a changed id at the new master ref (absent: unpublished or deleted). */
export interface FetchedDocument {
  id: string;
  type: string;
  /** Its route now; null for documents without one (settings) or with an unsafe uid. */
  route: string | null;
}

export interface PlanInput {
  changedIds: readonly string[];
  fetched: ReadonlyMap<string, FetchedDocument>;
  known: ReadonlyMap<string, KnownDocument>;
  /** Routes that recorded a dependency (`doc:<id>` or `type:<type>`), from the index. */
  dependents: (dependency: string) => readonly string[];
}

export interface Plan {
  /** Route → why it is rendered (the first reason found). */
  render: Map<string, string>;
  /** Route → why it is deleted. */
  delete: Map<string, string>;
}

export function planPublish(input: PlanInput): Plan {
  const render = new Map<string, string>();
  const remove = new Map<string, string>();
  const claimed = new Set<string>();
  const addRender = (route: string, why: string) => {
    if (!render.has(route)) render.set(route, why);
  };
  const addDependents = (dependency: string) => {
    for (const route of input.dependents(dependency)) addRender(route, `depends on ${dependency}`);
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
    // Everything that showed this document, its data or its url.
    addDependents(`doc:${id}`);
    // Listings change when a document appears, disappears or moves.
    const membershipChanged = (before?.route ?? null) !== (now?.route ?? null) || before?.type !== now?.type;
    if (membershipChanged) {
      if (now) addDependents(`type:${now.type}`);
      if (before && before.type !== now?.type) addDependents(`type:${before.type}`);
    }
  }
  // A route a document claims now is rendered, never deleted (uids swapped, a page took over a freed uid).
  for (const route of claimed) remove.delete(route);
  // A deleted route is not rendered: its document is gone, it would only render the 404 page.
  for (const route of remove.keys()) render.delete(route);
  return { render, delete: remove };
}

/** What the index recorded of a route when it was last rendered. */
export interface RecordedRoute {
  documentId?: string;
  dependencies: readonly string[];
}

/**
 * What a publish asks the content API for, in one request per 100 ids, before it plans: the changed
 * ids, settings (every render reads it), and for each route it will most likely re-render (known
 * before any fetch: the changed documents' routes and their dependents, from the index) the route's
 * document and every document it depended on last time (embedded price lists, linked documents).
 * Changed ids come first; no id twice.
 */
export function idsToFetch(
  changedIds: readonly string[],
  settingsId: string | undefined,
  routes: Iterable<RecordedRoute>,
): string[] {
  const wanted = new Set(changedIds);
  if (settingsId) wanted.add(settingsId);
  for (const route of routes) {
    if (route.documentId) wanted.add(route.documentId);
    for (const dependency of route.dependencies)
      if (dependency.startsWith("doc:")) wanted.add(dependency.slice("doc:".length));
  }
  return [...wanted];
}
