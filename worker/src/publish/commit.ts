import {
  type BuildManifest,
  CACHE_CONTROL,
  MANIFEST_KEY,
  MANIFEST_VERSION,
  parseManifest,
  serializeManifest,
} from "#manifest/manifest.ts";
import { type SiteStore, sha256 } from "#storage";
import { website } from "#website";
import type { IndexedRoute } from "./dependency-index.ts";
import { type Served, setServed } from "./redirect-objects.ts";

/** The manifest in storage; undefined when there is none (or it cannot be read). */
export async function readManifest(store: SiteStore): Promise<BuildManifest | undefined> {
  return parseManifest((await store.get(MANIFEST_KEY))?.body);
}

/**
 * The commit stage, storage's half: the manifest records the routes written and drops those
 * deleted, and lists the redirects served (`current`: the manifest as read earlier in the publish).
 */
export async function updateManifest(
  store: SiteStore,
  ref: string,
  written: ReadonlyMap<string, IndexedRoute>,
  deleted: readonly string[],
  redirects?: Served, // renamed routes and editors' redirects: redirects-stage.ts
  current?: BuildManifest,
): Promise<void> {
  const manifest: BuildManifest = current ??
    (await readManifest(store)) ?? {
      version: MANIFEST_VERSION,
      ref,
      builtAt: new Date().toISOString(),
      routes: {},
      assets: {},
    };
  manifest.ref = ref;
  manifest.builtAt = new Date().toISOString();
  for (const route of deleted) delete manifest.routes[route];
  for (const [route, entry] of written) manifest.routes[route] = entry;
  if (redirects) setServed(manifest, redirects); // renamed routes and editors' redirects
  if (Object.keys(manifest.redirects ?? {}).length === 0) {
    delete manifest.redirects;
    delete manifest.temporaryRedirects;
  }
  // The site server answers the website's aliases (`/home` → `/`) from here: it never loads the website.
  manifest.aliases = { ...website.routes.aliases };
  const body = serializeManifest(manifest);
  await store.put(MANIFEST_KEY, body, {
    contentType: "application/json",
    cacheControl: CACHE_CONTROL.metadata,
    contentHash: sha256(body),
  });
}
