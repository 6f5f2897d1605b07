/**
 * What losing Redis costs (docs/operations.md): nothing the site needs. A worker builds and publishes
 * on a Redis of this test's own; Redis dies with everything in it (queues, pending ids, the index),
 * an edit is published while it is gone (its webhook is refused), and an empty Redis comes back on
 * the same address. A worker started on it rebuilds the index with a diff build, and storage ends
 * byte for byte equal to a full build at the newest master ref: the lost edit included.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSiteStore, type SiteStore } from "#storage";
import { freePort } from "../support/free-port.ts";
import { expectEqualsFullBuild, siteObjects } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { type PressroomProcess, startPressroom } from "../support/pressroom-process.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SECRET = "redis-lost-test-webhook-secret";
const SITE_URL = "https://www.example.com";
const PREFIX = "pressroom";
const SERVICES = "Z9nWvBEAACQAx1Dd";
const services = () =>
  JSON.parse(readFileSync(`${ROOT}services/local-prismic/demo/documents/${SERVICES}.json`, "utf8")) as {
    data: Record<string, unknown>;
  };

let port: number;
let redisServer: ChildProcess | undefined;
let content: LocalPrismic;
let webhook: PressroomProcess;
let site: { path: string; remove: () => Promise<void> };
let store: SiteStore;
const processes: PressroomProcess[] = [];

/** A private, empty redis-server on `port` (no persistence: losing it loses everything). */
async function startRedis(): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--maxmemory-policy",
      "noeviction",
    ],
    { stdio: "ignore" },
  );
  const probe = new Redis(port, "127.0.0.1", {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on("error", () => undefined);
  await until(
    "redis-server to answer",
    async () => {
      await probe.connect();
      return (await probe.ping()) === "PONG";
    },
    { timeoutMs: 5_000, ignoreErrors: true },
  );
  probe.disconnect();
  return child;
}

function startWorker(): PressroomProcess {
  const worker = startPressroom(["serve", "worker"], {
    PRISMIC_ENDPOINT: content.endpoint,
    REDIS_URL: `redis://127.0.0.1:${port}`,
    QUEUE_PREFIX: PREFIX,
    STORAGE_URL: `file://${site.path}`,
    SITE_URL,
    OPS_PORT: "off",
  });
  processes.push(worker);
  return worker;
}

async function indexRef(): Promise<string | null> {
  const redis = new Redis(port, "127.0.0.1", { maxRetriesPerRequest: 1 });
  try {
    return await redis.hget(`${PREFIX}:index:meta`, "ref");
  } finally {
    redis.disconnect();
  }
}

async function publishTitle(title: string): Promise<void> {
  const doc = services();
  const answer = await fetch(`${content.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ upsert: [{ ...doc, data: { ...doc.data, meta_title: title } }] }),
  });
  expect(answer.status).toBe(200);
}

beforeAll(async () => {
  port = await freePort();
  redisServer = await startRedis();
  site = await tempDir("redis-lost-site");
  store = createSiteStore({ url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
  webhook = startPressroom(["serve", "webhook"], {
    WEBHOOK_SECRET: SECRET,
    REDIS_URL: `redis://127.0.0.1:${port}`,
    QUEUE_PREFIX: PREFIX,
    PORT: "0",
    OPS_PORT: "off",
  });
  processes.push(webhook);
  const url = (await webhook.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1];
  content = await startLocalPrismic({ webhookUrl: `${url}/webhooks/prismic`, webhookSecret: SECRET });
}, 90_000);

afterAll(async () => {
  for (const running of processes) await running.stop("SIGKILL").catch(() => undefined);
  redisServer?.kill("SIGKILL");
  await content?.stop();
  await store?.close();
  await site?.remove();
});

describe("Redis lost with everything in it", () => {
  it("costs nothing the site needs: an empty Redis and a worker rebuild it, the lost edit included", async () => {
    const first = startWorker();
    await until("the first build", async () => (await indexRef()) === content.store.masterRef, {
      timeoutMs: 90_000,
      intervalMs: 100,
      ignoreErrors: true,
    });
    await publishTitle("Services, before the loss");
    await until("the first publish", async () => (await indexRef()) === content.store.masterRef, {
      timeoutMs: 60_000,
      intervalMs: 100,
      ignoreErrors: true,
    });

    // Redis dies, and the worker with it (a machine lost); an edit is published meanwhile.
    redisServer?.kill("SIGKILL");
    if (redisServer) await once(redisServer, "exit");
    await first.stop("SIGKILL");
    await publishTitle("Services, published while Redis was gone");

    redisServer = await startRedis();
    expect(await indexRef()).toBeNull();
    startWorker();
    await until("the rebuild", async () => (await indexRef()) === content.store.masterRef, {
      timeoutMs: 90_000,
      intervalMs: 100,
      ignoreErrors: true,
    });

    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
    const page = Buffer.from(
      (await siteObjects(store)).get("services/index.html") ?? "",
      "base64",
    ).toString();
    expect(page).toContain("Services, published while Redis was gone");
  }, 240_000);
});
