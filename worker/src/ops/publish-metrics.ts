import type { Redis } from "ioredis";
import type { Logger } from "#logger";
import { publishDuration, publishedRoutes } from "#metrics/metrics.ts";
import { observeLive } from "#metrics/publish-latency.ts";
import type { PublishContext, PublishSummary } from "../publish/context.ts";
import { PUBLISHER, publish } from "../publish/publish.ts";
import type { PublishJob } from "../publish/run.ts";
import { recordPublishFailure } from "../publishing-health.ts";

/** What a publish or build reports that metrics read (PublishSummary and diffBuild's answer both fit). */
export interface ObservedSummary {
  mode: string;
  rendered: number;
  written: number;
  unchanged: number;
  deleted: number;
  durationMs?: number;
  startedAt?: number;
  timings?: Record<string, number>;
  /** With an edge: when the purge of its changed own routes was acknowledged, or that it was not. */
  edge?: { liveAt?: number; deferred: boolean };
}

export interface ObserveContext {
  redis: Redis;
  queuePrefix: string;
  logger: Logger;
}

/**
 * Records one publish: its duration, its routes, and the publish-to-live latency of every delivery
 * it made live (accepted before it took the pending ids; live when its changed documents' own
 * routes were written, `ownDone`, or at its end for a fan-out or diff build — and with an edge,
 * when their purge was acknowledged: a purge not acknowledged leaves them to the one that is,
 * purge-stage.ts). Returns the summary.
 */
export async function observePublish<S extends ObservedSummary>(ctx: ObserveContext, summary: S): Promise<S> {
  if (summary.mode === "nothing-pending") return summary;
  countRoutes(summary);
  if (summary.durationMs !== undefined)
    publishDuration.observe({ mode: summary.mode }, summary.durationMs / 1000);
  if (summary.startedAt !== undefined && !summary.edge?.deferred) {
    const liveAt =
      summary.edge?.liveAt ?? summary.startedAt + (summary.timings?.ownDone ?? summary.durationMs ?? 0);
    await observeLiveSafely(ctx, summary.startedAt, liveAt);
  }
  return summary;
}

/**
 * A publish, observed as every publish is, wherever it runs: the publish job, and reconcile when it
 * publishes ids left pending, documents whose webhook never came, or the year's turn. Otherwise a
 * reconcile round's edit would go live uncounted and the next publish would claim its latency.
 */
export async function publishObserved(ctx: PublishContext, job?: PublishJob): Promise<PublishSummary> {
  let summary: PublishSummary;
  try {
    summary = await publish(ctx, job);
  } catch (error) {
    // Kept for `pressroom status` and the readiness check: a publish failing at every attempt.
    await recordPublishFailure(ctx.redis, ctx.queuePrefix, error, PUBLISHER);
    throw error;
  }
  return observePublish(ctx, summary);
}

export function countRoutes(
  summary: Pick<ObservedSummary, "rendered" | "written" | "unchanged" | "deleted">,
): void {
  for (const outcome of ["rendered", "written", "unchanged", "deleted"] as const)
    publishedRoutes.inc({ outcome }, summary[outcome]);
}

/** A metric must never fail the publish it measures. */
export async function observeLiveSafely(
  ctx: ObserveContext,
  takenFrom: number,
  liveAt: number,
): Promise<void> {
  try {
    await observeLive(ctx.redis, ctx.queuePrefix, takenFrom, liveAt);
  } catch (error) {
    ctx.logger.warn({ err: error }, "publish-to-live latency not recorded");
  }
}
