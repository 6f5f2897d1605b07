import type { Logger } from "#logger";
import type { PublishContext, PublishSummary } from "./context.ts";
import type { IndexedRoute } from "./dependency-index.ts";
import { type PurgeOutcome, purgeRoutes } from "./edge-purge.ts";
import { deferLive } from "./pending-purges.ts";
import { changedRoutes, SITE_WIDE_MIN_ROUTES, servedBeforeCommit } from "./purge-plan.ts";
import type { StepTimer } from "./step-timer.ts";

export type { PurgeOutcome } from "./edge-purge.ts";

/**
 * The purge stage of a publish: the edge forgets exactly what the publish changed, after it is
 * written. Two sends, in the order of the writes:
 * 1. `startOwnPurge`, once the changed documents' own routes are written: those the site server
 *    already serves from the same key are purged at once, beside the rest of the publish, so the
 *    editor waits for one purge round trip, not the rest of the publish.
 * 2. `purgeStage`, after the commit: every other route whose stored object changed (written,
 *    deleted, a redirect written or dropped); everything at once when that is most of the site.
 * The publish is live when the send holding its last changed own route is acknowledged; one that is
 * not leaves the publish's deliveries to the purge that will be (edge-purge.ts).
 */
export function startOwnPurge(
  ctx: PublishContext,
  work: {
    own: ReadonlySet<string | null>;
    written: ReadonlyMap<string, IndexedRoute>;
    previous: ReadonlyMap<string, IndexedRoute>;
    /** Unique to this publish: CloudFront's CallerReference (a reused one is no new invalidation). */
    reference: string;
    /** The purges the edge owed when the publish started (edge-purge.ts, `owed`). */
    owed: Promise<number>;
    timer: StepTimer;
    log: Logger;
  },
): { ownChanged: string[]; early: string[]; earlyPurge: Promise<PurgeOutcome> | undefined } {
  const ownChanged = changedRoutes(
    [...work.written].filter(([route]) => work.own.has(route)),
    work.previous,
  );
  const early = ownChanged.filter((route) =>
    servedBeforeCommit(route, work.written.get(route) as IndexedRoute, work.previous),
  );
  if (early.length === 0) return { ownChanged, early, earlyPurge: undefined };
  const sent = performance.now();
  const earlyPurge = purgeRoutes(ctx, early, {
    reference: `${work.reference}-own`,
    log: work.log,
    owed: work.owed,
  }).then((outcome) => {
    work.timer.record("purgeOwn", performance.now() - sent);
    return outcome;
  });
  // Never an unhandled rejection: purgeStage awaits it (and so throws it) after the commit.
  earlyPurge.catch(() => undefined);
  return { ownChanged, early, earlyPurge };
}

/** Step 2, after the commit; answers when the publish went live (or that it waits for a purge). */
export async function purgeStage(
  ctx: PublishContext,
  work: {
    /** Routes written whose bytes or key changed (`changedRoutes`). */
    changed: readonly string[];
    deleted: readonly string[];
    redirected: ReadonlySet<string>;
    /** Routes written again whatever the index said (unsettled, generation.ts): the edge may hold other bytes. */
    rewritten: readonly string[];
    ownChanged: readonly string[];
    early: readonly string[];
    earlyPurge: Promise<PurgeOutcome> | undefined;
    reference: string;
    startedAt: number;
    log: Logger;
  },
): Promise<NonNullable<PublishSummary["edge"]>> {
  const early = new Set(work.early);
  const routes = [
    ...new Set([
      ...work.changed.filter((route) => !early.has(route)),
      ...work.deleted,
      ...work.redirected,
      ...work.rewritten,
    ]),
  ].sort();
  const earlier = await work.earlyPurge;
  const siteRoutes =
    routes.length > SITE_WIDE_MIN_ROUTES
      ? await ctx.redis.hlen(`${ctx.queuePrefix}:index:routes`)
      : undefined;
  const rest = await purgeRoutes(ctx, routes, {
    reference: work.reference,
    ...(siteRoutes === undefined ? {} : { siteRoutes }),
    log: work.log,
  });
  // Live: when the purge holding the last changed own route was acknowledged (none changed: as before).
  const holding = work.ownChanged.some((route) => !early.has(route))
    ? rest
    : work.ownChanged.length > 0
      ? earlier
      : undefined;
  const deferred = holding !== undefined && holding.acknowledgedAt === undefined;
  if (deferred) await deferLive(ctx.redis, ctx.queuePrefix, work.startedAt);
  const settled =
    rest.acknowledgedAt !== undefined && (earlier === undefined || earlier.acknowledgedAt !== undefined);
  return {
    ...(holding?.acknowledgedAt === undefined ? {} : { liveAt: holding.acknowledgedAt }),
    ...(settled ? { settledAt: rest.acknowledgedAt } : {}),
    deferred,
    purged: (earlier?.routes ?? 0) + rest.routes,
    everything: rest.everything,
  };
}
