import { hostname } from "node:os";
import { redisKeys } from "#jobs/catalog.ts";
import { clearFailuresCommand } from "../publishing-health.ts";
import { execTransaction, type RedisCommand } from "./chunked-transaction.ts";
import type { PublishContext, PublishSummary } from "./context.ts";
import { generationGuard } from "./generation.ts";
import { builtRefsCommands } from "./pending-refs.ts";
import type { PublishRun } from "./run.ts";
import type { Taken } from "./take.ts";

/** The process that runs a publish, as `<host>:<pid>`, recorded with the last publish. */
export const PUBLISHER = `${hostname()}:${process.pid}`;

/**
 * The last stage: only now are the taken ids forgotten and the last ref moved, and the publish
 * recorded (`pressroom status` shows it; `by`, the process that ran it, is what the benchmark reads).
 * Only while still the newest: a superseded publish (paused, then resumed) must neither forget ids its
 * successor took nor move the last ref back.
 */
export async function finishStage(
  ctx: PublishContext,
  run: Pick<PublishRun, "timer" | "startedAt" | "generation" | "log">,
  taken: Taken,
  summary: Omit<PublishSummary, "durationMs">,
): Promise<PublishSummary> {
  const { timer } = run;
  const keys = redisKeys(ctx.queuePrefix);
  const result = {
    ...summary,
    durationMs: timer.elapsed(),
    startedAt: run.startedAt,
    timings: timer.timings,
  };
  const commands: RedisCommand[] = [
    // UNLINK: a backlog of a million ids is freed in the background, not while Redis serves no one.
    ["unlink", keys.processingIds, keys.processingRefs, keys.processingBacklog],
    ["set", keys.lastRef, summary.ref],
    ["set", keys.lastPublish, JSON.stringify({ ...result, at: new Date().toISOString(), by: PUBLISHER })],
    clearFailuresCommand(ctx.queuePrefix),
    // A diff build read the master ref after taking the announced refs: it covered them all.
    ...(summary.mode === "diff-build" ? builtRefsCommands(ctx.queuePrefix, taken.announced) : []),
  ];
  await execTransaction(ctx.redis, commands, undefined, generationGuard(ctx.queuePrefix, run.generation));
  ctx.logger.info(result, "publish finished");
  return result;
}

/** What a publish that took nothing answers (refs it took were all covered: forgotten). Nothing recorded. */
export async function nothingPending(ctx: PublishContext, taken: Taken): Promise<PublishSummary> {
  const keys = redisKeys(ctx.queuePrefix);
  if (taken.announced.length > 0) await ctx.redis.del(keys.processingRefs);
  return {
    ref: (await ctx.redis.get(keys.lastRef)) ?? "",
    ids: 0,
    rendered: 0,
    written: 0,
    unchanged: 0,
    deleted: 0,
    mode: "nothing-pending",
    durationMs: 0,
  };
}
