import { redisKeys } from "#jobs/catalog.ts";
import type { PublishContext, PublishSummary } from "./context.ts";
import type { Planned } from "./plan-stage.ts";
import type { Redirected } from "./publish-redirects.ts";
import { changedRoutes } from "./purge-plan.ts";
import { purgeStage, startOwnPurge } from "./purge-stage.ts";
import type { PublishRun } from "./run.ts";
import type { PublishWrites } from "./writes.ts";

/** The purge of the changed documents' own pages, sent as soon as they are written (purge-stage.ts). */
export type EarlyPurge = ReturnType<typeof startOwnPurge>;

/**
 * The edge's first send, right after the own routes are written: those the site server already
 * serves from the same key are purged beside the rest of the publish (`purgeOwn`). No edge: none.
 */
export function earlyPurgeStage(
  ctx: PublishContext,
  run: PublishRun,
  planned: Planned,
  writes: PublishWrites,
): EarlyPurge | undefined {
  if (!ctx.edge) return undefined;
  return startOwnPurge(ctx, {
    own: planned.own,
    written: writes.written,
    previous: writes.previous,
    reference: run.reference,
    owed: ctx.redis.hlen(redisKeys(ctx.queuePrefix).edgePending),
    timer: run.timer,
    log: run.log,
  });
}

/**
 * The edge stage (`purge`), after the commit: every other route whose stored object changed. Answers
 * when the publish went live at the edge, or that it waits for a purge; undefined with no edge.
 */
export async function edgeStage(
  ctx: PublishContext,
  run: PublishRun,
  planned: Planned,
  writes: PublishWrites,
  redirects: Redirected,
  early: EarlyPurge | undefined,
): Promise<PublishSummary["edge"]> {
  if (!ctx.edge) return undefined;
  const edge = await purgeStage(ctx, {
    // A large fan-out's were found as its commit read its entries (fan-out-entries.ts).
    changed: writes.staged?.changed ?? changedRoutes(writes.written, writes.previous),
    deleted: writes.deleted,
    redirected: redirects.touched,
    rewritten: [...planned.rewrite].filter((route) => writes.isWritten(route)),
    ownChanged: early?.ownChanged ?? [],
    early: early?.early ?? [],
    earlyPurge: early?.earlyPurge,
    reference: run.reference,
    startedAt: run.startedAt,
    log: run.log,
  });
  run.timer.lap("purge");
  return edge;
}
