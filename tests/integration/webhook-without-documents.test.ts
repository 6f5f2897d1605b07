/**
 * A delivery that announces a new master ref and names no document — the body real
 * Prismic sent in 2020 (tests/support/webhook-bodies.ts, from the renderful recording) — publishes
 * every route at that ref at once (a diff build), says so in the log and a metric, and keeps
 * incremental ≡ full through duplicates and a delivery overtaken by a newer publish. Before, it was
 * answered and nothing happened until reconcile (here: hourly). Real Redis, the real receiver and
 * worker, the local content service (edits made straight in its store: no webhook of its own), a
 * folder for storage.
 */
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
import { redisKeys } from "#jobs/catalog.ts";
import { deliveriesWithoutDocuments } from "#metrics/metrics.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig } from "../support/content-client.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { documentPublished, masterRefWithoutDocuments } from "../support/webhook-bodies.ts";
import { webhookOptions } from "../support/webhook-options.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO = `${ROOT}services/local-prismic/demo/documents/`;
const PREFIX = `test-no-documents-${process.pid}-${Date.now()}`;
const SECRET = "without-documents-secret";
const SITE_URL = "https://www.example.com";
const ABOUT = "Z9nWuhEAACMAx1Cc";
const SERVICES = "Z9nWvBEAACQAx1Dd";
const demo = (id: string) => JSON.parse(readFileSync(`${DEMO}${id}.json`, "utf8"));
const repository = { domain: "demo", secret: SECRET };

const lines: { msg?: string; announced?: string[] }[] = [];
const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });

let content: LocalPrismic;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let worker: RunningWorker;
let site: { path: string; remove: () => Promise<void> };
let redis: Redis;
let store: SiteStore;
let config: PublisherConfig;

const deliver = (body: unknown) =>
  fetch(`${webhook.url}/webhooks/prismic`, {
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
const count = async (action: "diff-build" | "covered") =>
  (await deliveriesWithoutDocuments.get()).values.find((v) => v.labels.action === action)?.value ?? 0;
const page = async (key: string) => (await store.get(key))?.body.toString() ?? "";
const keys = redisKeys(PREFIX);

/** Nothing left to take, and the index at the master ref. */
async function untilPublished(timeoutMs: number): Promise<number> {
  const started = Date.now();
  await until(
    "nothing left to take and the index at the master ref",
    async () => {
      const pending =
        (await redis.scard(keys.pendingIds)) +
        (await redis.scard(keys.processingIds)) +
        (await redis.scard(keys.pendingRefs)) +
        (await redis.scard(keys.processingRefs));
      return pending === 0 && (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef;
    },
    { timeoutMs },
  );
  return Date.now() - started;
}

beforeAll(async () => {
  site = await tempDir("no-documents-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), pino({ level: "silent" }));
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
  await content?.stop();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await site?.remove();
});

describe("a delivery that names no document (Prismic's 2020 body)", () => {
  it("is answered 200 and publishes every route at the new master ref at once, saying so", async () => {
    const before = await count("diff-build");
    const ref = await edit(ABOUT, "About, edited with no ids announced");
    const answer = await deliver(masterRefWithoutDocuments(repository, ref));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ jobId: `publish-${ref}` });

    const ms = await untilPublished(20_000);
    expect(await page("about/index.html")).toContain("<title>About, edited with no ids announced");
    expect(await count("diff-build")).toBe(before + 1);
    expect(lines.find((line) => line.msg?.startsWith("a delivery named no document"))?.announced).toEqual([
      ref,
    ]);
    expect(JSON.parse((await redis.get(keys.lastPublish)) ?? "{}")).toMatchObject({
      mode: "diff-build",
      ref,
    });
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
    console.log(`delivery without documents: published every route in ${ms} ms`);
  }, 60_000);

  it("costs one diff build for a delivery made twice, and none for a redelivery after it", async () => {
    const [builds, covered] = [await count("diff-build"), await count("covered")];
    const ref = await edit(SERVICES, "Services, announced twice");
    const body = masterRefWithoutDocuments(repository, ref);
    const [first, second] = await Promise.all([deliver(body), deliver(body)]);
    expect([first.status, second.status]).toEqual([200, 200]);
    await untilPublished(20_000);
    expect(await page("services/index.html")).toContain("<title>Services, announced twice");
    expect(await count("diff-build")).toBe(builds + 1);

    // Prismic redelivering later: its job id is the finished job's, so a job of its own takes the
    // ref at once (not the next reconcile round) and finds it covered.
    expect((await deliver(body)).status).toBe(200);
    await untilPublished(5_000);
    expect(await count("diff-build")).toBe(builds + 1);
    expect(await count("covered")).toBeGreaterThan(covered);
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
  }, 60_000);

  it("stays equal to a full build when a newer publish overtakes it", async () => {
    const older = await edit(ABOUT, "About, older and unannounced");
    const newer = await edit(SERVICES, "Services, newer and announced");
    expect((await deliver(documentPublished(repository, newer, SERVICES))).status).toBe(200);
    await untilPublished(20_000);
    // The incremental publish rendered only /services: /about still shows the earlier edit.
    expect(await page("about/index.html")).not.toContain("About, older and unannounced");
    expect((await deliver(masterRefWithoutDocuments(repository, older))).status).toBe(200);
    await untilPublished(20_000);
    expect(await page("about/index.html")).toContain("<title>About, older and unannounced");
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
  }, 60_000);
});
