/**
 * Deliveries that announce a new master ref and name no document (a body Prismic sent:
 * tests/support/fixtures/SOURCES.md). Only a diff build can publish them. The receiver records the
 * ref in `pending-refs` in the job's transaction; a publish takes refs with ids and forgets them only
 * when it commits. Refs are opaque and unordered, so what is kept instead is which refs a diff build
 * already covered (`built-refs`): a redelivery of one costs nothing, and an older ref overtaken by a
 * newer publish costs at most one redundant diff build.
 */
import type { Redis } from "ioredis";
import { redisKeys } from "#jobs/catalog.ts";
import { chunksOf } from "#jobs/chunks.ts";
import type { RedisCommand } from "./chunked-transaction.ts";

/** How many covered refs are remembered (newest kept): far more than the deliveries of a day. */
export const BUILT_REFS_KEPT = 1_000;

/** The announced refs no diff build has covered yet: each calls for one. Pure. */
export function refsToBuild(announced: readonly string[], covered: ReadonlySet<string>): string[] {
  return [...new Set(announced)].filter((ref) => !covered.has(ref)).sort();
}

/** Which of `refs` a diff build already covered (one round trip). */
export async function coveredRefs(
  redis: Redis,
  prefix: string,
  refs: readonly string[],
): Promise<Set<string>> {
  if (refs.length === 0) return new Set();
  const covered = new Set<string>();
  for (const chunk of chunksOf(refs)) {
    const scores = await redis.zmscore(redisKeys(prefix).builtRefs, ...chunk);
    for (const [i, ref] of chunk.entries()) if (scores[i] !== null) covered.add(ref);
  }
  return covered;
}

/** The commands recording that a diff build covered `refs` (the master ref it read, the refs it took). */
export function builtRefsCommands(prefix: string, refs: readonly string[]): RedisCommand[] {
  const unique = [...new Set(refs.filter(Boolean))];
  if (unique.length === 0) return [];
  const key = redisKeys(prefix).builtRefs;
  const now = String(Date.now());
  return [
    ...[...chunksOf(unique)].map(
      (chunk): RedisCommand => ["zadd", key, ...chunk.flatMap((ref) => [now, ref])],
    ),
    ["zremrangebyrank", key, "0", String(-(BUILT_REFS_KEPT + 1))],
  ];
}
