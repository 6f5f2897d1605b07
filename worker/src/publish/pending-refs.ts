/**
 * Deliveries that announce a new master ref and name no document (a body Prismic sent, recorded in
 * github.com/nebulab/renderful spec/renderful/provider/prismic_spec.rb; tests/support/fixtures/SOURCES.md).
 * Something changed at that ref and nothing says what, so only a diff build (every route rendered,
 * changed bytes written, orphans deleted, the index rebuilt) can publish it.
 *
 * The receiver records the ref in `pending-refs` in the same transaction as the job, as it records
 * ids; a publish takes the refs with the ids, atomically, and forgets them only when it commits.
 * Prismic refs are opaque tokens with no order, so "newer than the last publish" cannot be read from
 * a ref. What can be known is whether a diff build already covered a ref: one that ran at that
 * master ref, or that took the delivery's ref before reading the master ref (Prismic moves the ref
 * before it delivers, so the master the build read is at least as new). Those refs are kept in
 * `built-refs`; a redelivery of one, or one arriving after a diff build that covered it, costs
 * nothing. An older ref overtaken by a newer publish still runs one diff build (at the newest
 * master): redundant, never wrong, and at most one per ref.
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
