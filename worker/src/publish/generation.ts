import type { Redis } from "ioredis";
import { redisKeys } from "#jobs/catalog.ts";
import type { TransactionGuard } from "./chunked-transaction.ts";

/**
 * Every write carries its generation, so that no write ever goes back in time. A publish (and a
 * diff build) takes a new generation from a Redis counter under the publish lock, and its child jobs
 * carry it. A killed worker's child job that BullMQ retries after a newer publish started is then
 * dropped before it renders (`isCurrent`), and each write is claimed first (`claimWrite`, one Lua
 * script): refused when a newer generation started or already wrote that route, recorded otherwise,
 * with the route unsettled until the index commits (a publish that fails after writing leaves
 * storage ahead of the index: the next one renders those routes). What remains is one put's window,
 * which reconcile's storage sample (verify.ts) repairs. If Redis loses its data the counter
 * restarts, but the child jobs are lost with it.
 */
const CLAIM = `
local current = tonumber(redis.call("get", KEYS[1]) or "0")
local mine = tonumber(ARGV[2])
if current > mine then return 0 end
local written = tonumber(redis.call("hget", KEYS[2], ARGV[1]) or "0")
if written > mine then return 0 end
redis.call("hset", KEYS[2], ARGV[1], ARGV[2])
redis.call("sadd", KEYS[3], ARGV[1])
return 1`;

/** CLAIM for many routes in one round trip: answers, per route (ARGV[2..]), 1 granted or 0 refused. */
const CLAIM_MANY = `
local current = tonumber(redis.call("get", KEYS[1]) or "0")
local mine = tonumber(ARGV[1])
local answers = {}
for i = 2, #ARGV do
  local granted = 0
  if current <= mine then
    local written = tonumber(redis.call("hget", KEYS[2], ARGV[i]) or "0")
    if written <= mine then
      redis.call("hset", KEYS[2], ARGV[i], ARGV[1])
      redis.call("sadd", KEYS[3], ARGV[i])
      granted = 1
    end
  end
  answers[i - 1] = granted
end
return answers`;

/** Starts a new generation: call under the publish lock, before anything is rendered. */
export async function nextGeneration(redis: Redis, prefix: string): Promise<number> {
  return redis.incr(redisKeys(prefix).generation);
}

/** Whether `generation` is still the newest (a child job of a superseded publish is not). */
export async function isCurrent(redis: Redis, prefix: string, generation: number): Promise<boolean> {
  const current = Number((await redis.get(redisKeys(prefix).generation)) ?? "0");
  return current <= generation;
}

/** Claims the write of `route` for `generation`: false when a newer generation started or wrote it. */
export async function claimWrite(
  redis: Redis,
  prefix: string,
  route: string,
  generation: number,
): Promise<boolean> {
  const keys = redisKeys(prefix);
  const granted = await redis.eval(
    CLAIM,
    3,
    keys.generation,
    keys.routeGenerations,
    keys.unsettledRoutes,
    route,
    String(generation),
  );
  return granted === 1;
}

/**
 * `claimWrite` for a batch of routes (a fan-out's child job writes up to 100): one script, one round
 * trip, the same rule per route. Answers the routes granted.
 */
export async function claimWrites(
  redis: Redis,
  prefix: string,
  routes: readonly string[],
  generation: number,
): Promise<Set<string>> {
  if (routes.length === 0) return new Set();
  const keys = redisKeys(prefix);
  const answers = (await redis.eval(
    CLAIM_MANY,
    3,
    keys.generation,
    keys.routeGenerations,
    keys.unsettledRoutes,
    String(generation),
    ...routes,
  )) as number[];
  return new Set(routes.filter((_, i) => answers[i] === 1));
}

/** Throws SupersededError unless `generation` is still the newest: call just before a write stage. */
export async function ensureCurrent(redis: Redis, prefix: string, generation: number): Promise<void> {
  if (!(await isCurrent(redis, prefix, generation))) throw new SupersededError(generation);
}

/**
 * A commit's guard (chunked-transaction.ts): the transaction applies only while `generation` is
 * still the newest, checked under WATCH, so a worker paused between its last check and its commit
 * (SIGSTOP, a VM freeze) cannot commit over the publish that took over meanwhile.
 */
export function generationGuard(prefix: string, generation: number): TransactionGuard {
  return {
    key: redisKeys(prefix).generation,
    atMost: generation,
    refused: () => new SupersededError(generation),
  };
}

/**
 * What a build needs to carry its generation (full-build.ts `guard`): each route's write claimed
 * first, and the last steps (orphans, manifest) only while still the newest.
 */
export function buildGuard(redis: Redis, prefix: string, generation: number) {
  return {
    claim: (routes: readonly string[]) => claimWrites(redis, prefix, routes, generation),
    ensureCurrent: () => ensureCurrent(redis, prefix, generation),
  };
}

/** Thrown where a superseded publish would commit: its newer successor commits instead. */
export class SupersededError extends Error {
  constructor(generation: number) {
    super(`publish generation ${generation} was superseded by a newer publish; its results are dropped`);
    this.name = "SupersededError";
  }
}
