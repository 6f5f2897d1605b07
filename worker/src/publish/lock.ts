import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

/**
 * How long the publish lock (and BullMQ's job lock) outlives a holder that stopped renewing it: a
 * killed worker, or one paused (SIGSTOP, a VM freeze, a long GC). Another worker takes over after at
 * most this, so a paused holder delays publishing by seconds, not the 30 s + 30 s of BullMQ's
 * defaults. The holder renews every third of it, so it loses the lock only when its
 * event loop stalls for two thirds of it; the generation guard (generation.ts) then keeps whatever
 * it does after resuming from being written. `WORKER_LOCK_MS` sets it.
 */
export const DEFAULT_LOCK_MS = 8_000;

export interface LockOptions {
  /** The lock's time to live, renewed every third of it (default DEFAULT_LOCK_MS). */
  ttlMs?: number;
  /** Aborted at shutdown: stops waiting for the lock at once. */
  signal?: AbortSignal;
}

/**
 * Takes the lock only while one of the sets `pending` has a member: each try counts them and sets the
 * lock in one script (a check, then a try, could take the lock for ids another holder just took).
 * 1: taken; 0: held by another; -1: nothing pending.
 */
const ACQUIRE_WHILE_PENDING = `for i = 2, #KEYS do
  if redis.call("scard", KEYS[i]) > 0 then
    if redis.call("set", KEYS[1], ARGV[1], "PX", ARGV[2], "NX") then return 1 end
    return 0
  end
end
return -1`;

/**
 * Runs `task` while holding a Redis lock, so that one process publishes at a time (two publishes
 * at once would each commit half of the index). The lock expires if its holder dies or stops (a
 * killed or paused worker), and is extended while the task runs. Waiting is fine: the holder
 * publishes our ids too, or leaves them for us.
 */
export async function withLock<T>(
  redis: Redis,
  key: string,
  task: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const held = await hold(redis, key, task, options, async (token, ttlMs) =>
    (await redis.set(key, token, "PX", ttlMs, "NX")) === "OK" ? "taken" : "held",
  );
  return held.result as T;
}

/**
 * `withLock` for work that only exists while one of the sets `pending` has a member (ids waiting
 * for a publish): answers `undefined`, without taking the lock, as soon as they are all empty,
 * which is what a delivery finds when the holder it waited for took its ids.
 */
export async function withLockWhilePending<T>(
  redis: Redis,
  key: string,
  pending: readonly string[],
  task: () => Promise<T>,
  options: LockOptions = {},
): Promise<T | undefined> {
  const held = await hold(redis, key, task, options, async (token, ttlMs) => {
    const answer = await redis.eval(ACQUIRE_WHILE_PENDING, 1 + pending.length, key, ...pending, token, ttlMs);
    return answer === 1 ? "taken" : answer === 0 ? "held" : "nothing";
  });
  return held.taken ? (held.result as T) : undefined;
}

async function hold<T>(
  redis: Redis,
  key: string,
  task: () => Promise<T>,
  options: LockOptions,
  acquire: (token: string, ttlMs: number) => Promise<"taken" | "held" | "nothing">,
): Promise<{ taken: true; result: T } | { taken: false; result?: undefined }> {
  const ttlMs = options.ttlMs ?? DEFAULT_LOCK_MS;
  const token = randomUUID();
  for (;;) {
    const state = await acquire(token, ttlMs);
    if (state === "taken") break;
    if (state === "nothing") return { taken: false };
    options.signal?.throwIfAborted();
    await sleep(50, undefined, options.signal ? { signal: options.signal } : undefined);
  }
  const keepAlive = setInterval(() => {
    redis.eval(EXTEND, 1, key, token, String(ttlMs)).catch(() => undefined);
  }, ttlMs / 3);
  try {
    return { taken: true, result: await task() };
  } finally {
    clearInterval(keepAlive);
    await redis.eval(RELEASE, 1, key, token).catch(() => undefined);
  }
}
