/**
 * Redirects that keep links alive across uid renames. Pure — no I/O — so every case is a table test
 * (tests/unit/redirects.test.ts); the publish and the full build do the reading and writing
 * (worker/src/publish/redirects-stage.ts).
 */
import type { RedirectEntry, RedirectHistory } from "#manifest/redirects.ts";

/** Where a document lives now and, when known, where it lived before this publish. */
export interface DocumentMove {
  id: string;
  /** Its route before (from the index); absent in a full build, which only knows the present. */
  from?: string | null;
  /** Its route now; null when it is gone (unpublished, deleted) or has no route. */
  to: string | null;
}

export interface RedirectInput {
  history: RedirectHistory;
  /** The documents whose route is known now: the changed ones (a publish) or all of them (a build). */
  documents: readonly DocumentMove[];
  /** `documents` lists every published document: entries of any other document are dropped. */
  complete: boolean;
  /** Each of `documents`' route now (`to`) by id, when the caller has it already (a build's 100,000). */
  routes?: ReadonlyMap<string, string | null>;
  /** Whether a real page is served at the route after this publish: a page always wins. */
  isPage(route: string): boolean;
}

export interface RedirectPlan {
  /** The history to store. */
  history: RedirectHistory;
  /** Old route → location: redirects that are new or point somewhere new (to write). */
  write: Map<string, string>;
  /** Old routes whose redirect goes away and that no page took (to delete). */
  drop: string[];
}

/**
 * Folds this publish's moves into the history: a document that moved leaves a redirect at its old
 * route; every redirect of a document points at its current route (so A→B→C is stored as A→C and
 * B→C, never as a chain); a document that is gone takes its redirects with it; a route a page is
 * served at (a new document took the old uid, or the document moved back) is no redirect.
 */
export function planRedirects(input: RedirectInput): RedirectPlan {
  const now = input.routes ?? new Map(input.documents.map((d) => [d.id, d.to]));
  const next = new Map<string, RedirectEntry>();
  for (const [route, entry] of Object.entries(input.history)) {
    if (!now.has(entry.documentId)) {
      if (!input.complete) next.set(route, entry);
      continue;
    }
    const location = now.get(entry.documentId);
    if (location) next.set(route, { documentId: entry.documentId, location });
  }
  for (const { id, from, to } of input.documents) {
    if (from && to && from !== to) next.set(from, { documentId: id, location: to });
  }
  for (const [route, entry] of next) {
    if (route === entry.location || input.isPage(route)) next.delete(route);
  }

  const history: RedirectHistory = {};
  const write = new Map<string, string>();
  for (const route of [...next.keys()].sort()) {
    const entry = next.get(route) as RedirectEntry;
    history[route] = entry;
    if (input.history[route]?.location !== entry.location) write.set(route, entry.location);
  }
  const drop = Object.keys(input.history)
    .filter((route) => !next.has(route) && !input.isPage(route))
    .sort();
  return { history, write, drop };
}

/** The manifest's view of a history: old route → location. */
export function redirectLocations(history: RedirectHistory): Record<string, string> {
  return Object.fromEntries(Object.entries(history).map(([route, entry]) => [route, entry.location]));
}
