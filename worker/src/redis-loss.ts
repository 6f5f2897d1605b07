import type { Redis } from "ioredis";
import type { Logger } from "#logger";

/** How often the worker checks that Redis still holds its data, besides each reconnect. */
const CHECK_EVERY_MS = 10_000;

/**
 * Detects Redis losing its data (restarted without persistence, flushed, failed over to an empty
 * replica): the worker writes a marker key at start; when it is gone — checked after each reconnect
 * and every 10 s — everything else the worker keeps in Redis is gone too (the reconcile schedule,
 * the index, queued jobs), and `onLoss` restores what it can: the schedule, a reconcile now (which
 * finds the index missing and runs a diff build), the contact messages archived but not in Redis.
 */
export function watchForRedisLoss(options: {
  redis: Redis;
  markerKey: string;
  logger: Logger;
  onLoss: () => Promise<void>;
  checkEveryMs?: number;
}): { start(): Promise<void>; check(): Promise<boolean>; stop(): void } {
  const { redis, markerKey, logger } = options;
  let running: Promise<boolean> | undefined;
  const check = () => {
    running ??= (async () => {
      try {
        if ((await redis.exists(markerKey)) === 1) return false;
        logger.error(
          "Redis lost its data (the worker's marker is gone): re-registering the schedule, reconciling",
        );
        await options.onLoss();
        await redis.set(markerKey, new Date().toISOString());
        return true;
      } catch (error) {
        logger.warn({ err: error }, "could not check Redis for data loss; will try again");
        return false;
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  const onReady = () => void check();
  let timer: NodeJS.Timeout | undefined;
  return {
    async start() {
      await redis.set(markerKey, new Date().toISOString());
      redis.on("ready", onReady);
      timer = setInterval(onReady, options.checkEveryMs ?? CHECK_EVERY_MS);
      timer.unref();
    },
    check,
    stop() {
      redis.off("ready", onReady);
      if (timer) clearInterval(timer);
    },
  };
}
