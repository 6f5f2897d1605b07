import {
  type BuildManifest,
  CACHE_CONTROL,
  MANIFEST_KEY,
  MANIFEST_VERSION,
  parseManifest,
  serializeManifest,
} from "#manifest/manifest.ts";
import { type SiteStore, sha256 } from "#storage";
import type { IndexedRoute } from "./dependency-index.ts";

/** The commit stage, storage's half: the manifest records the routes written and drops those deleted. */
export async function updateManifest(
  store: SiteStore,
  ref: string,
  written: ReadonlyMap<string, IndexedRoute>,
  deleted: readonly string[],
  redirects?: Record<string, string>, // redirects (issue 13 §2): redirects-stage.ts
): Promise<void> {
  const current = parseManifest((await store.get(MANIFEST_KEY))?.body);
  const manifest: BuildManifest = current ?? {
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
  if (redirects) manifest.redirects = redirects; // redirects (issue 13 §2)
  if (Object.keys(manifest.redirects ?? {}).length === 0) delete manifest.redirects;
  const body = serializeManifest(manifest);
  await store.put(MANIFEST_KEY, body, {
    contentType: "application/json",
    cacheControl: CACHE_CONTROL.metadata,
    contentHash: sha256(body),
  });
}
