/**
 * No write ever goes back in time: a child job of a superseded publish (its worker was killed, the
 * job is retried by BullMQ after a newer publish committed) is dropped, and a write of an older
 * generation is refused. Real Redis, the real worker, the local content service and webhook.
 */
import { readFileSync } from "node:fs";
import { Queue, QueueEvents } from "bullmq";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
import { RENDER_QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { createSiteStore, type SiteStore, sha256 } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { claimWrite, claimWrites, nextGeneration } from "#worker/publish/generation.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { webhookOptions } from "../support/webhook-options.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PREFIX = `test-stale-${process.pid}-${Date.now()}`;
const SECRET = "stale-child-job-secret";
const SITE_URL = "https://www.example.com";
const logger = pino({ level: "silent" });
const settings = JSON.parse(
  readFileSync(`${ROOT}services/local-prismic/demo/documents/Z9nWsREAACUAx1Aa.json`, "utf8"),
);

let content: LocalPrismic;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let worker: RunningWorker;
let site: { path: string; remove: () => Promise<void> };
let redis: Redis;
let store: SiteStore;

const home = async () => (await store.get("index.html"))?.body.toString() ?? "";
const indexRef = () => redis.hget(`${PREFIX}:index:meta`, "ref");

beforeAll(async () => {
  site = await tempDir("stale-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), logger);
  content = await startLocalPrismic({ webhookUrl: `${webhook.url}/webhooks/prismic`, webhookSecret: SECRET });
  const config: PublisherConfig = {
    logLevel: "silent",
    prismic: contentConfig(content.endpoint),
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    storage: { url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" },
    siteUrl: SITE_URL,
  };
  worker = await startWorker(config, logger, { rootDir: ROOT, fanOutThreshold: 4 });
  store = createSiteStore(config.storage);
  await until("the first build", async () => (await indexRef()) === content.store.masterRef, {
    timeoutMs: 60_000,
    intervalMs: 20,
  });
}, 90_000);

afterAll(async () => {
  await worker?.close();
  await webhook?.close();
  await content?.stop();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await site?.remove();
});

describe("a child job of a superseded publish", () => {
  it("is dropped when it runs after a newer publish: the page keeps the newer content", async () => {
    const oldRef = content.store.masterRef;
    const oldGeneration = Number(await redis.get(redisKeys(PREFIX).generation));
    const answer = await fetch(`${content.url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        upsert: [{ ...settings, data: { ...settings.data, copyright_holder: "Newer Edition LLC" } }],
      }),
    });
    expect(answer.status).toBe(200);
    await until("the newer publish", async () => (await indexRef()) === content.store.masterRef, {
      timeoutMs: 60_000,
      intervalMs: 20,
    });
    expect(await home()).toContain("Newer Edition LLC");

    // What a killed worker leaves behind: a child job of the earlier publish, at its ref, retried now.
    const queue = new Queue(RENDER_QUEUE_NAME, { connection: redis, prefix: PREFIX });
    const events = new QueueEvents(RENDER_QUEUE_NAME, {
      connection: new Redis({ maxRetriesPerRequest: null }),
      prefix: PREFIX,
    });
    try {
      await events.waitUntilReady();
      const orphan = await queue.add("render-batch", {
        ref: oldRef,
        routes: ["/"],
        documents: [],
        generation: Math.max(1, oldGeneration),
      });
      await orphan.waitUntilFinished(events, 60_000);
    } finally {
      await events.close();
      await queue.close();
    }
    expect(await home()).toContain("Newer Edition LLC");
  }, 120_000);

  it("is refused when a worker of another site version queued it (a rolling deploy): it writes nothing", async () => {
    // The home page as another version rendered it, stored and indexed: a render here would rewrite it.
    const stale = "<!doctype html><title>rendered by another site version</title>";
    await store.put("index.html", stale, {
      contentType: "text/html; charset=utf-8",
      cacheControl: "no-store",
      contentHash: sha256(stale),
    });
    const routesKey = `${PREFIX}:index:routes`;
    const entry = JSON.parse((await redis.hget(routesKey, "/")) as string) as { hash: string };
    await redis.hset(routesKey, "/", JSON.stringify({ ...entry, hash: sha256(stale) }));
    const queue = new Queue(RENDER_QUEUE_NAME, { connection: redis, prefix: PREFIX });
    const events = new QueueEvents(RENDER_QUEUE_NAME, {
      connection: new Redis({ maxRetriesPerRequest: null }),
      prefix: PREFIX,
    });
    try {
      await events.waitUntilReady();
      const child = await queue.add("render-batch", {
        ref: content.store.masterRef,
        routes: ["/"],
        documents: [],
        generation: await nextGeneration(redis, PREFIX),
        site: "another-site-version",
      });
      await expect(child.waitUntilFinished(events, 60_000)).rejects.toThrow(/site version/);
    } finally {
      await events.close();
      await queue.close();
    }
    expect(await home()).toBe(stale);
  }, 60_000);

  it("cannot claim a write once a newer generation started or wrote the route", async () => {
    const older = await nextGeneration(redis, PREFIX);
    const newer = await nextGeneration(redis, PREFIX);
    expect(await claimWrite(redis, PREFIX, "/about", newer)).toBe(true);
    expect(await claimWrite(redis, PREFIX, "/about", older)).toBe(false);
    expect(await claimWrite(redis, PREFIX, "/contact", older)).toBe(false);
  });

  it("claims a child job's writes in one round trip, by the same rule per route", async () => {
    const older = await nextGeneration(redis, PREFIX);
    const newer = await nextGeneration(redis, PREFIX);
    // The newer generation wrote /pricing; the older one, still running, may not write anything.
    expect(await claimWrites(redis, PREFIX, ["/pricing"], newer)).toEqual(new Set(["/pricing"]));
    expect(await claimWrites(redis, PREFIX, ["/pricing", "/services"], older)).toEqual(new Set());
    // The newest generation may write every route, those an older one wrote before it too.
    const newest = await nextGeneration(redis, PREFIX);
    expect(await claimWrites(redis, PREFIX, ["/pricing", "/services", "/"], newest)).toEqual(
      new Set(["/pricing", "/services", "/"]),
    );
    // A route written by a generation newer than the claimer's (which started after it) is refused
    // even to a claimer that is itself current again (no newer start since): per route, not only globally.
    await redis.hset(redisKeys(PREFIX).routeGenerations, "/about", String(newest + 1));
    expect(await claimWrites(redis, PREFIX, ["/about", "/contact"], newest)).toEqual(new Set(["/contact"]));
    expect(await claimWrites(redis, PREFIX, [], newest)).toEqual(new Set());
  });
});
