import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { redisKeys } from "#jobs/catalog.ts";
import { chunksOf } from "#jobs/chunks.ts";

/**
 * Purges the edge still owes, kept in Redis so that any worker sends them: routes written whose
 * purge was not acknowledged (the edge down, refusing, slow), with the time each first waited.
 * `*` stands for everything (a site-wide purge that failed). A purge sent later reaches the pages
 * as they are then: purging twice, or late, is always safe; purging before the write is not, and
 * a route enters this set only after its write.
 *
 * Each entry carries a token, so that clearing what a purge acknowledged cannot clear an entry a
 * later publish added meanwhile (it wrote the page again, and its own purge failed): only an entry
 * unchanged since it was read goes.
 */
export const EVERYTHING = "*";

export interface PendingPurges {
  /** Route → its entry as read (`<since ms>|<token>`). */
  entries: Map<string, string>;
  /** Whether everything is owed (a site-wide purge failed). */
  everything: boolean;
  /** The routes owed (without `*`). */
  routes: string[];
  /** When the oldest entry started waiting (epoch ms), undefined when none does. */
  since: number | undefined;
}

/** Adds routes (or EVERYTHING), keeping each one's first waiting time; a new token for each. */
const ADD = `
local token = ARGV[2]
for i = 3, #ARGV do
  local old = redis.call("hget", KEYS[1], ARGV[i])
  local since = ARGV[1]
  if old then since = string.match(old, "^(%d+)") or ARGV[1] end
  redis.call("hset", KEYS[1], ARGV[i], since .. "|" .. token)
end
return #ARGV - 2`;

/** Removes each route (ARGV odd) whose entry is still the one read (ARGV even). */
const CLEAR = `
local removed = 0
for i = 1, #ARGV, 2 do
  if redis.call("hget", KEYS[1], ARGV[i]) == ARGV[i + 1] then
    redis.call("hdel", KEYS[1], ARGV[i])
    removed = removed + 1
  end
end
return removed`;

export async function readPendingPurges(redis: Redis, prefix: string): Promise<PendingPurges> {
  const all = await redis.hgetall(redisKeys(prefix).edgePending);
  const entries = new Map(Object.entries(all));
  let since: number | undefined;
  for (const value of entries.values()) {
    const at = Number(value.split("|", 1)[0]);
    if (Number.isFinite(at) && (since === undefined || at < since)) since = at;
  }
  return {
    entries,
    everything: entries.has(EVERYTHING),
    routes: [...entries.keys()].filter((route) => route !== EVERYTHING).sort(),
    since,
  };
}

/**
 * Records routes (or everything) as owed by the edge since `at`, and why the purge failed (no
 * `error`: it was not sent, the edge owing others; the last failure stays what `status` shows).
 */
export async function addPendingPurges(
  redis: Redis,
  prefix: string,
  routes: readonly string[] | typeof EVERYTHING,
  failure: { at: number; edge: string; error?: string },
): Promise<void> {
  const keys = redisKeys(prefix);
  const list = routes === EVERYTHING ? [EVERYTHING] : [...new Set(routes)];
  if (list.length === 0) return;
  const token = randomUUID();
  for (const chunk of chunksOf(list))
    await redis.eval(ADD, 1, keys.edgePending, String(failure.at), token, ...chunk);
  if (failure.error !== undefined)
    await redis.set(
      keys.edgeLastError,
      JSON.stringify({ at: new Date(failure.at).toISOString(), edge: failure.edge, error: failure.error }),
    );
}

/** Forgets what an acknowledged purge covered: the entries of `read` that nobody changed since. */
export async function clearPendingPurges(redis: Redis, prefix: string, read: PendingPurges): Promise<number> {
  if (read.entries.size === 0) return 0;
  let removed = 0;
  for (const chunk of chunksOf([...read.entries]))
    removed += (await redis.eval(CLEAR, 1, redisKeys(prefix).edgePending, ...chunk.flat())) as number;
  return removed;
}

/**
 * A publish whose purge did not go out at once: the deliveries it took wait to be live until a
 * purge is acknowledged (publish-to-live). Keeps the latest such start.
 */
export async function deferLive(redis: Redis, prefix: string, takenFrom: number): Promise<void> {
  await redis.eval(
    `local cur = tonumber(redis.call("get", KEYS[1]) or "0")
     if tonumber(ARGV[1]) > cur then redis.call("set", KEYS[1], ARGV[1]) end
     return 1`,
    1,
    redisKeys(prefix).edgeLiveFrom,
    String(takenFrom),
  );
}

/** Takes the deferred start (if any): an acknowledged purge made those deliveries live. */
export async function takeDeferredLive(redis: Redis, prefix: string): Promise<number | undefined> {
  const value = await redis.getdel(redisKeys(prefix).edgeLiveFrom);
  return value === null ? undefined : Number(value);
}

/** What `pressroom status` says of the edge. */
export async function describeEdge(
  redis: Redis,
  prefix: string,
  edge: string | undefined,
): Promise<string[]> {
  const keys = redisKeys(prefix);
  const [pending, lastError] = await Promise.all([
    readPendingPurges(redis, prefix),
    redis.get(keys.edgeLastError),
  ]);
  const where = edge ?? "no CDN_PURGE_URL";
  if (pending.entries.size === 0) return [`edge:                ${where}, no purge waiting`];
  const what = pending.everything
    ? `everything${pending.routes.length > 0 ? ` and ${pending.routes.length} routes` : ""}`
    : `${pending.routes.length} route${pending.routes.length === 1 ? "" : "s"}`;
  const since = pending.since === undefined ? "" : ` since ${new Date(pending.since).toISOString()}`;
  const error = lastError ? (JSON.parse(lastError) as { at: string; error: string }) : undefined;
  return [
    `edge:                ${what} awaiting purge${since} (${where}; retried with backoff, and by reconcile)`,
    ...(error ? [`  last failure at ${error.at}: ${error.error}`] : []),
    ...pending.routes.slice(0, 20).map((route) => `  ${route}`),
    ...(pending.routes.length > 20 ? [`  … and ${pending.routes.length - 20} more`] : []),
  ];
}
