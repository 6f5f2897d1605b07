import type { Redis } from "ioredis";
import { redisKeys } from "#jobs/catalog.ts";
import { acceptedKey } from "#metrics/publish-latency.ts";

/**
 * Publishing is stalled when deliveries have waited this long and no publish completed meanwhile. A
 * publish takes under a second, a fan-out of 10,000 routes under a minute and a diff build of
 * 100,000 pages about four: ten minutes without one is not load, it is a fault (a full disk, a full
 * Redis, a publish that fails at every attempt) that a person must look at.
 */
export const PUBLISH_STALL_MS = 10 * 60_000;

/** The last publish that failed, as `pressroom status` and the readiness check name it. */
export interface PublishFailure {
  /** ISO time. */
  at: string;
  /** The error's message, on one line. */
  error: string;
  /** The process, as `<host>:<pid>`. */
  by: string;
}

export interface PublishingHealth {
  /** Ids, refs and a backlog waiting for a publish. */
  waiting: number;
  /** When the oldest delivery not yet live was accepted (epoch ms). */
  waitingSince: number | undefined;
  /** When the last publish completed (epoch ms). */
  lastPublishAt: number | undefined;
  lastFailure: PublishFailure | undefined;
  /** Failed attempts since the last publish that completed. */
  failuresSince: number;
  stalled: boolean;
}

const failureKey = (prefix: string) => `${prefix}:publish-failure`;
const failuresSinceKey = (prefix: string) => `${prefix}:publish-failures-since`;

/** Records a failed publish attempt (best effort: the failure may be Redis itself). */
export async function recordPublishFailure(
  redis: Redis,
  prefix: string,
  error: unknown,
  by: string,
): Promise<void> {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").slice(0, 500);
  const failure: PublishFailure = { at: new Date().toISOString(), error: message, by };
  await redis
    .multi()
    .set(failureKey(prefix), JSON.stringify(failure))
    .incr(failuresSinceKey(prefix))
    .exec()
    .catch(() => undefined);
}

/** Added to a publish's commit: it completed, so the failures counted before it are over. */
export const clearFailuresCommand = (prefix: string): [string, string] => ["del", failuresSinceKey(prefix)];

export async function readPublishingHealth(
  redis: Redis,
  prefix: string,
  stallMs = PUBLISH_STALL_MS,
  now = Date.now(),
): Promise<PublishingHealth> {
  const keys = redisKeys(prefix);
  const answers = await redis
    .multi()
    .scard(keys.pendingIds)
    .scard(keys.processingIds)
    .scard(keys.processingBacklog)
    .scard(keys.pendingRefs)
    .scard(keys.processingRefs)
    .zrange(acceptedKey(prefix), 0, 0, "WITHSCORES")
    .get(keys.lastPublish)
    .get(failureKey(prefix))
    .get(failuresSinceKey(prefix))
    .exec();
  const value = (i: number) => {
    const [error, result] = answers?.[i] ?? [new Error("no answer"), null];
    if (error) throw error;
    return result;
  };
  const waiting = [0, 1, 2, 3, 4].reduce((sum, i) => sum + Number(value(i)), 0);
  const oldest = value(5) as string[];
  const waitingSince = oldest.length === 2 ? Number(oldest[1]) : undefined;
  const lastPublish = value(6) as string | null;
  const lastPublishAt = lastPublish
    ? Date.parse((JSON.parse(lastPublish) as { at?: string }).at ?? "")
    : undefined;
  const failure = value(7) as string | null;
  const lastFailure = failure ? (JSON.parse(failure) as PublishFailure) : undefined;
  const failuresSince = Number(value(8) ?? 0);
  const stalled =
    waiting > 0 &&
    waitingSince !== undefined &&
    now - waitingSince > stallMs &&
    (lastPublishAt === undefined || Number.isNaN(lastPublishAt) || now - lastPublishAt > stallMs);
  return { waiting, waitingSince, lastPublishAt, lastFailure, failuresSince, stalled };
}

/** One line: why publishing is stalled, for readiness, the log and `pressroom status`. */
export function describeStall(health: PublishingHealth, now = Date.now()): string {
  const minutes = (since: number | undefined) =>
    since === undefined ? "ever" : `${Math.round((now - since) / 60_000)} min`;
  const failure = health.lastFailure
    ? `; last failure at ${health.lastFailure.at} (${health.failuresSince} since the last publish): ${health.lastFailure.error}`
    : "";
  return `publishing stalled: ${health.waiting} waiting for ${minutes(health.waitingSince)}, no publish completed for ${minutes(health.lastPublishAt)}${failure}`;
}
