import { Redis } from "ioredis";
import type { PublisherConfig } from "#config";
import { retryAfterBackoff } from "#jobs/catalog.ts";
import type { Logger } from "#logger";
import { WarnLimiter } from "#warn-limiter";

/** A queue, worker or event stream: each re-emits its connection's errors. */
export type ErrorEmitter = { on(event: "error", listener: (error: Error) => void): unknown };

/** Routes an emitter's errors to the log (see `queueErrorLogger`); returns the emitter. */
export type LogErrors = <T extends ErrorEmitter>(emitter: T, queue: string) => T;

/**
 * The worker's Redis connection. Workers block on Redis: commands must wait for a reconnect rather
 * than fail (BullMQ's rule). One line per outage, not one per reconnect attempt (ioredis retries
 * every ≤ 2 s).
 */
export function workerConnection(redisUrl: string, logger: Logger): Redis {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  let redisDown = false;
  connection.on("error", (error) => {
    if (!redisDown) logger.warn({ err: error }, "Redis connection lost; reconnecting");
    redisDown = true;
  });
  connection.on("ready", () => {
    if (redisDown) logger.info("Redis connection back");
    redisDown = false;
  });
  return connection;
}

/**
 * Every BullMQ queue, worker and event stream re-emits its connection's errors, at each reconnect
 * attempt; one without a listener prints them raw (console.error). Logged instead, the first of a
 * kind a minute (the outage itself is said once, by `workerConnection`).
 */
export function queueErrorLogger(logger: Logger): LogErrors {
  const queueErrors = new WarnLimiter();
  return (emitter, queue) => {
    emitter.on("error", (error) => {
      const code = (error as NodeJS.ErrnoException).code;
      const limit = queueErrors.take(code ?? error.message.replace(/\d+/g, "#").slice(0, 200));
      if (limit) logger.warn({ err: error, queue, suppressed: limit.suppressed }, "queue worker error");
    });
    return emitter;
  };
}

/**
 * BullMQ's job lock as short as the publish lock, checked every half of it: a paused worker's job
 * is handed to another within lock + check (≤ 12 s by default), not 30 s + 30 s.
 */
export function jobLocks(lockMs: number) {
  return {
    lockDuration: lockMs,
    stalledInterval: Math.round(lockMs / 2),
    settings: { backoffStrategy: retryAfterBackoff },
  };
}

/** What every queue of a worker process is opened with. */
export interface Plumbing {
  config: PublisherConfig;
  connection: Redis;
  logger: Logger;
  logErrors: LogErrors;
  /** Aborted at the worker's close. */
  shutdown: AbortSignal;
  /** The publish lock's and BullMQ's job lock's time to live (WORKER_LOCK_MS). */
  lockMs: number;
}
