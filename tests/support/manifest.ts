/**
 * The build manifest as tests read and write it: through the store module the worker and the site
 * server use (a root and its route shards), never its keys.
 */
import type { BuildManifest, ManifestRoute } from "#manifest/manifest.ts";
import { readManifest, writeManifest } from "#manifest/manifest-store.ts";
import type { SiteStore } from "#storage";

/** The manifest in `store`, routes and all; undefined when there is none. */
export const storedManifest = (store: SiteStore): Promise<BuildManifest | undefined> => readManifest(store);

/** Stores `manifest` as a build would (version 2 when it omits one). */
export async function putManifest(
  store: SiteStore,
  manifest: Omit<BuildManifest, "version"> & { version?: number },
): Promise<void> {
  await writeManifest(store, { version: 2, ...manifest });
}

/** A manifest route for a test fixture: route → storage key, status 200 unless given. */
export const fixtureRoutes = (routes: Record<string, string>, status = 200): Record<string, ManifestRoute> =>
  Object.fromEntries(Object.entries(routes).map(([route, key]) => [route, { key, hash: "h", status }]));
