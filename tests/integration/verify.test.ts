/**
 * Operators can prove storage matches: `pressroom verify` reads every stored object's bytes, finds
 * one changed behind the pipeline's back (its metadata still claims the old hash) and repairs it;
 * reconcile's rotating sample finds and repairs such drift without anyone asking; `pressroom status`
 * shows the last verification. Real Redis, a real folder, the local content service, the real worker.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { statusCommand } from "#worker/inspect.ts";
import { verifyCommand } from "#worker/verify-command.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig } from "../support/content-client.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PREFIX = `test-verify-${process.pid}-${Date.now()}`;
const SITE_URL = "https://www.example.com";
const logger = pino({ level: "silent" });

let content: LocalPrismic;
let worker: RunningWorker;
let site: { path: string; remove: () => Promise<void> };
let redis: Redis;
let store: SiteStore;
let config: PublisherConfig;

/** Changes a stored page the way a stray process or a write gone back in time would: bytes only. */
async function corrupt(key: string): Promise<void> {
  await writeFile(join(site.path, key), "<!doctype html><p>stale</p>");
}

/** The keys of the pages stored (the manifest's routes: redirect objects are no pages), in storage's order. */
async function pageKeys(): Promise<string[]> {
  const routes = Object.values((await storedManifest(store))?.routes ?? {});
  const pages = new Set(routes.map((route) => route.key));
  const keys: string[] = [];
  for await (const key of store.keys()) if (key.endsWith("/index.html") && pages.has(key)) keys.push(key);
  return keys;
}

beforeAll(async () => {
  site = await tempDir("verify-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  content = await startLocalPrismic();
  config = {
    logLevel: "silent",
    prismic: contentConfig(content.endpoint),
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    storage: { url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" },
    siteUrl: SITE_URL,
  };
  worker = await startWorker(config, logger, { rootDir: ROOT, reconcileEveryMs: 3_600_000 });
  store = createSiteStore(config.storage);
  // The start's reconcile rounds (the first builds, the next samples storage) are over before any test corrupts.
  await untilWorkerSettled(redis, PREFIX, content.store.masterRef);
}, 90_000);

afterAll(async () => {
  await worker?.close();
  await content?.stop();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await site?.remove();
});

describe("storage verification", () => {
  it("pressroom verify finds an object whose bytes changed behind the pipeline's back and repairs it", async () => {
    const [key] = await pageKeys();
    if (!key) throw new Error("no page stored");
    await corrupt(key);
    const { text, result } = await verifyCommand(config, logger);
    expect(result.repaired).toEqual([key]);
    expect(text).toContain(key);
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
    // A second run finds nothing to repair.
    expect((await verifyCommand(config, logger)).result.repaired).toEqual([]);
    expect(await statusCommand(config)).toMatch(/last verification: +full verification .*all matched/);
  }, 120_000);

  it("gives an object stored with an older cache policy (before the edge: no s-maxage) the one the build writes", async () => {
    const [key] = await pageKeys();
    const object = await store.get(key as string);
    if (!object) throw new Error("no page stored");
    await store.put(key as string, object.body, {
      contentType: object.contentType,
      cacheControl: "public, max-age=0, must-revalidate",
      contentHash: object.contentHash as string,
    });
    const { result } = await verifyCommand(config, logger);
    expect(result.repaired).toEqual([key]);
    expect((await store.head(key as string))?.cacheControl).toBe(CACHE_CONTROL.html);
  }, 120_000);

  it("reconcile's rotating sample finds drift unasked and repairs it", async () => {
    const keys = await pageKeys();
    const key = keys.at(-1) as string;
    await corrupt(key);
    const outcome = await worker.reconcileNow();
    expect(outcome.reason).toBe("repaired 1 drifted pages");
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
    expect(await statusCommand(config)).toMatch(
      new RegExp(`last verification: +reconcile sample .*1 differed and were repaired \\(${key}\\)`),
    );
  }, 120_000);
});
