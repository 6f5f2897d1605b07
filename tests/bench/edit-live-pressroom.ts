import type { ChildProcess } from "node:child_process";
import type { PrismicDocument } from "@prismicio/client";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { CONTACT_QUEUE_NAME, QUEUE_NAME, RECONCILE_QUEUE_NAME, RENDER_QUEUE_NAME } from "#jobs/catalog.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";
import { apiUpdateBody, type ContentService } from "./edit-live-content.ts";
import type { FreshPoller } from "./fresh-poll.ts";
import { startPressroom } from "./processes.ts";
import { type RedisWork, redisSnapshot, redisWork } from "./redis-counter.ts";

/** Pressroom's side of `npm run bench:edit-live`: webhook receiver, worker and site server on a private Redis. */
export interface PublishSummary {
  ref: string;
  rendered?: number;
  written?: number;
  mode?: string;
  startedAt?: number;
  timings?: Record<string, number>;
}

export interface PressroomEdit {
  ms: number;
  /** The receiver's 200, from the POST. */
  webhookMs: number;
  /** The slowest GET while polling (a server busy with something else on the request path). */
  slowestPollMs: number;
  /** The GET that came back fresh (the site server reading the object). */
  lastPollMs: number;
  requestsUntilFresh: number;
  requests: number;
  redisUntilFresh: RedisWork;
  redis: RedisWork;
  /** Jobs added per queue (BullMQ's "added" events). */
  jobs: Map<string, number>;
  summary: PublishSummary;
  /** Epoch ms: the POST, the job added, taken by the worker; the page first seen fresh. */
  sentAt: number;
  jobAddedAt?: number;
  jobTakenAt?: number;
  seenAt: number;
}

const QUEUES = [QUEUE_NAME, RENDER_QUEUE_NAME, RECONCILE_QUEUE_NAME, CONTACT_QUEUE_NAME];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every "publish finished" line the worker logs, by ref (its summary: rendered, written, timings). */
function watchPublishes(worker: ChildProcess) {
  const finished = new Map<string, PublishSummary>();
  let rest = "";
  worker.stdout?.on("data", (chunk: Buffer) => {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.includes('"publish finished"')) continue;
      const entry = JSON.parse(line) as PublishSummary;
      finished.set(entry.ref, entry);
    }
  });
  return async (ref: string, timeoutMs = 300_000): Promise<PublishSummary> => {
    const deadline = performance.now() + timeoutMs;
    while (!finished.has(ref)) {
      if (performance.now() > deadline) throw new Error(`the worker logged no publish of ${ref}`);
      await sleep(2);
    }
    return finished.get(ref) as PublishSummary;
  };
}

export async function startPressroomSide(options: {
  content: ContentService;
  redis: Redis;
  redisUrl: string;
  prefix: string;
  secret: string;
  siteDir: string;
}) {
  const { content, redis, prefix, secret } = options;
  const common = {
    QUEUE_PREFIX: prefix,
    WEBHOOK_SECRET: secret,
    REDIS_URL: options.redisUrl,
    STORAGE_URL: `file://${options.siteDir}`,
    SITE_URL: "https://www.example.com",
    OPS_PORT: "off",
  };
  const webhook = (
    await startPressroom(["serve", "webhook"], { ...common, PORT: "0" }, /listening on (http:\/\/[\d.:]+)/)
  ).match;
  const worker = await startPressroom(
    ["serve", "worker"],
    { ...common, PRISMIC_ENDPOINT: content.endpoint },
    /(worker started)/,
  );
  const publishOf = watchPublishes(worker.child);
  const started = performance.now();
  // The worker's start finds no index and builds every route (a diff build), then reconciles.
  await untilWorkerSettled(redis, prefix, await masterRef(content), 3_600_000);
  const firstBuildSeconds = (performance.now() - started) / 1000;
  const site = (
    await startPressroom(["serve", "site"], { ...common, PORT: "0" }, /site listening on (http:\/\/[\d.:]+)/)
  ).match;
  const queue = new Queue(QUEUE_NAME, { connection: redis, prefix });
  const lastEvent = new Map<string, string>();
  for (const name of QUEUES) {
    const [last] = (await redis.xrevrange(`${prefix}:${name}:events`, "+", "-", "COUNT", 1)) ?? [];
    lastEvent.set(name, last?.[0] ?? "0-0");
  }
  /** Jobs added to each queue since the last call ("added" in BullMQ's event streams). */
  const jobsAdded = async () => {
    const added = new Map<string, number>();
    for (const name of QUEUES) {
      const entries = await redis.xrange(`${prefix}:${name}:events`, `(${lastEvent.get(name)}`, "+");
      for (const [id, fields] of entries) {
        lastEvent.set(name, id);
        if (fields[fields.indexOf("event") + 1] === "added") added.set(name, (added.get(name) ?? 0) + 1);
      }
    }
    return added;
  };

  async function edit(doc: PrismicDocument, route: string, marker: string, poller: FreshPoller) {
    const ref = await content.publish(doc);
    const requestsBefore = await content.requests();
    const before = await redisSnapshot(redis);
    const sentAt = Date.now();
    const t0 = performance.now();
    let webhookMs = 0;
    const post = fetch(`${webhook}/webhooks/prismic`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: apiUpdateBody(content, ref, [doc.id], secret),
    }).then(async (answer) => {
      webhookMs = performance.now() - t0;
      if (answer.status !== 200) throw new Error(`webhook answered ${answer.status}: ${await answer.text()}`);
    });
    const [fresh] = await Promise.all([poller.untilFresh(`${site}${route}`, marker, t0), post]);
    const atFresh = await redisSnapshot(redis);
    const requestsUntilFresh = (await content.requests()) - requestsBefore;
    const summary = await publishOf(ref);
    // Quiet: the job completed and the worker is waiting for the next one (two polls 20 ms apart see
    // only themselves; at most 3 s, a periodic check of the worker may land in between).
    let snapshots = 1;
    let after = atFresh;
    for (let quiet = 0, deadline = performance.now() + 3_000; quiet < 2 && performance.now() < deadline; ) {
      await sleep(20);
      const next = await redisSnapshot(redis);
      snapshots++;
      quiet = next.commands - after.commands <= 1 ? quiet + 1 : 0;
      after = next;
    }
    const requests = (await content.requests()) - requestsBefore;
    const job = await queue.getJob(`publish-${ref}`);
    return {
      ms: fresh.ms,
      webhookMs,
      lastPollMs: fresh.lastPollMs,
      slowestPollMs: fresh.slowestPollMs,
      requestsUntilFresh,
      requests,
      redisUntilFresh: redisWork(before, atFresh, 1),
      redis: redisWork(before, after, snapshots),
      jobs: await jobsAdded(),
      summary,
      sentAt,
      seenAt: sentAt + fresh.ms,
      ...(job?.timestamp ? { jobAddedAt: job.timestamp } : {}),
      ...(job?.processedOn ? { jobTakenAt: job.processedOn } : {}),
    } satisfies PressroomEdit;
  }

  return { edit, jobsAdded, site, webhook, firstBuildSeconds, close: () => queue.close() };
}

export async function masterRef(content: ContentService): Promise<string> {
  const api = (await (await fetch(content.endpoint)).json()) as {
    refs: { ref: string; isMasterRef: boolean }[];
  };
  return api.refs.find((ref) => ref.isMasterRef)?.ref ?? "";
}
