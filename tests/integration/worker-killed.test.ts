/**
 * A worker killed with SIGKILL in the middle of a publish loses nothing: its ids stay in the
 * processing set, its lock expires, BullMQ hands its job to the next worker, and storage still ends
 * equal to a full build at the newest master ref. The worker runs as its own process, as in production.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "#jobs/catalog.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { expectEqualsFullBuild, siteObjects } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { webhookOptions } from "../support/webhook-options.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PREFIX = `test-kill-${process.pid}-${Date.now()}`;
const SECRET = "worker-killed-test-secret";
const SITE_URL = "https://www.example.com";
const logger = pino({ level: "silent" });
const demo = (id: string) =>
  JSON.parse(readFileSync(`${ROOT}services/local-prismic/demo/documents/${id}.json`, "utf8"));

let content: LocalPrismic;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let site: { path: string; remove: () => Promise<void> };
let redis: Redis;
let store: SiteStore;

function startWorkerProcess(): ChildProcess {
  return spawn(process.execPath, [`${ROOT}bin/pressroom.js`, "serve", "worker"], {
    env: {
      ...process.env,
      LOG_LEVEL: "warn",
      PRISMIC_ENDPOINT: content.endpoint,
      REDIS_URL: "redis://127.0.0.1:6379",
      QUEUE_PREFIX: PREFIX,
      STORAGE_URL: `file://${site.path}`,
      SITE_URL,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

beforeAll(async () => {
  site = await tempDir("kill-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), logger);
  content = await startLocalPrismic({ webhookUrl: `${webhook.url}/webhooks/prismic`, webhookSecret: SECRET });
  store = createSiteStore({ url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
});

afterAll(async () => {
  await webhook?.close();
  await content?.stop();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await site?.remove();
});

describe("a worker killed mid-publish", () => {
  it("leaves nothing lost: the next worker finishes, and storage equals a full build", async () => {
    const keys = redisKeys(PREFIX);
    const first = startWorkerProcess();
    await until(
      "the first build",
      async () => (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef,
      { timeoutMs: 30_000, intervalMs: 5 },
    );

    // A settings change re-renders every route; kill the worker while that publish holds the ids.
    const settings = demo("Z9nWsREAACUAx1Aa");
    const answer = await fetch(`${content.url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        upsert: [{ ...settings, data: { ...settings.data, copyright_holder: "Killed Midway LLC" } }],
      }),
    });
    expect(answer.status).toBe(200);
    await until("the publish to take the ids", async () => (await redis.scard(keys.processingIds)) > 0, {
      timeoutMs: 10_000,
      intervalMs: 5,
    });
    first.kill("SIGKILL");
    await once(first, "exit");
    expect(await redis.scard(keys.processingIds)).toBeGreaterThan(0);

    const second = startWorkerProcess();
    try {
      // The dead worker's lock expires (30 s) and its job is retried or reconciled.
      await until(
        "the second worker to finish the publish",
        async () =>
          (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef &&
          (await redis.scard(keys.processingIds)) + (await redis.scard(keys.pendingIds)) === 0,
        { timeoutMs: 90_000, intervalMs: 5 },
      );
    } finally {
      second.kill("SIGTERM");
      await once(second, "exit");
    }

    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
    const actual = await siteObjects(store);
    expect(actual.get("index.html") ?? "").not.toBe("");
    expect(Buffer.from(actual.get("index.html") ?? "", "base64").toString()).toContain("Killed Midway LLC");
  }, 150_000);
});
