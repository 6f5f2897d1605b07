/**
 * What operators see when publishing is stuck, and when the commands that inspect it cannot reach
 * Redis. Storage (s3rver behind a TCP proxy) reads but refuses every write as a full MinIO does
 * (507 Insufficient Storage) while an edit waits: Redis, storage and the content API all still
 * answer their readiness checks, yet every publish attempt fails. `pressroom status` names the last
 * failure and its error, the worker's readiness turns unhealthy once deliveries have waited past the
 * stall time with no publish completed, and so does the `pressroom_publish_stalled` metric; when
 * writes are taken again, the retry publishes and all three say so. Real Redis, the real receiver,
 * worker and its ops listener, the local content service.
 */
import { readFileSync } from "node:fs";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
import { UnreachableError } from "#errors";
import { createSiteStore, type SiteStore } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { planCommand, statusCommand } from "#worker/inspect.ts";
import { startWorkerOps, type WorkerOps } from "#worker/ops/worker-ops.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { runPressroom } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { type S3Server, startS3rver } from "../support/s3rver.ts";
import { type TcpProxy, tcpProxy } from "../support/tcp-proxy.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { documentPublished } from "../support/webhook-bodies.ts";
import { webhookOptions } from "../support/webhook-options.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO = `${ROOT}services/local-prismic/demo/documents/`;
const PREFIX = `test-stalled-${process.pid}-${Date.now()}`;
const SECRET = "stalled-secret";
const ABOUT = "Z9nWuhEAACMAx1Cc";
/** The stall time, short for the test (in production PUBLISH_STALL_MS). */
const STALL_MS = 2_000;
const demo = (id: string) => JSON.parse(readFileSync(`${DEMO}${id}.json`, "utf8"));

let content: LocalPrismic;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let worker: RunningWorker;
let ops: WorkerOps;
let s3: S3Server;
let s3Dir: { path: string; remove: () => Promise<void> };
let proxy: TcpProxy;
/** While true, the proxy answers every write to storage 507, as a full disk behind MinIO does. */
let storageFull = false;
let redis: Redis;
let store: SiteStore;
let config: PublisherConfig;

const readiness = async () => {
  const answer = await fetch(`${ops.url}/_pressroom/readyz`);
  return { status: answer.status, body: (await answer.json()) as { checks?: Record<string, string> } };
};
const stalledMetric = async () => {
  const text = await (await fetch(`${ops.url}/_pressroom/metrics`)).text();
  return /^pressroom_publish_stalled (\d)/m.exec(text)?.[1];
};

beforeAll(async () => {
  s3Dir = await tempDir("stalled-s3");
  s3 = await startS3rver(s3Dir.path);
  const s3Port = Number(new URL(s3.endpoint).port);
  proxy = await tcpProxy(0, s3Port, {
    toServer: (upstream, chunk, client) => {
      if (storageFull && /^(PUT|POST|DELETE) /.test(chunk.toString("latin1", 0, 8))) {
        client.end("HTTP/1.1 507 Insufficient Storage\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        upstream.destroy();
      } else upstream.write(chunk);
    },
  });
  process.env.AWS_ACCESS_KEY_ID = s3.credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = s3.credentials.secretAccessKey;
  const raw = new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: s3.credentials,
  });
  await raw.send(new CreateBucketCommand({ Bucket: "site" }));
  raw.destroy();
  redis = new Redis({ maxRetriesPerRequest: null });
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), pino({ level: "silent" }));
  content = await startLocalPrismic();
  config = {
    logLevel: "silent",
    prismic: contentConfig(content.endpoint, { cacheTtlMs: 0 }),
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    storage: { url: "s3://site/www", s3Endpoint: `http://127.0.0.1:${proxy.port}`, s3Region: "us-east-1" },
    siteUrl: "https://www.example.com",
  };
  const logger = pino({ level: "silent" });
  worker = await startWorker(config, logger, { rootDir: ROOT, reconcileEveryMs: 3_600_000 });
  const started = await startWorkerOps(
    { ...config, ops: { host: "127.0.0.1", port: 0 } },
    worker,
    logger,
    STALL_MS,
  );
  if (!started) throw new Error("the worker's ops listener did not start");
  ops = started;
  store = createSiteStore(config.storage);
  await untilWorkerSettled(redis, PREFIX, content.store.masterRef);
}, 90_000);

afterAll(async () => {
  await ops?.close();
  await worker?.close();
  await webhook?.close();
  await content?.stop();
  await store?.close();
  await proxy?.close();
  await s3?.stop();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await s3Dir?.remove();
});

describe("a publish that fails at every attempt (storage full)", () => {
  it("is named in status, turns readiness and the stall metric unhealthy, and recovers when writes are taken again", async () => {
    expect((await readiness()).status).toBe(200);
    storageFull = true;
    const doc = demo(ABOUT);
    await content.store.publish({
      upsert: [{ ...doc, data: { ...doc.data, meta_title: "About, while storage is full" } }],
    });
    const ref = content.store.masterRef;
    expect(
      (
        await webhook.app.inject({
          method: "POST",
          url: "/webhooks/prismic",
          payload: documentPublished({ domain: "demo", secret: SECRET }, ref, ABOUT),
        })
      ).statusCode,
    ).toBe(200);

    await until("readiness unhealthy", async () => (await readiness()).status === 503, { timeoutMs: 20_000 });
    expect((await readiness()).body.checks?.publishing).toBe("failed");
    expect(await stalledMetric()).toBe("1");
    const status = await statusCommand(config, STALL_MS);
    expect(status).toMatch(/publishing: +publishing stalled: 1 waiting/);
    expect(status).toMatch(
      // The store's error names the write and the key; its cause is the 507, or the connection the
      // proxy closed under a body still being sent (the SDK reports whichever it sees first).
      /last failure: +\S+ by \S+ \(\d+ failed attempts? since the last publish\): Storage put of "[^"]+" in s3:\/\/site\/www failed: /,
    );

    expect((await readiness()).body.checks).toMatchObject({ redis: "ok", storage: "ok", content: "ok" });

    // Writes taken again: the next retry publishes, and everything says so.
    storageFull = false;
    await until(
      "the edit published once storage takes writes",
      async () =>
        ((await store.get("about/index.html"))?.body.toString() ?? "").includes(
          "About, while storage is full",
        ),
      { timeoutMs: 60_000 },
    );
    await until("readiness healthy again", async () => (await readiness()).status === 200, {
      timeoutMs: 10_000,
    });
    expect(await stalledMetric()).toBe("0");
    const after = await statusCommand(config, STALL_MS);
    expect(after).toMatch(/publishing: +ok/);
    expect(after).not.toContain("last failure:");
  }, 120_000);
});

describe("status and plan without Redis", () => {
  const withoutRedis = () => ({ ...config, redisUrl: "redis://127.0.0.1:1" });

  it("status and plan say in one line that Redis is unreachable, status with what storage still tells", async () => {
    const error = await statusCommand(withoutRedis()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnreachableError);
    expect((error as UnreachableError).message).toMatch(
      /^Redis is unreachable at redis:\/\/127\.0\.0\.1:1.*REDIS_URL names it$/,
    );
    expect((error as UnreachableError).facts.join("\n")).toMatch(/^storage: +\d+ routes at ref \S+, built /);
    const planned = await planCommand(withoutRedis(), [ABOUT]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(planned).toBeInstanceOf(UnreachableError);
  });

  it("the commands exit 69 with one line and no stack trace", async () => {
    const env = {
      PRISMIC_REPOSITORY: "demo",
      PRISMIC_ENDPOINT: content.endpoint,
      REDIS_URL: "redis://127.0.0.1:1",
      QUEUE_PREFIX: PREFIX,
      STORAGE_URL: "s3://site/www",
      S3_ENDPOINT: `http://127.0.0.1:${proxy.port}`,
      SITE_URL: "https://www.example.com",
      LOG_LEVEL: "silent",
    };
    for (const args of [["status"], ["plan", ABOUT]]) {
      const { code, output } = await runPressroom(args, env);
      expect(code, output).toBe(69);
      expect(output).toMatch(new RegExp(`pressroom ${args[0]}: Redis is unreachable at redis://127.0.0.1:1`));
      expect(output).not.toMatch(/\n\s+at /); // no stack frame
    }
    expect((await runPressroom(["status"], env)).output).toMatch(/storage: +\d+ routes at ref/);
  }, 60_000);
});
