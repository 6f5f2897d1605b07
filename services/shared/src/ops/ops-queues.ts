import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { QUEUE_NAME, RENDER_QUEUE_NAME } from "../jobs/catalog.ts";

export interface OpsQueues {
  queues: Queue[];
  close(): Promise<void>;
}

/**
 * Both queues, read by the metrics scrape and the dashboard, on a connection of their own that
 * fails fast (a scrape or a dashboard page must not hang while Redis is away, nor disturb the
 * connection deliveries are queued on).
 */
export function openOpsQueues(redisUrl: string, prefix: string): OpsQueues {
  const redis = new Redis(redisUrl, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 1000,
    commandTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // Outages are reported by readiness and by the queue gauges' absence; the receiver logs them.
  redis.on("error", () => {});
  const queues = [QUEUE_NAME, RENDER_QUEUE_NAME].map((name) => {
    const queue = new Queue(name, { connection: redis, prefix });
    queue.on("error", () => {});
    return queue;
  });
  return {
    queues,
    async close() {
      await Promise.all(queues.map((queue) => queue.close()));
      redis.disconnect();
    },
  };
}
