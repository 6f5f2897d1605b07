import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

/**
 * Runs `task` while holding a Redis lock, so that one process publishes at a time (two publishes
 * at once would each commit half of the index). The lock expires if its holder dies (a killed
 * worker), and is extended while the task runs. Waiting is fine: the holder publishes our ids too,
 * or leaves them for us.
 */
export async function withLock<T>(
  redis: Redis,
  key: string,
  task: () => Promise<T>,
  ttlMs = 30_000,
): Promise<T> {
  const token = randomUUID();
  while ((await redis.set(key, token, "PX", ttlMs, "NX")) !== "OK") await sleep(50);
  const keepAlive = setInterval(() => {
    redis.eval(EXTEND, 1, key, token, String(ttlMs)).catch(() => undefined);
  }, ttlMs / 3);
  try {
    return await task();
  } finally {
    clearInterval(keepAlive);
    await redis.eval(RELEASE, 1, key, token).catch(() => undefined);
  }
}
