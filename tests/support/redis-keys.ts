import type { Redis } from "ioredis";

/** Removes every key a test run left under its unique prefix (queues, pending ids, the index). */
export async function removeKeysUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
}
