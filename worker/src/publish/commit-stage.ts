import { updateManifest } from "./commit.ts";
import type { PublishContext } from "./context.ts";
import { DependencyIndex } from "./dependency-index.ts";
import { ensureCurrent, generationGuard } from "./generation.ts";
import type { Planned } from "./plan-stage.ts";
import type { Redirected } from "./publish-redirects.ts";
import { recordRouteFailures } from "./route-failures.ts";
import type { PublishRun } from "./run.ts";
import type { PublishWrites } from "./writes.ts";

/**
 * The commit stage: the manifest (the site server reads routes from it), then the index in one
 * transaction applied only while this publish is the newest (generation.ts: a paused publish that
 * resumes must not commit over its successor), then the routes whose render failed.
 */
export async function commitStage(
  ctx: PublishContext,
  run: PublishRun,
  planned: Planned,
  writes: PublishWrites,
  redirects: Redirected,
): Promise<void> {
  const { written, deleted, previous, staged } = writes;
  await ensureCurrent(ctx.redis, ctx.queuePrefix, run.generation);
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  await updateManifest(ctx.store, run.ref, staged ?? written, deleted, redirects.served, redirects.manifest);
  await index.commit({
    ref: run.ref,
    // A large fan-out's entries, with their previous ones, a chunk at a time (fan-out-entries.ts).
    written: staged ? staged.chunks((routes) => index.routes(routes)) : written,
    deleted,
    previous,
    documents: planned.overlay,
    guard: generationGuard(ctx.queuePrefix, run.generation),
  });
  await staged?.drop();
  await recordRouteFailures(
    ctx.redis,
    ctx.queuePrefix,
    writes.failed.map((f) => ({ ...f, ref: run.ref, at: new Date().toISOString() })),
    [...writes.writtenRoutes(), ...deleted],
  );
  run.timer.lap("commit");
}
