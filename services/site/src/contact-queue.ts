import { randomUUID } from "node:crypto";
import type { ContactMessage } from "#contact/validate-contact.ts";
import { CONTACT_QUEUE_NAME, type JobPayload, jobCatalog, redisKeys } from "#jobs/catalog.ts";
import { createFailFastQueue, REMOVE_ON_COMPLETE, REMOVE_ON_FAIL } from "#jobs/fail-fast-queue.ts";
import type { Logger } from "#logger";

/** The rate limit's fixed window. */
export const CONTACT_WINDOW_SECONDS = 600;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** What `POST /api/contact` needs from Redis; every method rejects with QueueUnavailableError on an outage. */
export interface ContactQueue {
  /** Counts one message from `ip` in the current window and says whether it may go on. */
  hit(ip: string): Promise<RateDecision>;
  /** Resolves only once Redis holds the job; `archive` (the durable copy) runs first. */
  enqueue(
    message: ContactMessage,
    archive?: (payload: JobPayload<"contact">) => Promise<void>,
  ): Promise<{ id: string }>;
  /** Resolves when Redis answers (readiness). */
  ping?(): Promise<void>;
  close(): Promise<void>;
}

export interface ContactQueueOptions {
  redisUrl: string;
  queuePrefix: string;
  logger: Logger;
  /** Messages per client IP per 10 minutes (CONTACT_RATE_LIMIT). */
  rateLimit: number;
  timeoutMs?: number;
}

/**
 * Fail-fast, like the webhook receiver's: a visitor waiting on a spinner while Redis is down is
 * worse than a 503 that says "try again in a minute" (the form keeps what they typed).
 */
export function createContactQueue(options: ContactQueueOptions): ContactQueue {
  // Contact messages have their own queue: they never wait behind a publish.
  const producer = createFailFastQueue({ ...options, queueName: CONTACT_QUEUE_NAME });
  const { redis, queue } = producer;
  const ratePrefix = redisKeys(options.queuePrefix).contactRate;
  const spec = jobCatalog.contact;

  return {
    async hit(ip) {
      const key = `${ratePrefix}:${ip}`;
      // One round trip, atomic: start the window if there is none, count, read what is left of it.
      const replies = await producer.run(() =>
        redis.multi().set(key, "0", "EX", CONTACT_WINDOW_SECONDS, "NX").incr(key).ttl(key).exec(),
      );
      const count = Number(replies?.[1]?.[1] ?? 0);
      const ttl = Number(replies?.[2]?.[1] ?? CONTACT_WINDOW_SECONDS);
      if (count <= options.rateLimit) return { allowed: true };
      return { allowed: false, retryAfterSeconds: ttl > 0 ? ttl : CONTACT_WINDOW_SECONDS };
    },
    async enqueue(message, archive) {
      const payload = spec.schema.parse({
        ...message,
        id: randomUUID(),
        receivedAt: new Date().toISOString(),
      });
      await archive?.(payload);
      await producer.run(() =>
        queue.add("contact", payload, {
          jobId: spec.jobId(payload),
          attempts: spec.attempts,
          backoff: { ...spec.backoff },
          removeOnComplete: REMOVE_ON_COMPLETE,
          removeOnFail: REMOVE_ON_FAIL,
        }),
      );
      return { id: payload.id };
    },
    ping: () => producer.ping(),
    close: () => producer.close(),
  };
}
