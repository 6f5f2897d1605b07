/**
 * Fault: a worker paused (SIGSTOP, as a VM freeze or a long GC does) while it holds a
 * publish. Another worker must take the publish over within 1.5 × WORKER_LOCK_MS and 3 s (15 s at
 * the default 8 s; 9 s at the 4 s set here) — both the publish lock and BullMQ's job lock expire
 * and BullMQ's stalled check, every half of it, hands the job on — and
 * the paused worker, resumed (SIGCONT) after a newer publish, must write nothing stale: it renders
 * the content it had fetched before the pause, and the generation guard refuses its writes. Storage
 * ends equal to a fresh full build at the newest master ref. Two real worker processes, real Redis,
 * a folder, the local content service behind one HTTP proxy per worker (a request of the publish is
 * held there, so the pause falls between its fetch and its writes).
 */
import { QueueEvents } from "bullmq";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { type PressroomProcess, startPressroom } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { webhookOptions } from "../support/webhook-options.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";

const PREFIX = `test-fault-paused-${process.pid}-${Date.now()}`;
const SECRET = "fault-paused-worker-secret";
const SITE_URL = "https://www.example.com";
const SERVICES = "Z9nWvBEAACQAx1Dd";
const keys = redisKeys(PREFIX);
/** The workers' WORKER_LOCK_MS (8 s by default), which the takeover waits out. */
const LOCK_MS = 4_000;
/** How soon another worker must have taken the publish over, in seconds (docs/configuration.md). */
const TAKEOVER_S = (1.5 * LOCK_MS) / 1000 + 3;

/** A proxy to the content service that, when armed, holds the next search until released. */
interface HoldingProxy {
  fixture: HttpFixture;
  armed: boolean;
  held?: () => Promise<void>;
}

let content: LocalPrismic;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let site: { path: string; remove: () => Promise<void> };
let redis: Redis;
let store: SiteStore;
/** The publish queue's events, for the takeover's timeline (BullMQ's stalled check, then the taker). */
let events: QueueEvents;
const proxies: HoldingProxy[] = [];
const workers: PressroomProcess[] = [];

async function holdingProxy(): Promise<HoldingProxy> {
  const proxy: HoldingProxy = { armed: false } as HoldingProxy;
  proxy.fixture = await startHttpFixture(async (request, response) => {
    const answer = async () => {
      const upstream = await fetch(`${content.url}${request.url}`);
      // The API root names where to search: through this proxy. Documents keep their own URLs (the
      // images'), so that both workers render the bytes a full build against the service renders.
      const root = new URL(request.url, content.url).pathname === "/api/v2";
      const text = await upstream.text();
      const body = root ? text.replaceAll(content.url, proxy.fixture.url) : text;
      response.writeHead(upstream.status, { "content-type": "application/json" }).end(body);
    };
    if (proxy.armed && request.url.startsWith("/api/v2/documents/search")) {
      proxy.armed = false;
      proxy.held = answer;
      return;
    }
    await answer();
  });
  proxies.push(proxy);
  return proxy;
}

function startWorker(proxy: HoldingProxy): PressroomProcess {
  const worker = startPressroom(["serve", "worker"], {
    PRISMIC_ENDPOINT: `${proxy.fixture.url}/api/v2`,
    PRISMIC_CACHE_TTL_MS: "0",
    // The request held across the pause must not time out when the worker resumes: it is the
    // stale content the guard has to refuse.
    PRISMIC_TIMEOUT_MS: "120000",
    WORKER_LOCK_MS: String(LOCK_MS),
    REDIS_URL: "redis://127.0.0.1:6379",
    QUEUE_PREFIX: PREFIX,
    STORAGE_URL: `file://${site.path}`,
    SITE_URL,
    OPS_PORT: "off",
  });
  workers.push(worker);
  return worker;
}

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

/** The last publish as `pressroom status` shows it. */
async function lastPublish(): Promise<
  { ref: string; by: string; startedAt: number; at: string } | undefined
> {
  const raw = await redis.get(keys.lastPublish);
  return raw ? JSON.parse(raw) : undefined;
}

beforeAll(async () => {
  site = await tempDir("fault-paused-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  events = new QueueEvents(QUEUE_NAME, { connection: { host: "127.0.0.1", port: 6379 }, prefix: PREFIX });
  await events.waitUntilReady();
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), pino({ level: "silent" }));
  content = await startLocalPrismic({ webhookUrl: `${webhook.url}/webhooks/prismic`, webhookSecret: SECRET });
  store = createSiteStore({ url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
  const [a, b] = [await holdingProxy(), await holdingProxy()];
  for (const worker of [startWorker(a), startWorker(b)]) await worker.waitFor(/^worker started/, 60_000);
  await untilWorkerSettled(redis, PREFIX, content.store.masterRef);
}, 180_000);

afterAll(async () => {
  await events?.close();
  for (const worker of workers) {
    worker.child.kill("SIGCONT");
    await worker.stop("SIGKILL");
  }
  await webhook?.close();
  for (const proxy of proxies) await proxy.fixture.close();
  await content?.stop();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await site?.remove();
});

describe("a worker paused (SIGSTOP) while it holds a publish", () => {
  it(`is taken over within ${TAKEOVER_S} s, and writes nothing stale when it resumes: storage equals a full build`, async () => {
    for (const proxy of proxies) proxy.armed = true;
    const first = await editServices("Services, edition 1");
    // Whichever worker took the publish now waits on its proxy, between its fetch and its writes.
    const holder = await until(
      "a worker to take the publish",
      async () => proxies.findIndex((proxy) => proxy.held !== undefined) + 1 || undefined,
      { timeoutMs: 15_000, intervalMs: 20 },
    );
    for (const proxy of proxies) proxy.armed = false;
    const [paused, taker] = holder === 1 ? [workers[0], workers[1]] : [workers[1], workers[0]];
    if (!paused || !taker) throw new Error("two workers expected");
    const heldBy = proxies[holder - 1] as HoldingProxy;
    paused.child.kill("SIGSTOP");
    const pausedAt = Date.now();
    // When BullMQ's stalled check handed a job back, and when a worker took one: if the takeover is
    // late, which of the two steps was.
    const timeline: string[] = [];
    const mark = (what: string) => timeline.push(`${what} ${((Date.now() - pausedAt) / 1000).toFixed(1)} s`);
    events.on("stalled", ({ jobId }) => mark(`job ${jobId} stalled (moved back to wait)`));
    events.on("active", ({ jobId }) => mark(`job ${jobId} active`));

    // No new delivery: the taker gets the job only from BullMQ's stalled check, and the publish
    // only once the paused holder's lock expired.
    const takeover = await until(
      "another worker to publish the paused worker's ids",
      async () => {
        const last = await lastPublish();
        return last?.ref === first && last.by.endsWith(`:${taker.pid}`) ? last : undefined;
      },
      { timeoutMs: 40_000, intervalMs: 20 },
    );
    const startedAfter = (takeover.startedAt - pausedAt) / 1000;
    const liveAfter = (Date.parse(takeover.at) - pausedAt) / 1000;
    const story = `paused holder: taken over ${startedAfter.toFixed(1)} s after SIGSTOP, live ${liveAfter.toFixed(1)} s after (${timeline.join("; ")})`;
    console.log(story);
    events.removeAllListeners();
    expect(startedAfter, story).toBeLessThanOrEqual(TAKEOVER_S);

    // A newer publish while the holder is still paused.
    const second = await editServices("Services, edition 2");
    await until("the newer publish", async () => ((await lastPublish())?.ref === second ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 20,
    });
    expect((await store.get("services/index.html"))?.body.toString()).toContain("Services, edition 2");

    // Resumed, the paused worker gets the answer it asked for before the pause (edition 1) and goes
    // on: renders it, tries to write it, is refused, and drops the publish.
    const messagesBefore = paused.messages.length;
    paused.child.kill("SIGCONT");
    await heldBy.held?.();
    await paused.waitFor(/^writes? refused: a newer publish owns/, 20_000);
    await paused.waitFor(/^superseded: another worker took this over/, 20_000);
    const dropped = paused.records.slice(messagesBefore).find((r) => String(r.msg).startsWith("superseded"));
    expect(JSON.stringify(dropped)).toContain("was superseded by a newer publish");

    expect((await store.get("services/index.html"))?.body.toString()).toContain("Services, edition 2");
    expect((await lastPublish())?.ref).toBe(second);
    expect(await redis.hget(`${PREFIX}:index:meta`, "ref")).toBe(second);
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);

    // Both stop on SIGTERM well within 10 s.
    for (const worker of [taker, paused]) {
      const signalled = performance.now();
      await worker.stop("SIGTERM");
      const seconds = (performance.now() - signalled) / 1000;
      console.log(`worker ${worker.pid}: exited ${seconds.toFixed(2)} s after SIGTERM`);
      expect(seconds).toBeLessThan(10);
    }
  }, 180_000);
});
