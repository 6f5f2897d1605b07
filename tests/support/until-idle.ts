import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { QUEUE_NAME, RECONCILE_QUEUE_NAME, RENDER_QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { until } from "./until.ts";

/**
 * Until the engine under `prefix` is idle: no job waiting or running (a child render job waiting for
 * a retry counts, and so does a publish; the reconcile schedule's next run does not), no id pending or
 * being published, and the dependency index at the content service's master ref.
 */
export async function untilIdle(redis: Redis, prefix: string, masterRef: () => string, timeoutMs = 90_000) {
  const publish = new Queue(QUEUE_NAME, { connection: redis, prefix });
  const render = new Queue(RENDER_QUEUE_NAME, { connection: redis, prefix });
  const reconcile = new Queue(RECONCILE_QUEUE_NAME, { connection: redis, prefix });
  const keys = redisKeys(prefix);
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  let state = {};
  try {
    await until(
      () => `idle (${JSON.stringify(state)})`,
      async () => {
        const busy =
          total(await publish.getJobCounts("waiting", "active", "prioritized")) +
          total(await render.getJobCounts("waiting", "active", "prioritized", "delayed")) +
          total(await reconcile.getJobCounts("waiting", "active", "prioritized")) +
          // The reconcile scheduler always has its next run delayed; a publish waiting for a retry counts.
          (await publish.getJobs(["delayed"])).filter((job) => job.name !== "reconcile").length;
        const pending = (await redis.scard(keys.pendingIds)) + (await redis.scard(keys.processingIds));
        const indexRef = await redis.hget(`${prefix}:index:meta`, "ref");
        state = { busy, pending, indexRef, master: masterRef() };
        return busy === 0 && pending === 0 && indexRef === masterRef();
      },
      { timeoutMs, intervalMs: 100 },
    );
  } finally {
    await publish.close();
    await render.close();
    await reconcile.close();
  }
}
