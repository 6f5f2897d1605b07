import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { CONTACT_QUEUE_NAME, QUEUE_NAME, RECONCILE_QUEUE_NAME, RENDER_QUEUE_NAME } from "../jobs/catalog.ts";
import { settled } from "../settled.ts";

export interface OpsQueues {
  queues: Queue[];
  close(): Promise<void>;
}

/**
 * Every queue (publish, render, contact, reconcile), read by the metrics scrape and the dashboard, on connections of their own (a scrape
 * or a dashboard page must not disturb the connection deliveries are queued on).
 */
export function openOpsQueues(redisUrl: string, prefix: string): OpsQueues {
  // Options, not a client: BullMQ then owns each connection, and closing a queue whose connection
  // is still being made (the ops port was taken, Redis is away) disconnects it quietly. A shared
  // client would leave that attempt's failure as an unhandled 'error' event, which ends the process.
  const parsed = new Redis(redisUrl, { lazyConnect: true });
  const connection = {
    ...parsed.options,
    lazyConnect: false,
    // A command waits for a reconnect at most one retry; the scrape has its own deadline. (No
    // `enableOfflineQueue: false`: closing such a client while it connects leaves an unhandled
    // rejection inside ioredis' ready check.)
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    commandTimeout: 2000,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
  };
  parsed.disconnect();
  const queues = [QUEUE_NAME, RENDER_QUEUE_NAME, CONTACT_QUEUE_NAME, RECONCILE_QUEUE_NAME].map((name) => {
    const queue = new Queue(name, { connection, prefix });
    // Outages are reported by readiness and by the queue gauges' absence; the receiver logs them.
    queue.on("error", () => {});
    return queue;
  });
  return {
    queues,
    async close() {
      // A queue closed while BullMQ's version check (INFO) is in flight fails that check after close
      // removed every listener: an unhandled 'error' event that ends the process. So each start may
      // finish first, for a second at most (with Redis away it does not).
      await Promise.all(queues.map((queue) => settled(queue.waitUntilReady(), 1_000)));
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}
