/**
 * Fault: Redis is killed with SIGKILL in the middle of a fan-out and restarts
 * empty (no persistence). The worker notices (its marker key is gone), fails the publish waiting on
 * child jobs that no longer exist at once (not at its 10-minute limit), registers the reconcile
 * schedule again, and reconcile runs the diff build the missing index calls for: storage ends equal
 * to a full build. A contact message answered 202 just before the kill is still mailed: the site
 * archived it in storage before answering. Our own redis-server on a free port; everything real.
 */
import { readFileSync } from "node:fs";
import { Queue } from "bullmq";
import Fastify, { type FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, type PublisherConfig } from "#config";
import { RECONCILE_QUEUE_NAME, RENDER_QUEUE_NAME } from "#jobs/catalog.ts";
import { siteApp } from "#site/app.ts";
import { type ContactQueue, createContactQueue } from "#site/contact-queue.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig } from "../support/content-client.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { type OwnRedis, startOwnRedis } from "../support/own-redis.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PREFIX = "test-redis-lost";
const SECRET = "redis-lost-secret";
const SITE_URL = "https://www.example.com";
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
const settings = JSON.parse(
  readFileSync(`${ROOT}services/local-prismic/demo/documents/Z9nWsREAACUAx1Aa.json`, "utf8"),
);

let own: OwnRedis;
let redis: Redis;
let content: LocalPrismic;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let worker: RunningWorker;
let site: { path: string; remove: () => Promise<void> };
let store: SiteStore;
let smtp: SmtpSink;
let contactQueue: ContactQueue;
let app: FastifyInstance;

beforeAll(async () => {
  own = await startOwnRedis();
  redis = new Redis(own.url, { maxRetriesPerRequest: null });
  site = await tempDir("redis-lost-site");
  smtp = await startSmtpSink();
  webhook = await startWebhook(
    {
      host: "127.0.0.1",
      port: 0,
      logLevel: "silent",
      repository: "demo",
      webhookSecret: SECRET,
      redisUrl: own.url,
      queuePrefix: PREFIX,
    },
    logger,
  );
  content = await startLocalPrismic({ webhookUrl: `${webhook.url}/webhooks/prismic`, webhookSecret: SECRET });
  const config: PublisherConfig = {
    logLevel: "silent",
    prismic: contentConfig(content.endpoint),
    redisUrl: own.url,
    queuePrefix: PREFIX,
    storage: { url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" },
    siteUrl: SITE_URL,
    contact: { smtpUrl: smtp.url, to: "sales@example.com", from: "Pressroom <no-reply@localhost>" },
  };
  store = createSiteStore(config.storage);
  // This process renders no child jobs: a fan-out waits until Redis is killed under it.
  worker = await startWorker(config, logger, {
    rootDir: ROOT,
    fanOutThreshold: 4,
    renderConcurrency: 0,
    reconcileEveryMs: 3_600_000,
  });
  contactQueue = createContactQueue({ redisUrl: own.url, queuePrefix: PREFIX, rateLimit: 5, logger });
  app = Fastify({ trustProxy: loadConfig("site", {}).trustProxy });
  await app.register(siteApp, { store, contact: contactQueue, manifestRefreshMs: 0 });
  await app.ready();
  await until(
    "the first build",
    async () => (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef,
    { timeoutMs: 60_000, ignoreErrors: true },
  );
}, 90_000);

afterAll(async () => {
  await app?.close();
  await contactQueue?.close();
  await worker?.close();
  await webhook?.close();
  await content?.stop();
  await store?.close();
  await smtp?.close();
  redis?.disconnect();
  await own?.stop();
  await site?.remove();
});

describe("Redis killed mid fan-out and restarted empty", () => {
  it("recovers unasked: the waiting publish fails at once, the schedule and the index come back, a 202 is kept", async () => {
    const answer = await fetch(`${content.url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        upsert: [{ ...settings, data: { ...settings.data, copyright_holder: "Lost Redis LLC" } }],
      }),
    });
    expect(answer.status).toBe(200);
    await until(
      "the fan-out's child jobs",
      async () => (await redis.llen(`${PREFIX}:${RENDER_QUEUE_NAME}:wait`)) > 0,
      { timeoutMs: 30_000, ignoreErrors: true },
    );
    const posted = await app.inject({
      method: "POST",
      url: "/api/contact",
      remoteAddress: "192.0.2.10",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({
        name: "Grace Hopper",
        email: "grace@example.com",
        phone: "",
        message: "Accepted just before Redis died.",
        consent: true,
        website: "",
        default_country: "GB",
      }),
    });
    expect(posted.statusCode).toBe(202);
    const { id } = posted.json() as { id: string };

    await own.kill();
    await own.restart();

    await smtp.waitFor(`x-pressroom-contact-id: ${id}`, 90_000);
    await until(
      "reconcile's diff build after the loss",
      async () => (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef,
      { timeoutMs: 90_000, ignoreErrors: true },
    );
    const queue = new Queue(RECONCILE_QUEUE_NAME, { connection: redis, prefix: PREFIX });
    try {
      expect(await queue.getJobScheduler("reconcile")).toBeTruthy();
    } finally {
      await queue.close();
    }
    expect((await store.get("index.html"))?.body.toString()).toContain("Lost Redis LLC");
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
  }, 240_000);
});
