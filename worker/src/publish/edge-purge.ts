import type { EdgePurger } from "#edge";
import { redisKeys } from "#jobs/catalog.ts";
import type { Logger } from "#logger";
import { edgePurgedRoutes, edgePurges } from "#metrics/metrics.ts";
import { observeLive } from "#metrics/publish-latency.ts";
import type { PublishContext } from "./context.ts";
import {
  addPendingPurges,
  clearPendingPurges,
  EVERYTHING,
  readPendingPurges,
  takeDeferredLive,
} from "./pending-purges.ts";
import { purgeEverything } from "./purge-plan.ts";

/**
 * Sending purges to the edge, for a publish's purge stage (purge-stage.ts), a build, the purge job,
 * reconcile and `pressroom purge`: the edge forgets what changed, after it is written.
 *
 * A purge goes out at once, unless the edge still owes earlier purges (it was down a moment ago):
 * then the routes join those and the purge job (`purge` on the `pressroom-edge` queue) sends them
 * all, brought forward to now, so a hung edge delays one publish by one timeout, never the ones
 * after it. A purge that fails is recorded as owed (`<prefix>:edge-pending`), counted, logged,
 * and sent again by the purge job with backoff and by reconcile; it never fails the publish, whose
 * index is committed either way.
 */
export type EdgeContext = Pick<PublishContext, "edge" | "redis" | "queuePrefix" | "logger" | "schedulePurge">;

export interface PurgeOutcome {
  /** When the edge acknowledged it (epoch ms); undefined when it did not (failed, or left to the purge job). */
  acknowledgedAt?: number;
  /** Routes purged one by one (0 when everything was). */
  routes: number;
  everything: boolean;
}

/** Purges `routes` (everything, when they are most of the site's `siteRoutes`). */
export async function purgeRoutes(
  ctx: EdgeContext,
  routes: readonly string[],
  options: {
    reference: string;
    siteRoutes?: number;
    everything?: boolean;
    log?: Logger;
    /**
     * How many purges the edge owed, read earlier (a publish reads it at its start): the purge then
     * goes out at once, not after a Redis round trip that would wait for the renders in between.
     */
    owed?: Promise<number>;
  },
): Promise<PurgeOutcome> {
  const edge = ctx.edge;
  const log = options.log ?? ctx.logger;
  const everything =
    options.everything === true ||
    (options.siteRoutes !== undefined && purgeEverything(routes.length, options.siteRoutes));
  const outcome = { routes: everything ? 0 : routes.length, everything };
  if (!edge || (routes.length === 0 && !everything)) return { ...outcome, acknowledgedAt: Date.now() };
  const owed = everything ? EVERYTHING : routes;
  if ((await (options.owed ?? ctx.redis.hlen(redisKeys(ctx.queuePrefix).edgePending))) > 0) {
    // The edge was failing a moment ago: no one waits for it again; the purge job sends it all.
    await addPendingPurges(ctx.redis, ctx.queuePrefix, owed, { at: Date.now(), edge: edge.description });
    edgePurges.inc({ outcome: "deferred", scope: everything ? "everything" : "routes" });
    log.info(
      { edge: edge.description, routes: routes.length, everything },
      "edge purge left to the purge job",
    );
    await scheduleSafely(ctx, log);
    return outcome;
  }
  const sent = await send(edge, { routes, everything, reference: options.reference }, log);
  if (sent.ok) return { ...outcome, acknowledgedAt: sent.at };
  await addPendingPurges(ctx.redis, ctx.queuePrefix, owed, {
    at: Date.now(),
    edge: edge.description,
    error: sent.error,
  });
  await scheduleSafely(ctx, log);
  return outcome;
}

/**
 * Sends every purge the edge owes, as one (everything when they are most of the site): the purge
 * job's work, and reconcile's each round. On acknowledgement forgets them and
 * makes live the deliveries that waited for them. Returns false when the edge did not acknowledge.
 */
export async function sendOwedPurges(
  ctx: EdgeContext,
  options: { reference: string; siteRoutes?: number; log?: Logger },
): Promise<{ ok: boolean; routes: number; everything: boolean; error?: string }> {
  const log = options.log ?? ctx.logger;
  const owed = await readPendingPurges(ctx.redis, ctx.queuePrefix);
  if (!ctx.edge || owed.entries.size === 0) return { ok: true, routes: 0, everything: false };
  const everything =
    owed.everything ||
    (options.siteRoutes !== undefined && purgeEverything(owed.routes.length, options.siteRoutes));
  const sent = await send(ctx.edge, { routes: owed.routes, everything, reference: options.reference }, log);
  if (!sent.ok) {
    await ctx.redis.set(
      redisKeys(ctx.queuePrefix).edgeLastError,
      JSON.stringify({ at: new Date().toISOString(), edge: ctx.edge.description, error: sent.error }),
    );
    return { ok: false, routes: owed.routes.length, everything, error: sent.error };
  }
  await clearPendingPurges(ctx.redis, ctx.queuePrefix, owed);
  const takenFrom = await takeDeferredLive(ctx.redis, ctx.queuePrefix);
  if (takenFrom !== undefined)
    await observeLive(ctx.redis, ctx.queuePrefix, takenFrom, sent.at).catch((error: unknown) =>
      log.warn({ err: error }, "publish-to-live latency not recorded"),
    );
  log.info(
    {
      edge: ctx.edge.description,
      routes: owed.routes.length,
      everything,
      waitedMs: Date.now() - (owed.since ?? Date.now()),
    },
    "edge purges owed since a failure acknowledged",
  );
  return { ok: true, routes: owed.routes.length, everything };
}

async function send(
  edge: EdgePurger,
  request: { routes: readonly string[]; everything: boolean; reference: string },
  log: Logger,
): Promise<{ ok: true; at: number } | { ok: false; error: string }> {
  const scope = request.everything ? "everything" : "routes";
  const started = performance.now();
  try {
    const receipt = await edge.purge(request);
    const at = Date.now();
    edgePurges.inc({ outcome: "acknowledged", scope: receipt.scope });
    if (receipt.scope === "routes") edgePurgedRoutes.inc(request.routes.length);
    log.info(
      {
        edge: edge.description,
        scope: receipt.scope,
        routes: request.everything ? undefined : request.routes.length,
        requests: receipt.requests,
        detail: receipt.detail,
        ms: Math.round(performance.now() - started),
      },
      receipt.scope === "everything" ? "edge purged everything (site-wide key)" : "edge purged",
    );
    return { ok: true, at };
  } catch (error) {
    edgePurges.inc({ outcome: "failed", scope });
    const message = error instanceof Error ? error.message : String(error);
    log.warn(
      { edge: edge.description, scope, routes: request.routes.length, err: error },
      "edge purge failed: the routes are owed and sent again with backoff",
    );
    return { ok: false, error: message };
  }
}

/** The purge job is a helper: failing to queue it must not fail the publish (reconcile re-sends). */
async function scheduleSafely(ctx: EdgeContext, log: Logger): Promise<void> {
  try {
    await ctx.schedulePurge?.();
  } catch (error) {
    log.warn({ err: error }, "could not queue the purge job; reconcile sends the owed purges");
  }
}
