import type { Redis } from "ioredis";
import { MAX_IDS_PER_PUBLISH, redisKeys } from "#jobs/catalog.ts";
import { DependencyIndex, type IndexMeta, type PriorState } from "./dependency-index.ts";

/**
 * The take of a publish: every pending id and ref moved to processing at once (ids a failed publish
 * left in processing are taken again), with the index's meta. KEYS: the publish lock, pending and
 * processing ids, pending and processing refs, the index's meta, the set-aside backlog. ARGV[1]: the
 * lock's token ("" when the caller holds the lock already), ARGV[2]: MAX_IDS_PER_PUBLISH. With a
 * token that does not hold the lock it takes nothing and answers nil, so it can ride behind a try.
 * More ids than ARGV[2] are never read out: the pending set is renamed aside (O(1)) and the publish
 * becomes a diff build, which covers every id changed before it reads the master ref.
 */
const TAKE = `
if ARGV[1] ~= '' and redis.call('get', KEYS[1]) ~= ARGV[1] then return false end
redis.call('sunionstore', KEYS[5], KEYS[5], KEYS[4])
redis.call('del', KEYS[4])
local refs = redis.call('smembers', KEYS[5])
local meta = redis.call('hgetall', KEYS[6])
local held = redis.call('scard', KEYS[3])
local waiting = redis.call('scard', KEYS[2])
local aside = redis.call('scard', KEYS[7])
if aside > 0 or held + waiting > tonumber(ARGV[2]) then
  if aside == 0 and waiting > 0 then redis.call('rename', KEYS[2], KEYS[7]) end
  return { {}, refs, meta, held + waiting + aside }
end
redis.call('sunionstore', KEYS[3], KEYS[3], KEYS[2])
redis.call('del', KEYS[2])
return { redis.call('smembers', KEYS[3]), refs, meta, 0 }
`;

export interface Taken {
  /** The ids to publish, sorted. */
  ids: string[];
  /** Master refs announced without ids (pending-refs.ts). */
  announced: string[];
  meta: IndexMeta;
  /** How many ids wait in a backlog too large to read one by one (0: none; `ids` is then empty). */
  backlog: number;
}

/** A take and, sent right behind it on the same connection (one round trip), the index's read for the ids a delivery named. */
export interface StartedTake {
  taken: Promise<Taken | undefined>;
  /** The sorted ids the read is for (the delivery's); kept only if they are exactly the ids taken. */
  guessed: string[];
  prior: Promise<PriorState> | undefined;
}

/**
 * Sends the take and, behind it, `readPrior` for `idsHint` (on `redis`: the same connection).
 * `token`: the publish lock's token of a try sent just before on the same connection (publish-delivery.ts):
 * `taken` is then undefined unless that try got the lock. Without it the caller holds the lock.
 */
export function startTake(
  redis: Redis,
  prefix: string,
  options: {
    token?: string;
    idsHint?: readonly string[];
    readPrior: (ids: readonly string[]) => Promise<PriorState>;
  },
): StartedTake {
  const keys = redisKeys(prefix);
  const index = new DependencyIndex(redis, prefix);
  const taken = (
    redis.eval(
      TAKE,
      7,
      keys.publishLock,
      keys.pendingIds,
      keys.processingIds,
      keys.pendingRefs,
      keys.processingRefs,
      index.metaKey,
      keys.processingBacklog,
      options.token ?? "",
      String(MAX_IDS_PER_PUBLISH),
    ) as Promise<[string[], string[], string[], number] | null>
  ).then((answer) =>
    answer
      ? {
          ids: [...answer[0]].sort(),
          announced: answer[1],
          meta: DependencyIndex.parseMeta(answer[2]),
          backlog: Number(answer[3]),
        }
      : undefined,
  );
  const guessed = [...new Set(options.idsHint ?? [])].sort();
  const prior = guessed.length > 0 ? options.readPrior(guessed) : undefined;
  taken.catch(() => undefined); // awaited by the publish; a try that failed is dropped
  prior?.catch(() => undefined); // its failure fails the publish only if it is used
  return { taken, guessed, prior };
}
