import type { Queue } from "bullmq";
import { Gauge } from "prom-client";
import { registry } from "./registry.ts";

const STATES = ["waiting", "active", "delayed", "prioritized", "waiting-children", "failed"] as const;
/** A scrape must answer even while Redis does not: queue figures are then left out (alert on their absence). */
const COLLECT_TIMEOUT_MS = 1000;

const watched = new Set<Queue>();

const queueJobs = new Gauge({
  name: "pressroom_queue_jobs",
  help: "Jobs in each queue by state (read from Redis at each scrape; absent while Redis does not answer).",
  labelNames: ["queue", "state"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    await Promise.all(
      [...watched].map(async (queue) => {
        const counts = await withTimeout(queue.getJobCounts(...STATES)).catch(() => undefined);
        if (!counts) return;
        for (const state of STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
      }),
    );
  },
});

const oldestWaiting = new Gauge({
  name: "pressroom_queue_oldest_waiting_seconds",
  help: "Age of the oldest job waiting in each queue (0 when none waits): how far behind the workers are.",
  labelNames: ["queue"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    const now = Date.now();
    await Promise.all(
      [...watched].map(async (queue) => {
        // `asc`: the oldest first (BullMQ's wait list is newest first).
        const jobs = await withTimeout(queue.getJobs(["waiting", "prioritized"], 0, 0, true)).catch(
          () => undefined,
        );
        if (!jobs) return;
        const oldest = jobs[0];
        this.set({ queue: queue.name }, oldest ? Math.max(0, now - oldest.timestamp) / 1000 : 0);
      }),
    );
  },
});

/** Reports `queues` in `pressroom_queue_*` at each scrape until the returned function is called. */
export function watchQueues(queues: readonly Queue[]): () => void {
  for (const queue of queues) watched.add(queue);
  return () => {
    for (const queue of queues) watched.delete(queue);
  };
}

export const queueGauges = [queueJobs, oldestWaiting];

/** `work`, or a rejection once a scrape has waited COLLECT_TIMEOUT_MS for Redis. */
export function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error("redis did not answer")), COLLECT_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}
