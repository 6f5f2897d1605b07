import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { type JobPayload, jobCatalog, QUEUE_NAME, redisKeys } from "../../shared/src/jobs/catalog.ts";
import type { Logger } from "../../shared/src/logger.ts";

export type PublishPayload = JobPayload<"publish">;

/** What the HTTP app needs from the queue; tests and other hosts may pass their own. */
export interface PublishEnqueuer {
  /** Resolves only once Redis holds both the pending ids and the job. */
  enqueue(payload: PublishPayload): Promise<{ jobId: string }>;
  /** Resolves when Redis answers PING; rejects with QueueUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Redis could not take the delivery; the receiver answers 503 so that Prismic delivers it again. */
export class QueueUnavailableError extends Error {
  override readonly name = "QueueUnavailableError";
}

export interface PublishEnqueuerOptions {
  redisUrl: string;
  queuePrefix: string;
  logger: Logger;
  /** Upper bound for one enqueue or ping, whatever Redis does (default 1500 ms). */
  timeoutMs?: number;
}

/** Jobs kept after they finish: enough to dedupe redeliveries and to debug, not to grow without bound. */
const REMOVE_ON_COMPLETE = { age: 3600, count: 1000 };
const REMOVE_ON_FAIL = { age: 7 * 24 * 3600 };

/**
 * A BullMQ producer that fails fast: the receiver must answer Prismic within a second whether Redis
 * is there or not, and a 503 is better than a hung request (Prismic redelivers on non-2xx). So the
 * connection neither queues commands while disconnected nor retries them, and reconnects on its own
 * in the background, so the receiver recovers without a restart.
 */
export function createPublishEnqueuer(options: PublishEnqueuerOptions): PublishEnqueuer {
  const { logger } = options;
  const timeoutMs = options.timeoutMs ?? 1500;
  const pendingIds = redisKeys(options.queuePrefix).pendingIds;
  const redis = new Redis(options.redisUrl, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
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
  const queue = new Queue(QUEUE_NAME, { connection: redis, prefix: options.queuePrefix });
  // BullMQ re-emits the connection's errors on the queue; an EventEmitter without an "error"
  // listener would throw them. They are logged once above.
  queue.on("error", () => {});

  return {
    async enqueue(input) {
      // A payload the worker would refuse is a bug here, not an outage: let it surface as a 500.
      const payload = jobCatalog.publish.schema.parse(input);
      const jobId = jobCatalog.publish.jobId(payload);
      await guard(redis, timeoutMs, async () => {
        // Ids first: if the job cannot be added, a later publish or reconcile still finds them.
        if (payload.documents.length > 0) await redis.sadd(pendingIds, ...payload.documents);
        await queue.add("publish", payload, {
          jobId,
          attempts: jobCatalog.publish.attempts,
          backoff: { ...jobCatalog.publish.backoff },
          removeOnComplete: REMOVE_ON_COMPLETE,
          removeOnFail: REMOVE_ON_FAIL,
        });
      });
      return { jobId };
    },
    async ping() {
      await guard(redis, timeoutMs, async () => {
        await redis.ping();
      });
    },
    async close() {
      await queue.close();
      if (redis.status === "ready") {
        await redis.quit().catch(() => redis.disconnect());
      } else {
        redis.disconnect();
      }
    },
  };
}

/** Runs `work` against Redis with a deadline; connection-level failures become QueueUnavailableError. */
async function guard(redis: Redis, timeoutMs: number, work: () => Promise<void>): Promise<void> {
  await whenConnected(redis, Math.min(timeoutMs, 800));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new QueueUnavailableError(`redis did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([work(), deadline]);
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
 * redelivery; anything else (a TypeError, BullMQ refusing its options) is a bug and stays a 500.
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

/** Never log a Redis password. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "redacted";
    return parsed.toString();
  } catch {
    return "(unparsable REDIS_URL)";
  }
}
