/**
 * Redirect objects in storage and the manifest's list of them: what a publish or build compares the
 * redirects it resolved with (resolve-redirects.ts), and how one is written.
 *
 * A permanent redirect carries its location as the object's redirect location: on S3 that is
 * `x-amz-website-redirect-location`, so a bucket served as a website answers 301 itself. S3 knows
 * no other status, so a temporary one carries none (a bucket website would turn it into a 301,
 * which browsers keep for good): there its body, a page with `<meta http-equiv="refresh">`,
 * forwards the visitor; the site server (and the edge in front of it) answers 302 from the manifest.
 */
import type { BuildManifest } from "#manifest/manifest.ts";
import { REDIRECT_CACHE_CONTROL, REDIRECT_CONTENT_TYPE, redirectPage } from "#manifest/redirects.ts";
import { redirectKey } from "#redirects/redirect-paths.ts";
import type { ServedRedirect } from "#redirects/resolve-redirects.ts";
import { type SiteStore, sha256 } from "#storage";

export type Served = ReadonlyMap<string, Pick<ServedRedirect, "location" | "permanent">>;

/** The key and bytes of the redirect object at `path`. */
export function redirectObject(path: string, redirect: Pick<ServedRedirect, "location" | "permanent">) {
  const body = redirectPage(redirect.location, redirect.permanent);
  return { key: redirectKey(path), body, hash: sha256(body) };
}

export async function putRedirect(
  store: SiteStore,
  path: string,
  redirect: Pick<ServedRedirect, "location" | "permanent">,
): Promise<void> {
  const { key, body, hash } = redirectObject(path, redirect);
  await store.put(key, body, {
    contentType: REDIRECT_CONTENT_TYPE,
    cacheControl: REDIRECT_CACHE_CONTROL,
    contentHash: hash,
    ...(redirect.permanent ? { redirectLocation: redirect.location } : {}),
  });
}

/** What a manifest says the site serves as redirects: path → location and status. */
export function servedOf(
  manifest: Pick<BuildManifest, "redirects" | "temporaryRedirects"> | undefined,
): Served {
  const temporary = new Set(manifest?.temporaryRedirects ?? []);
  return new Map(
    Object.entries(manifest?.redirects ?? {}).map(([path, location]) => [
      path,
      { location, permanent: !temporary.has(path) },
    ]),
  );
}

/** Sets the manifest's `redirects` and `temporaryRedirects` to `served` (absent when empty). */
export function setServed(
  manifest: Pick<BuildManifest, "redirects" | "temporaryRedirects">,
  served: Served,
): void {
  delete manifest.redirects;
  delete manifest.temporaryRedirects;
  if (served.size === 0) return;
  const paths = [...served.keys()].sort();
  manifest.redirects = Object.fromEntries(paths.map((path) => [path, served.get(path)?.location as string]));
  const temporary = paths.filter((path) => served.get(path)?.permanent === false);
  if (temporary.length > 0) manifest.temporaryRedirects = temporary;
}

/** The hashes of the redirect objects a manifest lists, by key (a build skips those already stored). */
export function redirectHashes(
  manifest: Pick<BuildManifest, "redirects" | "temporaryRedirects"> | undefined,
) {
  const hashes: [string, string][] = [];
  for (const [path, redirect] of servedOf(manifest)) {
    const key = keyOrUndefined(path);
    if (key) hashes.push([key, redirectObject(path, redirect).hash]);
  }
  return hashes;
}

/** `redirectKey`, or undefined for a path no redirect can be stored at (a manifest written by hand). */
export function keyOrUndefined(path: string): string | undefined {
  try {
    return redirectKey(path);
  } catch {
    return undefined;
  }
}
