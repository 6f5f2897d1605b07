import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { RECONCILE_QUEUE_NAME, RENDER_QUEUE_NAME } from "#jobs/catalog.ts";
import { until } from "./until.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until a freshly started worker has settled: its first build committed the index at
 * `masterRef` and the start's reconcile rounds (the scheduler's first and the explicit one) are
 * over. A test's edit made earlier can be taken by such a round (as pending ids, or as a diff
 * build) instead of the webhook's publish the test means to observe.
 */
export async function untilWorkerSettled(
  redis: Redis,
  prefix: string,
  masterRef: string,
  timeoutMs = 60_000,
): Promise<void> {
  const queue = new Queue(RECONCILE_QUEUE_NAME, { connection: redis, prefix });
  let rounds = 0;
  try {
    await until(
      () => `the first build and the start's reconcile rounds (${rounds} left)`,
      async () => {
        const counts = await queue.getJobCounts("waiting", "active");
        rounds = (counts.waiting ?? 0) + (counts.active ?? 0);
        return rounds === 0 && (await redis.hget(`${prefix}:index:meta`, "ref")) === masterRef;
      },
      { timeoutMs },
    );
  } finally {
    await queue.close();
  }
}

/**
 * Closes a worker whose publish waits on child jobs no process renders. Removing the child jobs
 * fails that publish at once (they vanished); a publish that took the lock after it (a queued
 * delivery) fans out again, so the render queue is emptied until the close is done.
 */
export async function closeWorkerHoldingFanOut(
  redis: Redis,
  prefix: string,
  worker: { close(): Promise<void> },
): Promise<void> {
  const renders = new Queue(RENDER_QUEUE_NAME, { connection: redis, prefix });
  let closed = false;
  const closing = worker.close().finally(() => {
    closed = true;
  });
  try {
    while (!closed) {
      await renders.obliterate({ force: true });
      await Promise.race([closing, sleep(250)]);
    }
    await closing;
  } finally {
    await renders.close();
  }
}
