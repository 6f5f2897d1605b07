/**
 * Fault: a settings edit A fans out into child jobs; the worker is killed with
 * SIGKILL while a batch is being written; a settings edit B is published; a new worker starts. The
 * killed worker's batch is retried by BullMQ (its stalled check) once the new worker runs, possibly
 * after B's batches were written: it must be dropped, never write A's pages over B's. Storage ends
 * equal to a fresh full build at B's ref. Real OS processes; a generated repository of 600 pages,
 * so a settings change fans out into 6 child jobs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RENDER_QUEUE_NAME } from "#jobs/catalog.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { webhookOptions } from "../support/webhook-options.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGES = 600;
const REPO = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `faults-repo-${PAGES}`, "repo");
const PREFIX = `test-fault-stale-${process.pid}-${Date.now()}`;
const SECRET = "fault-stale-batch-secret";
const SITE_URL = "https://www.example.com";
const logger = pino({ level: "silent" });

let content: LocalPrismic;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let site: { path: string; remove: () => Promise<void> };
let redis: Redis;
let store: SiteStore;
const workers: ChildProcess[] = [];

function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, [`${ROOT}bin/pressroom.js`, "serve", "worker"], {
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
  workers.push(child);
  return child;
}

async function editSettings(holder: string) {
  const settings = content.store.masterDocuments.find((doc) => doc.type === "settings");
  if (!settings) throw new Error("no settings document");
  const answer = await fetch(`${content.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ upsert: [{ ...settings, data: { ...settings.data, copyright_holder: holder } }] }),
  });
  expect(answer.status).toBe(200);
}

const renderKey = (state: string) => `${PREFIX}:${RENDER_QUEUE_NAME}:${state}`;

beforeAll(async () => {
  ensureGeneratedRepository(REPO, PAGES, 10);
  site = await tempDir("fault-stale-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), logger);
  content = await startLocalPrismic({
    seedDir: REPO,
    webhookUrl: `${webhook.url}/webhooks/prismic`,
    webhookSecret: SECRET,
  });
  store = createSiteStore({ url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
}, 600_000);

afterAll(async () => {
  for (const child of workers)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await webhook?.close();
  await content?.stop();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await site?.remove();
});

describe("a worker killed mid fan-out, then a newer publish", () => {
  it("never lets the killed batch write older pages: storage ends equal to a full build", async () => {
    const first = startWorkerProcess();
    await until(
      "the first build",
      async () => (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef,
      { timeoutMs: 300_000, intervalMs: 10 },
    );

    await editSettings("Edition A LLC");
    // Kill while A's fan-out is part written: one batch done, the next one in hand.
    await until(
      "A's fan-out to be under way",
      async () =>
        (await redis.zcard(renderKey("completed"))) >= 1 && (await redis.llen(renderKey("active"))) >= 1,
      { timeoutMs: 120_000, intervalMs: 10 },
    );
    first.kill("SIGKILL");
    await once(first, "exit");

    await editSettings("Edition B LLC");
    const second = startWorkerProcess();
    try {
      await until(
        "B to be published",
        async () => (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef,
        { timeoutMs: 240_000, intervalMs: 10 },
      );
      // BullMQ hands the killed batch out again after one or two stalled checks (every third of
      // WORKER_LOCK_MS; the wait allows for BullMQ's default 30 s too): wait until it has run (or
      // been dropped) and nothing is left on the render queue.
      const killedAt = Date.now();
      await until(
        "the killed batch to be handed out again",
        async () =>
          Date.now() - killedAt > 75_000 &&
          (await redis.llen(renderKey("active"))) + (await redis.llen(renderKey("wait"))) === 0,
        { timeoutMs: 240_000, intervalMs: 10 },
      );
    } finally {
      second.kill("SIGTERM");
      await once(second, "exit");
    }
    const home = (await store.get("index.html"))?.body.toString() ?? "";
    expect(home).toContain("Edition B LLC");
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
  }, 900_000);
});
