import type { Redis } from "ioredis";

/**
 * Removes every key a test run left under its unique prefix (queues, pending ids, the index). In
 * batches: a 100,000-route index is a few hundred thousand keys, too many arguments for one call.
 */
export async function removeKeysUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  for (let i = 0; i < keys.length; i += 1_000) await redis.unlink(...keys.slice(i, i + 1_000));
}
