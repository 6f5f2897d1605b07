/**
 * Waits with a bound: the content API answering 429 with `Retry-After: 3600` must not freeze
 * publishing for an hour with the worker asleep in the job, holding the publish lock. A wait longer
 * than PRISMIC_RATE_LIMIT_MAX_WAIT_MS fails the job at once: the lock is released, the job is
 * retried when the content API said, `pressroom status` and a metric say until when; and SIGTERM
 * ends a worker waiting on a shorter 429 within seconds. A real worker process, real Redis, the
 * local content service behind a real HTTP server that answers 429 when told to.
 */
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { startWebhook } from "#webhook/server.ts";
import { statusCommand } from "#worker/inspect.ts";
import { type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { type PressroomProcess, startPressroom } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { webhookOptions } from "../support/webhook-options.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";

const PREFIX = `test-api-wait-${process.pid}-${Date.now()}`;
const SECRET = "content-api-wait-secret";
const SERVICES = "Z9nWvBEAACQAx1Dd";
const MAX_WAIT_MS = 30_000;

let content: LocalPrismic;
let proxy: HttpFixture;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let worker: PressroomProcess;
let site: { path: string; remove: () => Promise<void> };
let redis: Redis;
let queue: Queue;
/** Seconds of `Retry-After` on every 429; undefined: the content service answers. */
let retryAfter: number | undefined;
/** When the proxy last answered 429 (epoch ms). */
let limitedAt = 0;
let env: Record<string, string>;

const keys = redisKeys(PREFIX);
const hhmmss = (epochMs: number) => new Date(epochMs).toISOString().slice(11, 19);

async function editServices(metaTitle: string): Promise<string> {
  const doc = content.store.masterDocuments.find((d) => d.id === SERVICES);
  const answer = await fetch(`${content.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ upsert: [{ ...doc, data: { ...doc?.data, meta_title: metaTitle } }] }),
  });
  expect(answer.status).toBe(200);
  return content.store.masterRef;
}

beforeAll(async () => {
  site = await tempDir("api-wait-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  queue = new Queue(QUEUE_NAME, { connection: redis, prefix: PREFIX });
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), pino({ level: "silent" }));
  content = await startLocalPrismic({ webhookUrl: `${webhook.url}/webhooks/prismic`, webhookSecret: SECRET });
  proxy = await startHttpFixture(async (request, response) => {
    if (retryAfter !== undefined) {
      limitedAt = Date.now();
      response.writeHead(429, { "content-type": "application/json", "retry-after": String(retryAfter) });
      response.end(JSON.stringify({ message: "Too many requests" }));
      return;
    }
    const upstream = await fetch(`${content.url}${request.url}`);
    const body = (await upstream.text()).replaceAll(content.url, proxy.url);
    response.writeHead(upstream.status, { "content-type": "application/json" }).end(body);
  });
  env = {
    PRISMIC_ENDPOINT: `${proxy.url}/api/v2`,
    PRISMIC_CACHE_TTL_MS: "0",
    PRISMIC_RATE_LIMIT_MAX_WAIT_MS: String(MAX_WAIT_MS),
    REDIS_URL: "redis://127.0.0.1:6379",
    QUEUE_PREFIX: PREFIX,
    STORAGE_URL: `file://${site.path}`,
    SITE_URL: "https://www.example.com",
    OPS_PORT: "0",
  };
  worker = startPressroom(["serve", "worker"], env);
  await worker.waitFor(/^worker started/, 60_000);
  await untilWorkerSettled(redis, PREFIX, content.store.masterRef);
}, 120_000);

afterAll(async () => {
  await worker?.stop("SIGKILL");
  await webhook?.close();
  await content?.stop();
  await proxy?.close();
  await queue?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await site?.remove();
});

describe("the content API asks for a long wait (429, Retry-After: 3600)", () => {
  it("fails the publish at once, releasing the lock, retried when the API said; status and the metric say until when", async () => {
    retryAfter = 3600;
    const ref = await editServices("Services, rate limited");
    const jobId = `publish-${ref}`;
    // The job failed its first attempt and waits, delayed, for its retry.
    const job = await until(
      "the publish to fail and wait for its retry",
      async () => {
        const found = await queue.getJob(jobId);
        return found && found.attemptsMade >= 1 && (await found.getState()) === "delayed" ? found : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(job.failedReason).toMatch(/Unexpected status code \[429\].*wait until/);
    const untilMs = limitedAt + 3_600_000;
    // No one holds the publish lock: another publish could run (it would meet the same 429).
    expect(await redis.exists(keys.publishLock)).toBe(0);
    // BullMQ retries it when the content API said, not after its exponential second.
    const score = Number(await redis.zscore(`${PREFIX}:${QUEUE_NAME}:delayed`, jobId));
    const retryAt = Math.floor(score / 0x1000);
    expect(Math.abs(retryAt - untilMs)).toBeLessThan(2_000);

    const status = await statusCommand(loadConfig("publisher", env));
    const line = status.split("\n").find((l) => l.startsWith("content API:"));
    expect(line).toMatch(/waiting for the content API until \d\d:\d\d:\d\d \(429\)$/);
    const shown = /until (\d\d):(\d\d):(\d\d)/
      .exec(line ?? "")
      ?.slice(1)
      .map(Number) as number[];
    const expected = hhmmss(untilMs).split(":").map(Number);
    const seconds = ([h, m, s]: number[]) => (h ?? 0) * 3600 + (m ?? 0) * 60 + (s ?? 0);
    expect(Math.abs(seconds(shown) - seconds(expected))).toBeLessThanOrEqual(2);

    const opsUrl = (await worker.waitFor(/ops listener on (http:\/\/\S+)/, 1_000))[1];
    const metrics = await (await fetch(`${opsUrl}/_pressroom/metrics`)).text();
    const wait = Number(/^pressroom_content_api_wait_seconds (\S+)$/m.exec(metrics)?.[1]);
    expect(wait).toBeGreaterThan(3_500);
    expect(wait).toBeLessThanOrEqual(3_600);
  }, 30_000);

  it("ends the worker within 10 s of SIGTERM while it waits on a shorter 429 holding the lock", async () => {
    retryAfter = 25; // within the bound (30 s): waited in place, holding the publish lock
    const waits = worker.messages.filter((m) => m === "content API rate limit, retrying").length;
    await editServices("Services, rate limited again");
    await until(
      "the worker to wait on the 429",
      async () =>
        worker.messages.filter((m) => m === "content API rate limit, retrying").length > waits || undefined,
      { timeoutMs: 15_000 },
    );
    expect(await redis.exists(keys.publishLock)).toBe(1);
    const signalled = performance.now();
    await worker.stop("SIGTERM");
    const seconds = (performance.now() - signalled) / 1000;
    console.log(`worker waiting on a 429 (Retry-After: 25): exited ${seconds.toFixed(2)} s after SIGTERM`);
    expect(worker.child.exitCode).toBe(0);
    expect(seconds).toBeLessThan(10);
    expect(worker.messages).toContain("job interrupted by the shutdown; it is retried");
  }, 40_000);

  it("ends the preview server within 10 s of SIGTERM while a page waits on a 429", async () => {
    retryAfter = undefined; // the preview server probes the API as it starts
    const preview = startPressroom(["serve", "preview"], { ...env, PORT: "0", OPS_PORT: "off" });
    try {
      const url = (await preview.waitFor(/preview server listening on (http:\/\/\S+)/, 60_000))[1];
      retryAfter = 25; // within the bound: the page's request waits in place
      const asked = proxy.requests.length;
      const page = fetch(`${url}/about`).then(
        (answer) => answer.status,
        () => "no answer",
      );
      await until("the page's request", async () => (proxy.requests.length > asked ? true : undefined), {
        timeoutMs: 10_000,
      });
      const signalled = performance.now();
      await preview.stop("SIGTERM");
      const seconds = (performance.now() - signalled) / 1000;
      console.log(
        `preview server with a page waiting on a 429: exited ${seconds.toFixed(2)} s after SIGTERM`,
      );
      expect(seconds).toBeLessThan(10);
      // The page in flight is answered (the site's 503 page) or cut, never left waiting.
      expect([503, "no answer"]).toContain(await page);
    } finally {
      await preview.stop("SIGKILL");
    }
  }, 60_000);
});
