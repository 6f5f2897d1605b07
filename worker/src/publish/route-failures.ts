import { EventEmitter } from "node:events";
import type { Redis } from "ioredis";
import { chunksOf } from "#jobs/chunks.ts";

/** A route whose render threw: it keeps its last good page, and the rest of the publish commits. */
export interface RouteFailure {
  route: string;
  /** The document the route renders, when known (its index entry, or this publish's documents). */
  documentId?: string;
  error: string;
  ref: string;
  at: string;
  /** Publishes in a row that failed to render it (reset when one succeeds). */
  attempts: number;
}

const events = new EventEmitter();

/**
 * Subscribes to route failures as they happen (one call per failed route): the hook for a metric
 * (`pressroom_route_render_failures_total`, exposed by the ops side) without this module knowing
 * about Prometheus. Returns the unsubscribe function.
 */
export function onRouteFailed(listener: (failure: RouteFailure) => void): () => void {
  events.on("route-failed", listener);
  return () => events.off("route-failed", listener);
}

export function emitRouteFailed(failure: RouteFailure): void {
  events.emit("route-failed", failure);
}

/** Whether a render error is worth retrying the whole publish for (the content API timed out, 5xx, 429). */
export function isTransient(error: unknown): boolean {
  return (error as { retryable?: unknown } | null)?.retryable === true;
}

/** `<prefix>:index:failed`: route → RouteFailure (JSON), beside the dependency index (same prefix). */
const key = (prefix: string) => `${prefix}:index:failed`;

/** Records this publish's failures and forgets the failures of routes it rendered fine. */
export async function recordRouteFailures(
  redis: Redis,
  prefix: string,
  failed: readonly Omit<RouteFailure, "attempts">[],
  rendered: readonly string[],
): Promise<void> {
  const before: (string | null)[] = [];
  for (const chunk of chunksOf(failed.map((f) => f.route)))
    before.push(...(await redis.hmget(key(prefix), ...chunk)));
  const multi = redis.multi();
  for (const chunk of chunksOf(rendered)) multi.hdel(key(prefix), ...chunk);
  failed.forEach((failure, i) => {
    const previous = before[i] ? (JSON.parse(before[i] as string) as RouteFailure) : undefined;
    const record: RouteFailure = { ...failure, attempts: (previous?.attempts ?? 0) + 1 };
    multi.hset(key(prefix), failure.route, JSON.stringify(record));
    emitRouteFailed(record);
  });
  await multi.exec();
}

export async function routeFailures(redis: Redis, prefix: string): Promise<RouteFailure[]> {
  const all = await redis.hgetall(key(prefix));
  return Object.values(all)
    .map((value) => JSON.parse(value) as RouteFailure)
    .sort((a, b) => a.route.localeCompare(b.route));
}
