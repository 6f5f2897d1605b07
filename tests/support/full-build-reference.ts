import { pino } from "pino";
import { expect } from "vitest";
import { createSiteStore, type SiteStore } from "../../services/shared/src/storage/index.ts";
import { fullBuild } from "../../worker/src/build/full-build.ts";
import { localContentClient } from "./content-client.ts";

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
 * produces (built into memory here), and no other object.
 */
export async function expectEqualsFullBuild(
  store: SiteStore,
  endpoint: string,
  ref: string,
  siteUrl: string,
): Promise<void> {
  const reference = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
  const client = localContentClient(endpoint);

  await fullBuild({
    client,
    store: reference,
    siteUrl,
    logger: pino({ level: "silent" }),
    ref,
    renderThreads: 0,
  });
  const [expected, actual] = await Promise.all([siteObjects(reference), siteObjects(store)]);
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [key, body] of expected) expect(actual.get(key), `${key} differs from a full build`).toBe(body);
}
