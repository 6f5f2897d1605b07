import { type Job, UnrecoverableError } from "bullmq";
import type { Redis } from "ioredis";
import { recordDelivered, recordUndelivered } from "#contact/undelivered.ts";
import type { Logger } from "#logger";

/**
 * Runs one delivery attempt of a `contact` job and keeps the undelivered list in step
 * (#contact/undelivered.ts): a failed attempt records the message with its error, and whether
 * any attempt is left; a successful one removes it. Bookkeeping that fails (Redis away) is
 * logged, never allowed to change the attempt's outcome.
 */
export async function recordingDelivery<T>(
  redis: Redis,
  prefix: string,
  job: Job,
  logger: Logger,
  deliver: () => Promise<T>,
): Promise<T> {
  const data = (job.data ?? {}) as { id?: unknown; receivedAt?: unknown };
  const id = typeof data.id === "string" ? data.id : String(job.id);
  try {
    const result = await deliver();
    await recordDelivered(redis, prefix, id).catch((err: unknown) =>
      logger.warn({ err, contactId: id }, "could not clear the message from the undelivered list"),
    );
    return result;
  } catch (error) {
    const attempts = job.attemptsMade + 1;
    await recordUndelivered(redis, prefix, {
      id,
      receivedAt:
        typeof data.receivedAt === "string" ? data.receivedAt : new Date(job.timestamp).toISOString(),
      attempts,
      error: error instanceof Error ? error.message : String(error),
      lastAttemptAt: new Date().toISOString(),
      givenUp: error instanceof UnrecoverableError || attempts >= (job.opts.attempts ?? 1),
    }).catch((err: unknown) =>
      logger.warn({ err, contactId: id }, "could not record the message as undelivered"),
    );
    throw error;
  }
}
