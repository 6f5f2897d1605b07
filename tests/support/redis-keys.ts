import type { Redis } from "ioredis";

/**
 * Removes every key a test run left under its unique prefix (queues, pending ids, the index). In
 * batches: a 100,000-route index is a few hundred thousand keys, too many arguments for one call.
 */
export async function removeKeysUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  for (let i = 0; i < keys.length; i += 1_000) await redis.unlink(...keys.slice(i, i + 1_000));
}

/**
 * Removes the keys earlier runs of a benchmark left under their prefixes when their process has
 * ended: a run that failed, was interrupted or killed before its own cleanup (a 100,000-page run
 * leaves about 380 MB, which a Redis with `noeviction` keeps). `ownPrefix` is this run's,
 * `<name>-<pid>`; the others are found as `<name>-<pid>:…` keys. A run whose process is still alive
 * keeps its keys. Prints and answers the prefixes removed.
 */
export async function removeKeysOfEndedRuns(redis: Redis, ownPrefix: string): Promise<string[]> {
  const name = /^([a-z][a-z-]*)-\d+$/.exec(ownPrefix)?.[1];
  if (!name) throw new Error(`a benchmark's prefix is lowercase words and a pid, not ${ownPrefix}`);
  const owner = new RegExp(`^(${name}-(\\d+)):`);
  const prefixes = new Map<string, number>();
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${name}-*`, "COUNT", 10_000);
    cursor = next;
    for (const key of keys) {
      const match = owner.exec(key);
      if (match) prefixes.set(match[1] as string, Number(match[2]));
    }
  } while (cursor !== "0");
  const ended = [...prefixes].filter(([, pid]) => !alive(pid)).map(([prefix]) => prefix);
  for (const prefix of ended) {
    await removeKeysUnder(redis, prefix);
    console.log(`removed the keys an ended run left in Redis: ${prefix}:*`);
  }
  return ended;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // alive, another user's
  }
}
