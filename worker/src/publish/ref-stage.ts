import type { PrismicDocument } from "@prismicio/client";
import { redisKeys } from "#jobs/catalog.ts";
import { isListingRoute, type PublishContext } from "./context.ts";
import { DependencyIndex, type PriorState } from "./dependency-index.ts";
import { siteVersionOf } from "./diff-build.ts";
import { fetchByIds } from "./fetch-documents.ts";
import { nextGeneration } from "./generation.ts";
import { idsAsked } from "./plan-ids.ts";
import { idsToFetch } from "./planner.ts";
import type { PublishJob } from "./run.ts";
import type { StepTimer } from "./step-timer.ts";
import type { Taken } from "./take.ts";

export interface Opened {
  /** The master ref, read now (never the one announced: later work never goes back in time). */
  ref: string;
  generation: number;
  /** What the index knows of the taken ids; undefined when it is missing, of another version, or a backlog was taken. */
  prior: PriorState | undefined;
  /**
   * Routes a publish wrote or deleted and did not commit (it failed after: a full disk, Redis
   * away): storage may hold there what the index does not say. Rendered and written again.
   */
  rewrite: Set<string>;
  /** This process's site version (diff-build.ts). */
  site: string;
  /** The changed documents asked for at the announced ref, when it is the master ref (fetch stage's input). */
  fetched?: Promise<Map<string, PrismicDocument>>;
}

/**
 * The ref stage: this publish's generation (from here on every write carries it, so no write of an
 * older publish lands after ours), the master ref, what the index knows of the taken ids, the routes
 * left unsettled, and the site version: independent reads, all at once.
 *
 * With the ref a delivery announced, the batch of changed documents is asked for at it meanwhile,
 * and kept only if the master ref is that ref: a publish never renders at a ref it did not read as
 * the master. An old announced ref may be gone: the fetch stage then asks at the master ref.
 */
export async function refStage(
  ctx: PublishContext,
  taken: Taken,
  job: PublishJob,
  timer: StepTimer,
): Promise<Opened> {
  const keys = redisKeys(ctx.queuePrefix);
  const priorRead =
    taken.meta.ref === undefined || taken.backlog > 0
      ? Promise.resolve(undefined)
      : timer.time("indexRead", readPrior(ctx, taken.ids));
  const announced = taken.unbuilt.length === 0 && taken.backlog === 0 ? job.announcedRef : undefined;
  const early = announced ? fetchAtAnnouncedRef(ctx, taken, announced, priorRead) : undefined;
  const [generation, ref, prior, unsettled, site] = await Promise.all([
    nextGeneration(ctx.redis, ctx.queuePrefix),
    timer.time("masterRef", ctx.client.fetchMasterRef()),
    priorRead,
    ctx.redis.smembers(keys.unsettledRoutes),
    siteVersionOf(ctx),
  ]);
  return {
    ref,
    generation,
    prior,
    rewrite: new Set(unsettled),
    site,
    ...(early && ref === announced ? { fetched: early } : {}),
  };
}

/** What the index knows of `ids`, as a publish reads it: listings' entries left out, none past the fan-out threshold. */
function readPrior(ctx: PublishContext, ids: readonly string[]): Promise<PriorState> {
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  return index.prior(ids, { maxRoutes: ctx.fanOutThreshold ?? 200, isListing: isListingRoute });
}

/** The fetch stage's request (plan-ids.ts), asked at the announced ref once the index has answered. */
function fetchAtAnnouncedRef(
  ctx: PublishContext,
  taken: Taken,
  announced: string,
  priorRead: Promise<PriorState | undefined>,
): Promise<Map<string, PrismicDocument>> | undefined {
  const { ids, meta } = taken;
  const fetched = priorRead.then((known) => {
    if (!known) throw new Error("no index: nothing asked at the announced ref");
    return fetchByIds(
      ctx.client,
      announced,
      idsAsked(ids, idsToFetch(ids, meta.frameIds, known.entries.values())),
    );
  });
  // Awaited only if the master ref is the announced one; otherwise its failure is of no interest.
  fetched.catch(() => undefined);
  return fetched;
}
