import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { MAX_IDS_PER_PUBLISH, QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { recordAccepted } from "#metrics/publish-latency.ts";

/**
 * Adds the ids (one argument, a line each) to the pending set, unless it holds MAX_IDS_PER_PUBLISH
 * already: past that the next publish is a diff build anyway, so the delivery's ref joins the pending
 * refs instead (a diff build at a master ref at least that new covers its ids) and the set stops
 * growing. KEYS: pending ids, pending refs. ARGV: the limit, the ref to record, the ids. 1: added.
 */
const ADD_IDS = `
if redis.call('scard', KEYS[1]) >= tonumber(ARGV[1]) then
  redis.call('sadd', KEYS[2], ARGV[2])
  return 0
end
local ids = {}
for id in string.gmatch(ARGV[3], '[^\\n]+') do
  ids[#ids + 1] = id
  if #ids == 500 then redis.call('sadd', KEYS[1], unpack(ids)); ids = {} end
end
if #ids > 0 then redis.call('sadd', KEYS[1], unpack(ids)) end
return 1
`;

export interface RecordedDelivery {
  /** The job existed already (a redelivery). */
  existed: boolean;
  /** The pending set was full: the ids were not added, the ref calls for a diff build. */
  idsLeftOut: boolean;
}

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
  /** The master ref the delivery announced, if any. */
  masterRef: string | undefined,
  /** The master ref of a delivery that named no document: the worker publishes every route at once. */
  refWithoutDocuments?: string,
): Promise<RecordedDelivery> {
  const keys = redisKeys(prefix);
  // BullMQ keeps a job as a hash at <prefix>:<queue>:<id>.
  const multi = redis.multi().exists(`${prefix}:${QUEUE_NAME}:${jobId}`);
  if (documents.length > 0)
    multi.eval(
      ADD_IDS,
      2,
      keys.pendingIds,
      keys.pendingRefs,
      String(MAX_IDS_PER_PUBLISH),
      masterRef ?? `ids-left-out-${randomUUID()}`,
      documents.join("\n"),
    );
  if (refWithoutDocuments) multi.sadd(keys.pendingRefs, refWithoutDocuments);
  if (documents.length > 0 || refWithoutDocuments) recordAccepted(multi, prefix);
  const answers = await multi.exec();
  return {
    existed: answers?.[0]?.[1] === 1,
    idsLeftOut: documents.length > 0 && answers?.[1]?.[1] === 0,
  };
}
