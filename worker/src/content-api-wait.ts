/**
 * What `pressroom status` says while the content API rate-limits the workers ("waiting for the
 * content API until 14:03:21 (429)"): each 429 is recorded in Redis, expiring at the time it named.
 * A fan-out reads it too: a wait longer than a job may sleep fails the publish now, releasing the
 * lock, instead of waiting for children delayed until then.
 */
import type { Redis } from "ioredis";
import type { RateLimitWait } from "#content";
import { clockTime, RateLimitedError } from "#errors";
import { redisKeys } from "#jobs/catalog.ts";
import type { Logger } from "#logger";

/** Records a 429's wait (fire and forget: a status line must never fail a request). */
export function recordContentApiWait(
  redis: Redis,
  prefix: string,
  wait: RateLimitWait,
  logger: Logger,
): void {
  const until = Math.round(wait.until);
  if (until <= Date.now()) return;
  redis
    .set(redisKeys(prefix).contentApiWait, String(until), "PXAT", until)
    .catch((error: unknown) => logger.warn({ err: error }, "could not record the content API's wait"));
}

/** Until when (epoch ms) the content API asked to wait, or undefined when no wait is on. */
export async function readContentApiWait(redis: Redis, prefix: string): Promise<number | undefined> {
  const until = Number(await redis.get(redisKeys(prefix).contentApiWait));
  return Number.isFinite(until) && until > Date.now() ? until : undefined;
}

/** The status line: "waiting for the content API until 14:03:21 (429)" (UTC), or "no wait". */
export function describeContentApiWait(until: number | undefined): string {
  return until === undefined
    ? "no wait (no 429 asks for one)"
    : `waiting for the content API until ${clockTime(until)} (429)`;
}

/**
 * For a publish waiting on its child jobs: the error to fail it with when the content API asked
 * for a wait longer than `maxWaitMs` (the children are delayed until then; the lock must not be).
 */
export async function longWaitError(
  redis: Redis,
  prefix: string,
  maxWaitMs: number,
): Promise<RateLimitedError | undefined> {
  const until = await readContentApiWait(redis, prefix);
  if (until === undefined || until - Date.now() <= maxWaitMs) return undefined;
  return new RateLimitedError(
    "(the child jobs' requests)",
    undefined,
    until,
    "a child job of this publish was refused for longer than a job may wait; the publish retries then",
  );
}
