import { pino } from "pino";
import { expect } from "vitest";
import { REDIRECTS_KEY } from "#manifest/redirects.ts";
import { redirectKey } from "#redirects/redirect-paths.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { fullBuild } from "#worker/build/full-build.ts";
import { localContentClient } from "./content-client.ts";
import { storedManifest } from "./manifest.ts";

/** Every object of the site (the `.pressroom/` metadata aside), key → bytes in base64. */
export async function siteObjects(store: SiteStore): Promise<Map<string, string>> {
  const objects = new Map<string, string>();
  for await (const key of store.keys()) {
    if (!key.startsWith(".pressroom/"))
      objects.set(key, (await store.get(key))?.body.toString("base64") ?? "");
  }
  return objects;
}

/**
 * The invariant "incremental ≡ full": `store` holds byte for byte what a fresh full build at `ref`
 * produces (built into memory here), and no other object. The build starts from the store's
 * redirect history (`.pressroom/redirects.json`), as a real full build of that storage does: the
 * content API only knows each document's uid now, the history knows the routes they left (a fresh
 * build has no previous manifest either: renames a build found by comparing manifests live on in
 * that history). The redirects must match too: the history, the manifest's list, and
 * each object's redirect location.
 */
export async function expectEqualsFullBuild(
  store: SiteStore,
  endpoint: string,
  ref: string,
  siteUrl: string,
  /** Build options the site was published with (a lowered sitemap URL limit). */
  options: { sitemapUrlLimit?: number } = {},
): Promise<void> {
  const reference = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
  const client = localContentClient(endpoint);
  const history = await store.get(REDIRECTS_KEY);
  if (history) {
    const { body, contentType, cacheControl, contentHash } = history;
    await reference.put(REDIRECTS_KEY, body, { contentType, cacheControl, contentHash: contentHash ?? "" });
  }

  await fullBuild({
    client,
    store: reference,
    siteUrl,
    logger: pino({ level: "silent" }),
    ref,
    renderThreads: 0,
    ...options,
  });
  const [expected, actual] = await Promise.all([siteObjects(reference), siteObjects(store)]);
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [key, body] of expected) expect(actual.get(key), `${key} differs from a full build`).toBe(body);

  const text = async (from: SiteStore, key: string) => (await from.get(key))?.body.toString();
  expect(await text(store, REDIRECTS_KEY), "the redirect history differs from a full build's").toBe(
    await text(reference, REDIRECTS_KEY),
  );
  const redirectsOf = async (from: SiteStore) => {
    const manifest = await storedManifest(from);
    return { redirects: manifest?.redirects ?? {}, temporary: manifest?.temporaryRedirects ?? [] };
  };
  const { redirects, temporary } = await redirectsOf(reference);
  expect(await redirectsOf(store), "the manifest's redirects differ from a full build's").toEqual({
    redirects,
    temporary,
  });
  // A permanent redirect carries its location (S3 answers 301 itself); a temporary one none (S3
  // would answer 301 too: its page forwards the visitor there).
  for (const [route, location] of Object.entries(redirects)) {
    expect((await store.head(redirectKey(route)))?.redirectLocation, `redirect at ${route}`).toBe(
      temporary.includes(route) ? undefined : location,
    );
  }
}
