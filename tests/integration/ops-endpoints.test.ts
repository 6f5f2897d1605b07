/**
 * What an operator scrapes and probes, over HTTP: `/_pressroom/metrics` in Prometheus' text format
 * on each process's ops listener (never its public port), the publish-to-live histogram moving
 * when a real publish happens (local content service → webhook receiver → real Redis → worker),
 * `/_pressroom/readyz` failing while Redis is away (the site server's degraded instead), and the
 * queue dashboard behind basic auth.
 */
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkerConfig } from "#config";
import { redisKeys } from "#jobs/catalog.ts";
import { acceptedKey, recordAccepted } from "#metrics/publish-latency.ts";
import { startSite } from "#site/server.ts";
import { createMemoryStore } from "#storage/memory-store.ts";
import { type RunningWebhook, startWebhook } from "#webhook/server.ts";
import { startWorkerOps, type WorkerOps } from "#worker/ops/worker-ops.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SECRET = "ops-endpoints-test-secret";
const PREFIX = `test-ops-${process.pid}-${Date.now()}`;
const QUEUES = { user: "operator", password: "dashboard-password-1" };
const SERVICES = "Z9nWvBEAACQAx1Dd";
/** Nothing listens there: Redis is "down". */
const NO_REDIS = "redis://127.0.0.1:1";
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
const OPS = { host: "127.0.0.1", port: 0 };

let redis: Redis;
let siteDir: { path: string; remove: () => Promise<void> };
let content: LocalPrismic;
let webhook: RunningWebhook;
let worker: RunningWorker;
let workerOps: WorkerOps;

function webhookConfig(redisUrl: string, queues?: typeof QUEUES) {
  return {
    host: "127.0.0.1",
    port: 0,
    logLevel: "silent" as const,
    repository: "demo",
    webhookSecret: SECRET,
    redisUrl,
    queuePrefix: PREFIX,
    ops: OPS,
    ...(queues ? { queues } : {}),
  };
}

beforeAll(async () => {
  redis = new Redis({ maxRetriesPerRequest: null });
  siteDir = await tempDir("ops-site");
  webhook = await startWebhook(webhookConfig("redis://127.0.0.1:6379", QUEUES), logger);
  content = await startLocalPrismic({ webhookUrl: `${webhook.url}/webhooks/prismic`, webhookSecret: SECRET });
  const config: WorkerConfig = {
    logLevel: "silent",
    prismic: contentConfig(content.endpoint),
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    storage: { url: `file://${siteDir.path}`, s3Endpoint: undefined, s3Region: "us-east-1" },
    siteUrl: "https://www.example.com",
  };
  worker = await startWorker(config, logger, { rootDir: ROOT });
  const ops = await startWorkerOps({ ...config, ops: OPS }, worker, logger);
  if (!ops) throw new Error("the worker's ops listener did not start");
  workerOps = ops;
}, 60_000);

afterAll(async () => {
  await workerOps?.close();
  await worker?.close();
  await webhook?.close();
  await content?.stop();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await siteDir?.remove();
});

/** Parses Prometheus' text format strictly enough that a malformed line fails: name{labels} value. */
function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ") || line.startsWith("# TYPE ")) continue;
    const match =
      /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`);
    // Go's ParseFloat, which Prometheus uses, also reads NaN in any case (Node's metrics emit "Nan").
    const raw = match[3] as string;
    const value = /^nan$/i.test(raw) ? Number.NaN : Number(raw === "+Inf" ? Infinity : raw);
    if (Number.isNaN(value) && !/^nan$/i.test(raw)) throw new Error(`not a number: ${JSON.stringify(line)}`);
    samples.set(`${match[1]}${match[2] ?? ""}`, value);
  }
  return samples;
}

async function scrape(opsUrl: string): Promise<Map<string, number>> {
  const response = await fetch(`${opsUrl}/_pressroom/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(await response.text());
}

/** The sum of every series of `name` whose labels contain `labels` (e.g. `outcome="accepted"`). */
function total(samples: Map<string, number>, name: string, labels = ""): number {
  let sum = 0;
  for (const [key, value] of samples) if (key.startsWith(name) && key.includes(labels)) sum += value;
  return sum;
}

async function untilIndexAt(ref: string) {
  await expect
    .poll(() => redis.hget(`${PREFIX}:index:meta`, "ref"), { timeout: 60_000, interval: 100 })
    .toBe(ref);
}

describe("metrics", () => {
  it("serves Prometheus text on the ops listeners only, with Node's own metrics and the queues", async () => {
    const samples = await scrape(workerOps.url);
    expect(samples.has("process_cpu_user_seconds_total")).toBe(true);
    expect([...samples.keys()].some((key) => key.startsWith("nodejs_eventloop_lag_seconds"))).toBe(true);
    expect(samples.has('pressroom_queue_jobs{queue="pressroom",state="waiting"}')).toBe(true);
    expect(samples.has('pressroom_queue_oldest_waiting_seconds{queue="pressroom-render"}')).toBe(true);
    await scrape(webhook.opsUrl as string);
    // Never on the public port: there it is a 404 like any unknown path.
    expect((await fetch(`${webhook.url}/_pressroom/metrics`)).status).toBe(404);
  });

  it("moves the publish-to-live histogram, deliveries and routes when an edit is published", async () => {
    await untilIndexAt(content.store.masterRef); // the worker's first reconcile: a diff build
    const before = await scrape(workerOps.url);
    const services = JSON.parse(
      readFileSync(`${ROOT}services/local-prismic/demo/documents/${SERVICES}.json`, "utf8"),
    ) as { data: Record<string, unknown> };
    const edited = { ...services, data: { ...services.data, meta_title: "Services, measured" } };
    const published = await fetch(`${content.url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ upsert: [edited] }),
    });
    expect(published.status).toBe(200);
    await untilIndexAt(content.store.masterRef);
    await expect
      .poll(async () => total(await scrape(workerOps.url), "pressroom_publish_to_live_seconds_count"), {
        timeout: 30_000,
        interval: 200,
      })
      .toBe(total(before, "pressroom_publish_to_live_seconds_count") + 1);

    const after = await scrape(workerOps.url);
    const delta = (name: string, labels = "") => total(after, name, labels) - total(before, name, labels);
    expect(delta("pressroom_webhook_deliveries_total", 'outcome="accepted"')).toBe(1);
    expect(delta("pressroom_publish_duration_seconds_count", 'mode="incremental"')).toBe(1);
    expect(delta("pressroom_routes_total", 'outcome="written"')).toBeGreaterThanOrEqual(1);
    expect(delta("pressroom_render_duration_seconds_count", 'process="worker"')).toBeGreaterThanOrEqual(1);
    expect(delta("pressroom_storage_operations_total", 'operation="put"')).toBeGreaterThanOrEqual(1);
    expect(delta("pressroom_content_api_requests_total", 'status="200"')).toBeGreaterThanOrEqual(1);
    expect(total(after, "pressroom_reconcile_runs_total", 'action="diff-build"')).toBeGreaterThanOrEqual(1);
    // The publish claimed its delivery's acceptance time: nothing left to be counted twice.
    expect(await redis.zcard(acceptedKey(PREFIX))).toBe(0);
  }, 90_000);
});

describe("metrics of a publish reconcile runs", () => {
  it("count a webhook's edit that a reconcile round published, once, and leave no acceptance behind", async () => {
    await untilWorkerSettled(redis, PREFIX, content.store.masterRef);
    const before = await scrape(workerOps.url);
    const services = JSON.parse(
      readFileSync(`${ROOT}services/local-prismic/demo/documents/${SERVICES}.json`, "utf8"),
    ) as { data: Record<string, unknown> };
    // Published without a webhook; then recorded as the receiver records a delivery (pending id and
    // acceptance time in one transaction) whose job never runs: a reconcile round publishes it.
    await content.store.publish({
      upsert: [{ ...services, data: { ...services.data, meta_title: "Services, reconciled" } }],
    });
    const accepted = redis.multi().sadd(redisKeys(PREFIX).pendingIds, SERVICES);
    recordAccepted(accepted, PREFIX);
    await accepted.exec();
    const outcome = await worker.reconcileNow();
    expect(outcome.action).toBe("publish");

    const after = await scrape(workerOps.url);
    const delta = (name: string, labels = "") => total(after, name, labels) - total(before, name, labels);
    expect(delta("pressroom_publish_to_live_seconds_count")).toBe(1);
    expect(delta("pressroom_publish_duration_seconds_count", 'mode="incremental"')).toBe(1);
    expect(delta("pressroom_routes_total", 'outcome="written"')).toBeGreaterThanOrEqual(1);
    expect(await redis.zcard(acceptedKey(PREFIX))).toBe(0);
  }, 90_000);
});

describe("health and readiness", () => {
  it("is ready when Redis, storage and the content API answer and publishing is not stalled", async () => {
    const ready = await fetch(`${workerOps.url}/_pressroom/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: "ok",
      checks: { redis: "ok", storage: "ok", content: "ok", publishing: "ok" },
    });
    expect((await fetch(`${webhook.opsUrl}/_pressroom/readyz`)).status).toBe(200);
    expect((await fetch(`${webhook.url}/_pressroom/readyz`)).status).toBe(200);
    expect((await fetch(`${workerOps.url}/_pressroom/healthz`)).status).toBe(200);
  });

  it("answers 503 naming Redis while Redis is unreachable (the site: degraded), and stays alive", async () => {
    const down = await startWebhook(webhookConfig(NO_REDIS), logger);
    const site = await startSite(
      {
        host: "127.0.0.1",
        port: 0,
        logLevel: "silent",
        storage: { url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" },
        siteUrl: "https://www.example.com",
        redisUrl: NO_REDIS,
        queuePrefix: PREFIX,
        contactRateLimit: 5,
        trustProxy: false,
        ops: OPS,
      },
      logger,
      createMemoryStore(),
    );
    try {
      for (const url of [down.opsUrl, down.url]) {
        const ready = await fetch(`${url}/_pressroom/readyz`);
        expect(ready.status).toBe(503);
        expect(ready.headers.get("cache-control")).toBe("no-store");
        expect(await ready.json()).toEqual({ status: "unavailable", checks: { redis: "failed" } });
        expect((await fetch(`${url}/_pressroom/healthz`)).status).toBe(200);
      }
      // The site serves its pages without Redis: ready, degraded (only the contact form needs it).
      for (const url of [site.opsUrl, site.url]) {
        const ready = await fetch(`${url}/_pressroom/readyz`);
        expect(ready.status).toBe(200);
        expect(await ready.json()).toEqual({
          status: "degraded",
          checks: { storage: "ok", "contact-queue": "failed" },
        });
      }
      // Not configured: no dashboard, whoever asks.
      expect((await fetch(`${down.opsUrl}/_pressroom/queues`)).status).toBe(404);
    } finally {
      await site.close();
      await down.close();
    }
  });
});

describe("a taken ops port", () => {
  it("leaves the process serving, without metrics, and says so", async () => {
    const taken = Number(new URL(webhook.opsUrl as string).port);
    const lines: string[] = [];
    const sink = { write: (line: string) => lines.push(line) };
    const second = await startWebhook(
      { ...webhookConfig("redis://127.0.0.1:6379", QUEUES), ops: { host: "127.0.0.1", port: taken } },
      pino({ level: "info" }, sink),
    );
    try {
      expect(second.opsUrl).toBeUndefined();
      expect((await fetch(`${second.url}/_pressroom/readyz`)).status).toBe(200);
      expect(lines.join("\n")).toContain("ops listener not started: the port is taken");
      // Let the queues' connections the listener had opened settle: nothing may crash the process.
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await second.close();
    }
  });
});

describe("queue dashboard", () => {
  const basic = (user: string, password: string) =>
    `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

  it("asks for credentials, refuses wrong ones, and shows the queues with the right ones", async () => {
    const url = `${webhook.opsUrl}/_pressroom/queues`;
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Basic realm="pressroom queues"/);
    expect(
      (await fetch(url, { headers: { authorization: basic(QUEUES.user, "wrong-password!") } })).status,
    ).toBe(401);
    expect((await fetch(`${url}/api/queues`)).status).toBe(401);

    const auth = { authorization: basic(QUEUES.user, QUEUES.password) };
    const page = await fetch(url, { headers: auth });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<title>");
    const api = await fetch(`${url}/api/queues`, { headers: auth });
    expect(api.status).toBe(200);
    const names = ((await api.json()) as { queues: { name: string }[] }).queues.map((queue) => queue.name);
    expect(names.sort()).toEqual([
      "pressroom",
      "pressroom-contact",
      "pressroom-reconcile",
      "pressroom-render",
    ]);
    // Never on the public port.
    expect((await fetch(`${webhook.url}/_pressroom/queues`, { headers: auth })).status).toBe(404);
  });
});
