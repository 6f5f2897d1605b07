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
 * Removes the keys earlier runs of a benchmark left under their prefixes (`<name>-<pid>:…`) when
 * their process has ended: a run that failed, was interrupted or killed before its own cleanup (a
 * 100,000-page run leaves about 380 MB, which a Redis with `noeviction` keeps). A run whose process
 * is still alive keeps its keys. Answers the prefixes removed.
 */
export async function removeKeysOfEndedRuns(redis: Redis, name: string): Promise<string[]> {
  if (!/^[a-z][a-z-]*$/.test(name)) throw new Error(`a benchmark's name is lowercase words, not ${name}`);
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
  for (const prefix of ended) await removeKeysUnder(redis, prefix);
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
