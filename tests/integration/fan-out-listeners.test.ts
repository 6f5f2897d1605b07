/**
 * A fan-out into more than 10 child jobs waits on them with one QueueEvents listener per event,
 * not one per child, so a large publish prints no MaxListenersExceededWarning.
 */
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
import { startWebhook } from "#webhook/server.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { webhookOptions } from "../support/webhook-options.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PREFIX = `test-listeners-${process.pid}-${Date.now()}`;
const SECRET = "fan-out-listeners-secret";
const logger = pino({ level: "silent" });
const settings = JSON.parse(
  readFileSync(`${ROOT}services/local-prismic/demo/documents/Z9nWsREAACUAx1Aa.json`, "utf8"),
);

let content: LocalPrismic;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let worker: RunningWorker;
let site: { path: string; remove: () => Promise<void> };
let redis: Redis;

beforeAll(async () => {
  site = await tempDir("listeners-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), logger);
  content = await startLocalPrismic({ webhookUrl: `${webhook.url}/webhooks/prismic`, webhookSecret: SECRET });
  const config: PublisherConfig = {
    logLevel: "silent",
    prismic: contentConfig(content.endpoint),
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    storage: { url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" },
    siteUrl: "https://www.example.com",
  };
  // One route per child job: a settings change of the demo site fans out into more than 10.
  worker = await startWorker(config, logger, {
    rootDir: ROOT,
    fanOutThreshold: 1,
    fanOutBatch: 1,
    reconcileEveryMs: 3_600_000,
  });
  // The start's reconcile rounds done too: none of them can then take the edit below as a diff
  // build, so the webhook's publish is the one that fans out.
  await untilWorkerSettled(redis, PREFIX, content.store.masterRef);
}, 90_000);

afterAll(async () => {
  await worker?.close();
  await webhook?.close();
  await content?.stop();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await site?.remove();
});

describe("a fan-out into more than 10 child jobs", () => {
  it("prints no MaxListenersExceededWarning", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const answer = await fetch(`${content.url}/admin/publish`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          upsert: [{ ...settings, data: { ...settings.data, copyright_holder: "Many Children LLC" } }],
        }),
      });
      expect(answer.status).toBe(200);
      // The publish's summary is written after its commit (the index's ref) and its purges.
      const summary = async () =>
        JSON.parse((await redis.get(`${PREFIX}:last-publish`)) ?? "{}") as { ref?: string; batches?: number };
      await until("the fan-out publish", async () => (await summary()).ref === content.store.masterRef, {
        timeoutMs: 90_000,
      });
      expect((await summary()).batches).toBeGreaterThan(10);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((w) => w.includes("MaxListenersExceededWarning"))).toEqual([]);
  }, 120_000);
});
