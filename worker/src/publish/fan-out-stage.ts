import { FAN_OUT_BATCH, type PublishContext } from "./context.ts";
import { StagedWrites } from "./fan-out-entries.ts";
import type { Planned } from "./plan-stage.ts";
import type { PublishRun } from "./run.ts";
import type { PublishWrites } from "./writes.ts";

/**
 * The render stage of a large fan-out (`fanOut`): batches of routes as child jobs on the render queue,
 * shared by every worker process; this publish waits for them (holding the lock and the ids) and
 * goes on to the commit when all are done. The children leave their routes' entries in Redis
 * (fan-out-entries.ts): what this process holds per route is the plan's route names.
 */
export async function fanOutStage(
  fanOut: NonNullable<PublishContext["fanOut"]>,
  ctx: PublishContext,
  run: PublishRun,
  planned: Planned,
  writes: PublishWrites,
): Promise<void> {
  const { routes } = planned;
  // Only the deletes' previous entries: the written routes' are read a chunk at a time at the commit.
  await writes.readPrevious(planned.plan.delete.keys());
  writes.staged = new StagedWrites(
    ctx.redis,
    ctx.queuePrefix,
    run.generation,
    routes,
    (route) => planned.plan.render.has(route),
    ctx.commitChunk,
  );
  const batches: string[][] = [];
  const size = ctx.fanOutBatch ?? FAN_OUT_BATCH;
  for (let i = 0; i < routes.length; i += size) batches.push(routes.slice(i, i + size));
  run.log.info({ routes: routes.length, batches: batches.length }, "large fan-out: rendering in child jobs");
  writes.counts.batches = batches.length;
  const outcomes = await fanOut(run.ref, batches, [...planned.overlay], run.generation, writes.keep);
  for (const outcome of outcomes) writes.add(outcome);
  // Routes a child found gone are deleted: their previous entries say what to remove.
  await writes.readPrevious(writes.deleted);
  run.timer.lap("fanOut");
}
