import {
  type ManifestHead,
  readManifestRoot,
  updateManifest as updateStoredManifest,
} from "#manifest/manifest-store.ts";
import type { SiteStore } from "#storage";
import { website } from "#website";
import type { IndexedRoute } from "./dependency-index.ts";
import { StagedWrites } from "./fan-out-entries.ts";
import { type Served, setServed } from "./redirect-objects.ts";

/**
 * The manifest's root in storage (its redirects, the shards of its routes); undefined when there is
 * none (or it cannot be read). A publish reads no route shard but those of the routes it changes.
 */
export async function readManifest(store: SiteStore): Promise<ManifestHead | undefined> {
  return await readManifestRoot(store);
}

/**
 * The commit stage, storage's half: the manifest records the routes written and drops those
 * deleted, and lists the redirects served (`current`: the root as read earlier in the publish).
 * Only the route shards holding a written or deleted route are written, then the root.
 */
export async function updateManifest(
  store: SiteStore,
  ref: string,
  written: ReadonlyMap<string, IndexedRoute> | StagedWrites,
  deleted: readonly string[],
  redirects?: Served, // renamed routes and editors' redirects: redirects-stage.ts
  current?: ManifestHead,
): Promise<void> {
  // A large fan-out's entries are read from Redis a few shards at a time (fan-out-entries.ts).
  const routes =
    written instanceof StagedWrites
      ? {
          routes: [...written.routes(), ...deleted],
          entries: (some: readonly string[]) => written.entries(some),
        }
      : { written, deleted };
  await updateStoredManifest(store, current ?? (await readManifestRoot(store)), {
    ref,
    ...routes,
    edit: (manifest) => {
      if (redirects) setServed(manifest, redirects); // renamed routes and editors' redirects
      if (Object.keys(manifest.redirects ?? {}).length === 0) {
        delete manifest.redirects;
        delete manifest.temporaryRedirects;
      }
      // The site server answers the website's aliases (`/home` → `/`) from here: it never loads the website.
      manifest.aliases = { ...website.routes.aliases };
    },
  });
}
