import type { Redis } from "ioredis";
import { QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { recordAccepted } from "#metrics/publish-latency.ts";

/**
 * One transaction: the changed ids join the pending set (and a master ref announced with no ids
 * the pending refs), the delivery's acceptance time is kept for the publish-to-live latency, and
 * whether the job already exists (a redelivery) is read.
 */
export async function recordDelivery(
  redis: Redis,
  prefix: string,
  jobId: string,
  documents: readonly string[],
  /** The master ref of a delivery that named no document: the worker publishes every route at once. */
  refWithoutDocuments?: string,
): Promise<boolean> {
  // BullMQ keeps a job as a hash at <prefix>:<queue>:<id>.
  const multi = redis.multi().exists(`${prefix}:${QUEUE_NAME}:${jobId}`);
  if (documents.length > 0) multi.sadd(redisKeys(prefix).pendingIds, ...documents);
  if (refWithoutDocuments) multi.sadd(redisKeys(prefix).pendingRefs, refWithoutDocuments);
  if (documents.length > 0 || refWithoutDocuments) recordAccepted(multi, prefix);
  const answers = await multi.exec();
  return answers?.[0]?.[1] === 1;
}
