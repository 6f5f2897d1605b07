import { randomUUID } from "node:crypto";
import type { ChainableCommander, Redis } from "ioredis";
import { publishToLive } from "./metrics.ts";

/**
 * Publish-to-live latency needs the moment each delivery was accepted, and it must survive the
 * process that accepted it: the webhook receiver records it in Redis (a sorted set scored by
 * epoch ms) in the same transaction as the pending ids, and the worker that publishes them reads
 * and removes it. Times come from two machines' clocks: keep them in sync (NTP), as for any metric.
 */
export const acceptedKey = (prefix: string) => `${prefix}:publish-accepted`;

/** Acceptances older than this are dropped when the next one is recorded: no publish will claim them. */
const KEEP_MS = 24 * 3600_000;

/** Adds to `multi`: this delivery was accepted at `now`. */
export function recordAccepted(multi: ChainableCommander, prefix: string, now = Date.now()): void {
  const key = acceptedKey(prefix);
  multi.zadd(key, now, `${now}-${randomUUID()}`).zremrangebyscore(key, "-inf", now - KEEP_MS);
}

/**
 * A publish that took its ids at or after `takenFrom` made every delivery accepted before then
 * live at `liveAt` (epoch ms): observes each one's latency and forgets it. Deliveries accepted
 * while the publish ran wait for the next one. Returns how many were observed.
 */
export async function observeLive(
  redis: Redis,
  prefix: string,
  takenFrom: number,
  liveAt: number,
): Promise<number> {
  const key = acceptedKey(prefix);
  const answers = await redis
    .multi()
    .zrangebyscore(key, "-inf", takenFrom, "WITHSCORES")
    .zremrangebyscore(key, "-inf", takenFrom)
    .exec();
  const flat = (answers?.[0]?.[1] as string[] | undefined) ?? [];
  for (let i = 1; i < flat.length; i += 2) {
    publishToLive.observe(Math.max(0, liveAt - Number(flat[i])) / 1000);
  }
  return flat.length / 2;
}
