/**
 * Contact messages (and reconcile rounds) run on their own queues. A publish
 * that holds the main queue for long — here one waiting on child jobs no process renders — and a
 * stream of duplicate deliveries behind it do not delay a contact message. Real Redis, the real
 * worker, receiver, site server, local content service and SMTP server.
 */
import { readFileSync } from "node:fs";
import Fastify, { type FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, type PublisherConfig } from "#config";
import { RENDER_QUEUE_NAME } from "#jobs/catalog.ts";
import { siteApp } from "#site/app.ts";
import { type ContactQueue, createContactQueue } from "#site/contact-queue.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { webhookOptions } from "../support/webhook-options.ts";
import { closeWorkerHoldingFanOut, untilWorkerSettled } from "../support/worker-settled.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PREFIX = `test-queues-${process.pid}-${Date.now()}`;
const SECRET = "separate-queues-secret";
const logger = pino({ level: "silent" });
const SETTINGS_ID = "Z9nWsREAACUAx1Aa";
const settings = JSON.parse(
  readFileSync(`${ROOT}services/local-prismic/demo/documents/${SETTINGS_ID}.json`, "utf8"),
);

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
  redis = new Redis({ maxRetriesPerRequest: null });
  site = await tempDir("queues-site");
  smtp = await startSmtpSink();
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), logger);
  content = await startLocalPrismic({ webhookUrl: `${webhook.url}/webhooks/prismic`, webhookSecret: SECRET });
  const config: PublisherConfig = {
    logLevel: "silent",
    prismic: contentConfig(content.endpoint),
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    storage: { url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" },
    siteUrl: "https://www.example.com",
    contact: { smtpUrl: smtp.url, to: "sales@example.com", from: "Pressroom <no-reply@localhost>" },
  };
  store = createSiteStore(config.storage);
  // No child job is rendered by this process: a fan-out publish holds the main queue until the end.
  worker = await startWorker(config, logger, {
    rootDir: ROOT,
    fanOutThreshold: 4,
    renderConcurrency: 0,
    reconcileEveryMs: 3_600_000,
  });
  contactQueue = createContactQueue({
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    rateLimit: 5,
    logger,
  });
  app = Fastify({ trustProxy: loadConfig("site", {}).trustProxy });
  await app.register(siteApp, { store, contact: contactQueue, manifestRefreshMs: 0 });
  await app.ready();
  // Else a start's reconcile round may take the edit below (as pending ids) and hold the fan-out.
  await untilWorkerSettled(redis, PREFIX, content.store.masterRef);
}, 90_000);

afterAll(async () => {
  await app?.close();
  await contactQueue?.close();
  if (worker) await closeWorkerHoldingFanOut(redis, PREFIX, worker);
  await webhook?.close();
  await content?.stop();
  await store?.close();
  await smtp?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await site?.remove();
}, 60_000);

describe("contact messages on their own queue", () => {
  it("are delivered while a long publish and a stream of duplicate deliveries hold the main queue", async () => {
    const answer = await fetch(`${content.url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        upsert: [{ ...settings, data: { ...settings.data, copyright_holder: "Long Publish LLC" } }],
      }),
    });
    expect(answer.status).toBe(200);
    await until(
      "the long publish's child jobs",
      async () => (await redis.llen(`${PREFIX}:${RENDER_QUEUE_NAME}:wait`)) > 0,
      { timeoutMs: 30_000 },
    );
    // The same publish delivered again and again (Prismic's retries, a replaying proxy).
    for (let i = 0; i < 20; i++) {
      const delivery = await fetch(`${webhook.url}/webhooks/prismic`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          type: "api-update",
          masterRef: `${content.store.masterRef}`,
          releases: {},
          masks: {},
          tags: {},
          experiments: {},
          documents: [SETTINGS_ID],
          domain: "demo",
          apiUrl: content.endpoint,
          secret: SECRET,
        }),
      });
      expect([200, 202]).toContain(delivery.status);
    }
    const posted = await app.inject({
      method: "POST",
      url: "/api/contact",
      remoteAddress: "192.0.2.20",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({
        name: "Katherine Johnson",
        email: "katherine@example.com",
        phone: "",
        message: "Sent while a publish is running.",
        consent: true,
        website: "",
        default_country: "GB",
      }),
    });
    expect(posted.statusCode).toBe(202);
    const { id } = posted.json() as { id: string };
    await smtp.waitFor(`x-pressroom-contact-id: ${id}`, 30_000);
  }, 120_000);
});
