/**
 * `node --import tsx scripts/ops-samples.ts`: runs the local content service, the webhook receiver and a worker (real
 * Redis, a folder for storage), publishes one edit the way an editor would, then writes what an
 * operator sees: `docs/ops/metrics-sample.txt` (the worker's `/_pressroom/metrics`) and
 * `docs/screenshots/queues-dashboard-1280.png` (Bull Board). Needs Redis on 127.0.0.1:6379.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { pino } from "pino";
import type { WorkerConfig } from "#config";
import { startContentService } from "#local-prismic/server.ts";
import { startWebhook } from "#webhook/server.ts";
import { startWorkerOps } from "#worker/ops/worker-ops.ts";
import { startWorker } from "#worker/worker.ts";
import { launchChromium } from "./chromium.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const PREFIX = `ops-samples-${process.pid}`;
const SECRET = "ops-samples-webhook-secret";
const QUEUES = { user: "pressroom", password: "sample-dashboard-password" };
const OPS = { host: "127.0.0.1", port: 0 };
const logger = pino({ level: "warn" });

const work = await mkdtemp(join(process.env.TMPDIR ?? tmpdir(), "ops-samples-"));
const redis = new Redis({ maxRetriesPerRequest: null });
const webhook = await startWebhook(
  {
    host: "127.0.0.1",
    port: 0,
    logLevel: "warn",
    repository: "demo",
    webhookSecret: SECRET,
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    ops: OPS,
    queues: QUEUES,
  },
  logger,
);
const content = await startContentService(
  {
    host: "127.0.0.1",
    port: 0,
    repository: "demo",
    dataDir: join(work, "content"),
    seedDir: undefined,
    webhookUrl: `${webhook.url}/webhooks/prismic`,
    webhookSecret: SECRET,
    publicUrl: undefined,
    refHistory: 50,
    previewTtlMs: 3_600_000,
  },
  logger,
);
const config: WorkerConfig = {
  logLevel: "warn",
  prismic: {
    repository: "demo",
    endpoint: `${content.url}/api/v2`,
    accessToken: undefined,
    timeoutMs: 10_000,
    cacheTtlMs: 5_000,
    cacheMaxEntries: 1_000,
    rateLimitRetries: 3,
  },
  redisUrl: "redis://127.0.0.1:6379",
  queuePrefix: PREFIX,
  storage: { url: `file://${join(work, "site")}`, s3Endpoint: undefined, s3Region: "us-east-1" },
  siteUrl: "https://www.example.com",
};
const worker = await startWorker(config, logger, { rootDir: ROOT });
const ops = await startWorkerOps({ ...config, ops: OPS }, worker, logger);
if (!ops) throw new Error("the worker's ops listener did not start");

async function untilIndexAt(ref: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await redis.hget(`${PREFIX}:index:meta`, "ref")) === ref) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the index never reached ${ref}`);
}

try {
  await untilIndexAt(content.store.masterRef);
  const services = JSON.parse(
    await readFile(`${ROOT}services/local-prismic/demo/documents/Z9nWvBEAACQAx1Dd.json`, "utf8"),
  ) as { data: Record<string, unknown> };
  for (const title of ["Services, edited", "Services, edited again"]) {
    await fetch(`${content.url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ upsert: [{ ...services, data: { ...services.data, meta_title: title } }] }),
    });
    await untilIndexAt(content.store.masterRef);
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  const metrics = await (await fetch(`${ops.url}/_pressroom/metrics`)).text();
  const ours = metrics.split("\n").filter((line) => /pressroom_|^# (HELP|TYPE) pressroom_/.test(line));
  const node = metrics
    .split("\n")
    .filter((line) =>
      /^(process_cpu_seconds_total|process_resident_memory_bytes|nodejs_eventloop_lag_p99)/.test(line),
    );
  await writeFile(
    `${ROOT}docs/ops/metrics-sample.txt`,
    [
      "# GET /_pressroom/metrics on a worker's ops listener, after its start (a diff build by reconcile)",
      "# and two published edits of one page, delivered by the local content service's webhook.",
      "# Written by `node --import tsx scripts/ops-samples.ts`; Node's default metrics are cut to three lines here.",
      ...ours,
      ...node,
      "",
    ].join("\n"),
  );

  const browser = await launchChromium();
  try {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      httpCredentials: { username: QUEUES.user, password: QUEUES.password },
    });
    const page = await context.newPage();
    await page.goto(`${webhook.opsUrl}/_pressroom/queues/queue/pressroom?status=completed`);
    await page.waitForLoadState("networkidle");
    await page.screenshot({ path: `${ROOT}docs/screenshots/queues-dashboard-1280.png` });
  } finally {
    await browser.close();
  }
  console.log("wrote docs/ops/metrics-sample.txt and docs/screenshots/queues-dashboard-1280.png");
} finally {
  await ops.close();
  await worker.close();
  await webhook.close();
  await content.close();
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await rm(work, { recursive: true, force: true });
}
