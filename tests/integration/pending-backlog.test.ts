/**
 * Ids that pile up beyond what one publish reads one by one (MAX_IDS_PER_PUBLISH): a bulk publish
 * while the workers were down, ids a failing publish kept taking again, a flood of deliveries. Such
 * a backlog must never stop publishing: the next edit is live within a bound, the backlog is
 * published by one diff build and freed, and the site equals a full build. Also: a redelivery of a
 * publish that already ran gets a job of its own. Real Redis, the real receiver and worker, the
 * local content service, a folder for storage.
 */
import { readFileSync } from "node:fs";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
import { MAX_IDS_PER_PUBLISH, QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { statusCommand } from "#worker/inspect.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig } from "../support/content-client.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { documentPublished } from "../support/webhook-bodies.ts";
import { webhookOptions } from "../support/webhook-options.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO = `${ROOT}services/local-prismic/demo/documents/`;
const PREFIX = `test-backlog-${process.pid}-${Date.now()}`;
const FLOOD_PREFIX = `${PREFIX}-flood`;
const SECRET = "backlog-secret";
const SITE_URL = "https://www.example.com";
const ABOUT = "Z9nWuhEAACMAx1Cc";
/** How long the next edit may take to be live behind a backlog of any size (measured: docs/reliability.md). */
const LIVE_BOUND_MS = 30_000;
const demo = (id: string) => JSON.parse(readFileSync(`${DEMO}${id}.json`, "utf8"));
const repository = { domain: "demo", secret: SECRET };
const keys = redisKeys(PREFIX);

const lines: { level?: number; msg?: string; backlog?: number }[] = [];
const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
const floodLines: { msg?: string }[] = [];

let content: LocalPrismic;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let flood: Awaited<ReturnType<typeof startWebhook>>;
let worker: RunningWorker;
let site: { path: string; remove: () => Promise<void> };
let redis: Redis;
let store: SiteStore;
let config: PublisherConfig;

const deliver = (to: { url: string }, body: unknown) =>
  fetch(`${to.url}/webhooks/prismic`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
/** Straight into the content service's store: a new master ref, and no webhook of its own. */
const edit = async (id: string, metaTitle: string) => {
  const doc = demo(id);
  await content.store.publish({ upsert: [{ ...doc, data: { ...doc.data, meta_title: metaTitle } }] });
  return content.store.masterRef;
};
const page = async (key: string) => (await store.get(key))?.body.toString() ?? "";
/** Prismic-shaped ids (16 characters) that name no document. */
const fakeIds = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `Zbacklog${(from + i).toString(36).padStart(8, "0")}`);

/** Adds `count` ids to `key` in pipelined chunks, as many deliveries would have. */
async function pile(key: string, count: number): Promise<void> {
  for (let from = 0; from < count; from += 100_000) {
    const pipeline = redis.pipeline();
    for (let i = from; i < Math.min(count, from + 100_000); i += 1_000)
      pipeline.sadd(key, ...fakeIds(i, Math.min(1_000, count - i)));
    await pipeline.exec();
  }
}

async function waitingIds(): Promise<number> {
  return (
    (await redis.scard(keys.pendingIds)) +
    (await redis.scard(keys.processingIds)) +
    (await redis.scard(keys.processingBacklog))
  );
}

beforeAll(async () => {
  site = await tempDir("backlog-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), pino({ level: "silent" }));
  // A receiver whose queue no worker takes from: what deliveries pile up while the workers are down.
  flood = await startWebhook(
    webhookOptions(FLOOD_PREFIX, SECRET),
    pino({ level: "warn" }, { write: (line: string) => floodLines.push(JSON.parse(line)) }),
  );
  content = await startLocalPrismic();
  config = {
    logLevel: "silent",
    prismic: contentConfig(content.endpoint, { cacheTtlMs: 0 }),
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    storage: { url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" },
    siteUrl: SITE_URL,
  };
  // Reconcile hourly: whatever publishes the edits below, it is not reconcile catching up.
  worker = await startWorker(config, logger, { rootDir: ROOT, reconcileEveryMs: 3_600_000 });
  store = createSiteStore(config.storage);
  await untilWorkerSettled(redis, PREFIX, content.store.masterRef);
}, 90_000);

afterAll(async () => {
  await worker?.close();
  await webhook?.close();
  await flood?.close();
  await content?.stop();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await removeKeysUnder(redis, FLOOD_PREFIX);
  await redis.quit();
  await site?.remove();
});

describe("a backlog of pending ids", () => {
  it("left in processing by publishes that kept failing (45,000 ids): the next edit is live", async () => {
    await pile(keys.processingIds, 45_000);
    const ref = await edit(ABOUT, "About, behind 45,000 ids");
    expect((await deliver(webhook, documentPublished(repository, ref, ABOUT))).status).toBe(200);

    const started = Date.now();
    await until(
      "the edit behind the backlog",
      async () => (await page("about/index.html")).includes("<title>About, behind 45,000 ids"),
      { timeoutMs: LIVE_BOUND_MS },
    );
    await until("the backlog freed", async () => (await waitingIds()) === 0, { timeoutMs: 10_000 });
    expect(lines.some((line) => line.backlog !== undefined && line.backlog >= 45_000)).toBe(true);
    expect(JSON.parse((await redis.get(keys.lastPublish)) ?? "{}")).toMatchObject({ mode: "diff-build" });
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
    console.log(`45,000 ids in processing: the next edit live in ${Date.now() - started} ms`);
  }, 60_000);

  it.each([100_000, 1_000_000])(
    "of %i pending ids: the next edit is live, and the ids are freed",
    async (count) => {
      const before = await usedMemory();
      await pile(keys.pendingIds, count);
      const piled = await usedMemory();
      const title = `About, behind ${count} pending ids`;
      const ref = await edit(ABOUT, title);
      expect((await deliver(webhook, documentPublished(repository, ref, ABOUT))).status).toBe(200);

      const started = Date.now();
      await until(
        `the edit behind ${count} ids`,
        async () => (await page("about/index.html")).includes(`<title>${title}`),
        { timeoutMs: LIVE_BOUND_MS },
      );
      const ms = Date.now() - started;
      await until("the backlog freed", async () => (await waitingIds()) === 0, { timeoutMs: 10_000 });
      await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
      console.log(
        `${count} pending ids (${((piled - before) / 1e6).toFixed(1)} MB in Redis): the next edit live in ${ms} ms`,
      );
    },
    120_000,
  );

  it("piled up by deliveries while no worker runs stays bounded, and says so", async () => {
    const floodKeys = redisKeys(FLOOD_PREFIX);
    const perDelivery = 2_000;
    const deliveries = 30;
    for (let i = 0; i < deliveries; i++) {
      const body = {
        type: "api-update",
        masterRef: `flood-ref-${i}`,
        documents: fakeIds(i * perDelivery, perDelivery),
        domain: repository.domain,
        secret: SECRET,
      };
      expect((await deliver(flood, body)).status).toBe(200);
    }
    const pending = await redis.scard(floodKeys.pendingIds);
    expect(pending).toBeGreaterThanOrEqual(MAX_IDS_PER_PUBLISH);
    expect(pending).toBeLessThan(MAX_IDS_PER_PUBLISH + perDelivery);
    // The deliveries whose ids were left out are recorded by their refs: a diff build publishes them.
    const refs = await redis.smembers(floodKeys.pendingRefs);
    expect(refs.length).toBe(deliveries - Math.ceil(MAX_IDS_PER_PUBLISH / perDelivery));
    expect(refs).toContain(`flood-ref-${deliveries - 1}`);
    expect(floodLines.some((line) => line.msg?.startsWith("the pending set is full"))).toBe(true);
  }, 60_000);
});

describe("a redelivery of a publish that already ran", () => {
  it("is published by a job of its own, not left waiting for reconcile", async () => {
    const ref = await edit(ABOUT, "About, delivered twice");
    const body = documentPublished(repository, ref, ABOUT);
    expect((await deliver(webhook, body)).status).toBe(200);
    const queue = new Queue(QUEUE_NAME, { connection: redis, prefix: PREFIX });
    try {
      await until(
        "the first delivery's job done",
        async () => (await queue.getJobState(`publish-${ref}`)) === "completed",
        { timeoutMs: 20_000 },
      );
      await until("the first delivery published", async () => (await waitingIds()) === 0, {
        timeoutMs: 20_000,
      });
      expect((await deliver(webhook, body)).status).toBe(200);
      await until("the redelivery's ids taken", async () => (await waitingIds()) === 0, {
        timeoutMs: 20_000,
      });
      const status = await statusCommand(config);
      expect(status).toMatch(/pending ids:\s+0 waiting, 0 being published/);
    } finally {
      await queue.close();
    }
  }, 60_000);
});

async function usedMemory(): Promise<number> {
  const info = await redis.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}
