import { MAX_IDS_PER_PUBLISH, redisKeys } from "#jobs/catalog.ts";
import { deliveriesWithoutDocuments } from "#metrics/metrics.ts";
import type { PublishContext } from "./context.ts";
import { DependencyIndex, type IndexMeta } from "./dependency-index.ts";
import { coveredRefs, refsToBuild } from "./pending-refs.ts";
import type { StepTimer } from "./step-timer.ts";

/**
 * Every pending id and ref moved to processing at once (ids a failed publish left in processing are
 * taken again), with the index's meta. KEYS: pending and processing ids, pending and processing
 * refs, the index's meta, the set-aside backlog. ARGV[1]: MAX_IDS_PER_PUBLISH. More ids than that
 * are never read out: the pending set is renamed aside (O(1)) and the publish becomes a diff build,
 * which covers every id changed before it reads the master ref.
 */
const TAKE = `
redis.call('sunionstore', KEYS[4], KEYS[4], KEYS[3])
redis.call('del', KEYS[3])
local refs = redis.call('smembers', KEYS[4])
local meta = redis.call('hgetall', KEYS[5])
local held = redis.call('scard', KEYS[2])
local waiting = redis.call('scard', KEYS[1])
local aside = redis.call('scard', KEYS[6])
if aside > 0 or held + waiting > tonumber(ARGV[1]) then
  if aside == 0 and waiting > 0 then redis.call('rename', KEYS[1], KEYS[6]) end
  return { {}, refs, meta, held + waiting + aside }
end
redis.call('sunionstore', KEYS[2], KEYS[2], KEYS[1])
redis.call('del', KEYS[1])
return { redis.call('smembers', KEYS[2]), refs, meta, 0 }
`;

export interface Taken {
  /** The ids to publish, sorted. */
  ids: string[];
  /** Master refs announced without ids (pending-refs.ts). */
  announced: string[];
  /** Those of `announced` no diff build has covered yet: something changed there and no delivery said what. */
  unbuilt: string[];
  meta: IndexMeta;
  /** How many ids wait in a backlog too large to read one by one (0: none; `ids` is then empty). */
  backlog: number;
}

/**
 * The take stage: every pending id and ref, at once (a burst of webhooks is one publish). Webhooks
 * arriving from now on fill a fresh pending set for the next publish. The caller holds the publish lock.
 */
export async function takeStage(ctx: PublishContext, timer: StepTimer): Promise<Taken> {
  const keys = redisKeys(ctx.queuePrefix);
  const [ids, announced, meta, backlog] = (await ctx.redis.eval(
    TAKE,
    6,
    keys.pendingIds,
    keys.processingIds,
    keys.pendingRefs,
    keys.processingRefs,
    new DependencyIndex(ctx.redis, ctx.queuePrefix).metaKey,
    keys.processingBacklog,
    String(MAX_IDS_PER_PUBLISH),
  )) as [string[], string[], string[], number];
  const unbuilt = refsToBuild(announced, await coveredRefs(ctx.redis, ctx.queuePrefix, announced));
  timer.lap("take");
  if (announced.length > unbuilt.length) {
    deliveriesWithoutDocuments.inc({ action: "covered" }, announced.length - unbuilt.length);
    ctx.logger.info(
      { refs: announced.filter((ref) => !unbuilt.includes(ref)) },
      "deliveries naming no document at refs a diff build already covered: nothing more to publish for them",
    );
  }
  return {
    ids: [...ids].sort(),
    announced,
    unbuilt,
    meta: DependencyIndex.parseMeta(meta),
    backlog: Number(backlog),
  };
}

/** Nothing was pending: no id, no ref a diff build has still to cover, no backlog. */
export function tookNothing(taken: Taken): boolean {
  return taken.ids.length === 0 && taken.unbuilt.length === 0 && taken.backlog === 0;
}
