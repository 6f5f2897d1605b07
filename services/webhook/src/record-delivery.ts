import type { Redis } from "ioredis";
import { QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { recordAccepted } from "#metrics/publish-latency.ts";

/**
 * One transaction: the changed ids join the pending set, the delivery's acceptance time is kept
 * for the publish-to-live latency, and whether the job already exists (a redelivery) is read.
 */
export async function recordDelivery(
  redis: Redis,
  prefix: string,
  jobId: string,
  documents: readonly string[],
): Promise<boolean> {
  // BullMQ keeps a job as a hash at <prefix>:<queue>:<id>.
  const multi = redis.multi().exists(`${prefix}:${QUEUE_NAME}:${jobId}`);
  if (documents.length > 0) {
    multi.sadd(redisKeys(prefix).pendingIds, ...documents);
    recordAccepted(multi, prefix);
  }
  const answers = await multi.exec();
  return answers?.[0]?.[1] === 1;
}
