import { commitStage } from "./commit-stage.ts";
import type { PublishContext, PublishSummary } from "./context.ts";
import { deleteStage } from "./delete-stage.ts";
import { DependencyIndex } from "./dependency-index.ts";
import { diffBuildStage, noRenderQueue, whyDiffBuild } from "./diff-build-stage.ts";
import { type EarlyPurge, earlyPurgeStage, edgeStage } from "./edge-stage.ts";
import { fanOutStage } from "./fan-out-stage.ts";
import { finishStage, nothingPending } from "./finish.ts";
import { planStage } from "./plan-stage.ts";
import { redirectsStage } from "./publish-redirects.ts";
import { refStage } from "./ref-stage.ts";
import { renderOwnStage, renderRestStage } from "./render-stage.ts";
import type { PublishJob, PublishRun } from "./run.ts";
import { StepTimer } from "./step-timer.ts";
import { takeStage, tookNothing } from "./take.ts";
import { PublishWrites } from "./writes.ts";

export { PUBLISHER } from "./finish.ts";

/**
 * One publish, as a list of stages (each in its own file, its name in the logs and the timings):
 *
 * take every pending id (a burst of webhooks is one publish) → read the master ref now (never the
 * one announced: later work never goes back in time), with a new generation that every write carries
 * → fetch the ids at it and plan → render the changed documents' own routes (what the editor waits
 * for), purge them at the edge, render the rest → redirects → deletes → commit the manifest and the
 * index → purge the rest at the edge → finish: only now forget the ids.
 *
 * A publish that cannot follow a plan (a backlog, no index, another site version, a ref no delivery
 * explained, a large fan-out with no render queue) renders every route instead (a diff build). A
 * failure anywhere leaves the ids pending for the retry. The caller holds the publish lock.
 */
export async function publish(ctx: PublishContext, job: PublishJob = {}): Promise<PublishSummary> {
  const timer = new StepTimer();
  const startedAt = Date.now();
  const taken = await takeStage(ctx, timer);
  if (tookNothing(taken)) return nothingPending(ctx, taken);
  const opened = await refStage(ctx, taken, job, timer);
  const run: PublishRun = {
    ...{ timer, startedAt, ref: opened.ref, generation: opened.generation },
    log: ctx.logger.child({ ref: opened.ref, generation: opened.generation }),
    reference: `${ctx.queuePrefix}-${opened.generation}-${startedAt}`,
  };
  const whole = whyDiffBuild(taken, opened);
  if (whole) return finishStage(ctx, run, taken, await diffBuildStage(ctx, run, whole));
  const planned = await planStage(ctx, run, taken, opened);
  const writes = new PublishWrites(new DependencyIndex(ctx.redis, ctx.queuePrefix), planned);
  let early: EarlyPurge | undefined;
  if (planned.routes.length > (ctx.fanOutThreshold ?? 200)) {
    const { fanOut } = ctx;
    if (!fanOut) return finishStage(ctx, run, taken, await diffBuildStage(ctx, run, noRenderQueue(planned)));
    await fanOutStage(fanOut, ctx, run, planned, writes);
  } else {
    await renderOwnStage(ctx, run, planned, writes);
    early = earlyPurgeStage(ctx, run, planned, writes);
    await renderRestStage(ctx, run, planned, writes);
  }
  const redirects = await redirectsStage(ctx, run, planned, writes);
  await deleteStage(ctx, run, writes, redirects);
  await commitStage(ctx, run, planned, writes, redirects);
  const edge = await edgeStage(ctx, run, planned, writes, redirects, early);
  return finishStage(ctx, run, taken, {
    ...{ ref: run.ref, ids: planned.ids.length, ...writes.counts, failed: writes.failed.length },
    mode: "incremental",
    ...(edge ? { edge } : {}),
  });
}
