import { Queue } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "../logger.ts";
import { redactUrl } from "../redact-url.ts";
import { settled } from "../settled.ts";
import { QUEUE_NAME } from "./catalog.ts";

/** Redis could not take the job; an HTTP producer answers 503 so that the sender tries again. */
export class QueueUnavailableError extends Error {
  override readonly name = "QueueUnavailableError";
}

export interface FailFastQueueOptions {
  redisUrl: string;
  /** The queue jobs go to (default: the publish queue `pressroom`). */
  queueName?: string;
  queuePrefix: string;
  logger: Logger;
  /** Upper bound for one `run` or `ping`, whatever Redis does (default 1500 ms). */
  timeoutMs?: number;
}

/** A BullMQ queue plus its own Redis connection, for producers that answer HTTP requests. */
export interface FailFastQueue {
  readonly redis: Redis;
  readonly queue: Queue;
  /** Runs `work` with a deadline; outages become QueueUnavailableError, anything else is rethrown. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Resolves when Redis answers PING; rejects with QueueUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Jobs kept after they finish: enough to dedupe redeliveries and to debug, not to grow without bound. */
export const REMOVE_ON_COMPLETE = { age: 3600, count: 1000 };
export const REMOVE_ON_FAIL = { age: 7 * 24 * 3600 };

/**
 * A BullMQ producer that fails fast: an HTTP producer must answer within a second whether Redis is
 * there or not, and a 503 is better than a hung request. So the connection neither queues commands
 * while disconnected nor retries them, and reconnects on its own in the background, so the process
 * recovers without a restart. (Workers are the opposite: they wait for Redis, see worker/.)
 */
export function createFailFastQueue(options: FailFastQueueOptions): FailFastQueue {
  const { logger } = options;
  const timeoutMs = options.timeoutMs ?? 1500;
  const redis = new Redis(options.redisUrl, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // No INFO ready check: closing a client without an offline queue while that check is in flight
    // (a server stopped right after it started) leaves an unhandled rejection inside ioredis. A Redis
    // still loading its data answers LOADING, which fails fast like any other error: a 503.
    enableReadyCheck: false,
    connectTimeout: 1000,
    commandTimeout: timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // Log transitions, not every reconnect attempt: a Redis outage would otherwise flood the log.
  let down = false;
  redis.on("error", (error: Error) => {
    if (down) return;
    down = true;
    logger.warn({ err: error, redis: redactUrl(options.redisUrl) }, "redis unavailable; answering 503");
  });
  redis.on("ready", () => {
    if (!down) return;
    down = false;
    logger.info({ redis: redactUrl(options.redisUrl) }, "redis connection restored");
  });

  // Shared connection: BullMQ does not close it; close() below does.
  const queue = new Queue(options.queueName ?? QUEUE_NAME, {
    connection: redis,
    prefix: options.queuePrefix,
  });
  // BullMQ re-emits the connection's errors on the queue; an EventEmitter without an "error"
  // listener would throw them. They are logged once above.
  queue.on("error", () => {});

  return {
    redis,
    queue,
    run: (work) => guard(redis, timeoutMs, work),
    async ping() {
      await guard(redis, timeoutMs, () => redis.ping());
    },
    async close() {
      // BullMQ checks the server's version (INFO) once connected; closed while that is in flight,
      // the check fails after close removed every listener: an unhandled rejection. So a start under
      // way may finish first, for a second at most; with Redis away there is nothing to wait for.
      if (redis.status === "connecting" || redis.status === "connect" || redis.status === "ready")
        await settled(queue.waitUntilReady(), 1_000);
      await queue.close();
      if (redis.status === "ready") {
        await redis.quit().catch(() => redis.disconnect());
      } else {
        redis.disconnect();
      }
    },
  };
}

async function guard<T>(redis: Redis, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  await whenConnected(redis, Math.min(timeoutMs, 800));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new QueueUnavailableError(`redis did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work(), deadline]);
  } catch (error) {
    if (error instanceof QueueUnavailableError) throw error;
    if (isRedisFailure(error)) {
      throw new QueueUnavailableError(`redis unavailable: ${(error as Error).message}`, { cause: error });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits out a connection attempt in progress (the first one after start, or a reconnect that is
 * dialling) so that a request arriving at that moment is not refused for nothing. While Redis is
 * known to be down (between attempts), it returns at once and the command fails fast.
 */
async function whenConnected(redis: Redis, maxWaitMs: number): Promise<void> {
  if (redis.status !== "connecting" && redis.status !== "connect") return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off("ready", done);
      redis.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, maxWaitMs);
    redis.once("ready", done);
    redis.once("close", done);
  });
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
]);
const CONNECTION_MESSAGES = /enableOfflineQueue|Connection is closed|Command timed out|connect ETIMEDOUT/i;

/**
 * Outages and refusals by Redis itself (LOADING, READONLY during a failover, OOM) are worth a
 * retry by the sender; anything else (a TypeError, BullMQ refusing its options) is a bug and stays a 500.
 */
function isRedisFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (
    error.name === "MaxRetriesPerRequestError" ||
    error.name === "ReplyError" ||
    (typeof code === "string" && CONNECTION_CODES.has(code)) ||
    CONNECTION_MESSAGES.test(error.message)
  );
}
