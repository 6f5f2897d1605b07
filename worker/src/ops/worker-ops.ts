import type { Job } from "bullmq";
import { Redis } from "ioredis";
import type { OpsConfig } from "#config";
import type { Logger } from "#logger";
import { watchContactDelivery } from "#metrics/contact-metrics.ts";
import { watchEdgeOwed } from "#metrics/edge-metrics.ts";
import { contactMessages, contentNotices, failedRoutes, reconcileRuns } from "#metrics/metrics.ts";
import { watchQueues } from "#metrics/queue-metrics.ts";
import { openOpsQueues } from "#ops/ops-queues.ts";
import { startOpsServer } from "#ops/ops-server.ts";
import type { ReadinessChecks } from "#ops/readiness.ts";
import { onContentNotice } from "../content-notices.ts";
import { readPendingPurges } from "../publish/pending-purges.ts";
import { onRouteFailed } from "../publish/route-failures.ts";
import { describeStall, PUBLISH_STALL_MS, readPublishingHealth } from "../publishing-health.ts";
import type { RunningWorker } from "../worker.ts";
import { countRoutes, observeLiveSafely } from "./publish-metrics.ts";
import { watchPublishing } from "./publishing-metrics.ts";

export interface WorkerOps {
  url: string;
  close(): Promise<void>;
}

/**
 * Redis, storage and the content API: a worker without any of them cannot publish. And publishing
 * itself: deliveries waiting longer than `stallMs` with no publish completed meanwhile (a fault every
 * worker shares, so every worker says it: readiness is where operators and orchestrators look).
 */
export function workerReadiness(running: Pick<RunningWorker, "context">, stallMs?: number): ReadinessChecks {
  const { redis, store, client, queuePrefix } = running.context;
  return {
    redis: () => redis.ping(),
    storage: () => store.head("index.html"),
    content: () => client.fetchMasterRef(),
    publishing: async () => {
      const health = await readPublishingHealth(redis, queuePrefix, stallMs);
      if (health.stalled) throw new Error(describeStall(health));
    },
  };
}

/**
 * The worker's HTTP side, for probes and Prometheus: `/_pressroom/healthz|readyz|metrics` on
 * OPS_HOST:OPS_PORT. Job outcomes are counted from the worker's events, so the job code stays as it is.
 */
export async function startWorkerOps(
  config: { redisUrl: string; queuePrefix: string; ops: OpsConfig },
  running: RunningWorker,
  logger: Logger,
  /** How long deliveries may wait with no publish completing before publishing counts as stalled. */
  stallMs = PUBLISH_STALL_MS,
): Promise<WorkerOps | undefined> {
  const detach = countJobs(running, logger);
  const opened = openOpsQueues(config.redisUrl, config.queuePrefix);
  const unwatch = watchQueues(opened.queues);
  const { redis, queuePrefix, edge } = running.context;
  const unwatchEdge = edge
    ? watchEdgeOwed(async () => {
        const owed = await readPendingPurges(redis, queuePrefix);
        return { count: owed.entries.size, since: owed.since };
      })
    : () => {};
  // Its own connection, as the queues' (a scrape must not disturb the worker's), failing fast.
  const scrape = new Redis(config.redisUrl, {
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    commandTimeout: 2000,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
  });
  scrape.on("error", () => {}); // reported by readiness and the gauges' absence
  const unwatchContact = watchContactDelivery(scrape, config.queuePrefix);
  const unwatchPublishing = watchPublishing(scrape, config.queuePrefix, stallMs);
  const release = async () => {
    detach();
    unwatch();
    unwatchEdge();
    unwatchContact();
    unwatchPublishing();
    scrape.disconnect();
    await opened.close();
  };
  try {
    const server = await startOpsServer({
      ops: config.ops,
      logger,
      role: "worker",
      checks: workerReadiness(running, stallMs),
    });
    if (!server) {
      await release();
      return undefined;
    }
    return {
      url: server.url,
      async close() {
        await server.close();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

/** Reconcile outcomes, contact deliveries, and what builds and reconciles made live. */
export function countJobs(running: Pick<RunningWorker, "workers" | "context">, logger: Logger): () => void {
  const ctx = { redis: running.context.redis, queuePrefix: running.context.queuePrefix, logger };
  const completed = (job: Job, result: unknown) => {
    const started = job.processedOn ?? Date.now();
    const finished = job.finishedOn ?? Date.now();
    switch (job.name) {
      case "reconcile": {
        const action = (result as { action?: string } | undefined)?.action ?? "none";
        reconcileRuns.inc({ action });
        // A reconcile that rebuilt made every delivery accepted before it live (one that published
        // observed its publish as every publish is: publishObserved).
        if (action === "diff-build") void observeLiveSafely(ctx, started, finished);
        return;
      }
      case "build":
        countRoutes(result as Parameters<typeof countRoutes>[0]);
        void observeLiveSafely(ctx, started, finished);
        return;
      case "contact":
        contactMessages.inc({ outcome: "sent" });
        return;
    }
  };
  const failed = (job: Job | undefined) => {
    if (job?.name === "reconcile") reconcileRuns.inc({ action: "failed" });
    if (job?.name === "contact") {
      const final = job.attemptsMade >= (job.opts.attempts ?? 1);
      contactMessages.inc({ outcome: final ? "failed" : "retry" });
    }
  };
  for (const worker of running.workers) {
    worker.on("completed", completed);
    worker.on("failed", failed);
  }
  const stopFailures = onRouteFailed(() => failedRoutes.inc());
  const stopNotices = onContentNotice((notice) => contentNotices.inc({ kind: notice.kind }));
  return () => {
    stopFailures();
    stopNotices();
    for (const worker of running.workers) {
      worker.off("completed", completed);
      worker.off("failed", failed);
    }
  };
}
