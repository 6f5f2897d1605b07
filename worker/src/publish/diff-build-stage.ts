import { MAX_IDS_PER_PUBLISH } from "#jobs/catalog.ts";
import { deliveriesWithoutDocuments } from "#metrics/metrics.ts";
import type { PublishContext, PublishSummary } from "./context.ts";
import { DependencyIndex } from "./dependency-index.ts";
import { diffBuild } from "./diff-build.ts";
import type { Opened } from "./ref-stage.ts";
import type { PublishRun } from "./run.ts";
import type { Taken } from "./take.ts";

/** Why a publish renders every route instead of its plan's (said as a warning, with `details`). */
export interface DiffBuildReason {
  message: string;
  details?: Record<string, unknown>;
  /** How many ids the publish covers (its summary's `ids`). */
  ids: number;
  /** Announced refs no delivery named documents for (counted in `deliveriesWithoutDocuments`). */
  unbuilt?: number;
  /** `info` for a diff build that is the plan's own way (a large fan-out with no render queue). */
  level?: "info" | "warn";
}

/**
 * When a publish cannot follow a plan, before planning: a backlog too large to read id by id, an
 * index missing or of another version, an index built by other code (a deploy, or `pressroom
 * build`, which marks the index: any page may render differently and the index's dependencies were
 * recorded by other code), or a new master ref no delivery said anything of. Pure.
 */
export function whyDiffBuild(taken: Taken, opened: Opened): DiffBuildReason | undefined {
  const { ids, backlog, unbuilt, meta } = taken;
  if (backlog > 0)
    return {
      message: `${backlog} ids waiting, more than a publish reads one by one (${MAX_IDS_PER_PUBLISH}): publishing every route at the master ref (a diff build)`,
      details: { backlog },
      ids: backlog,
    };
  if (opened.prior === undefined)
    return {
      message: "the dependency index is missing or of another version: running a diff build",
      ids: ids.length,
    };
  if (meta.site !== opened.site)
    return {
      message:
        "the site's code is not the one the index was built with (a deploy, or pressroom build): running a diff build",
      details: { indexSite: meta.site ?? null, site: opened.site },
      ids: ids.length,
    };
  if (unbuilt.length > 0)
    return {
      message:
        "a delivery named no document for a new master ref: publishing every route at the master ref (a diff build)",
      details: { announced: unbuilt, ids: ids.length },
      ids: ids.length,
      unbuilt: unbuilt.length,
    };
  return undefined;
}

/** A fan-out too large to render in the publishing job, and no render queue to share it. */
export function noRenderQueue(planned: {
  routes: readonly string[];
  ids: readonly string[];
}): DiffBuildReason {
  return {
    message: "large fan-out and no render queue: rendering everything as a diff build",
    details: { routes: planned.routes.length },
    ids: planned.ids.length,
    level: "info",
  };
}

/**
 * The diff build stage, instead of the plan's: every route rendered at the master ref read now
 * (never an announced one: later work never goes back in time), only changed bytes written.
 */
export async function diffBuildStage(
  ctx: PublishContext,
  run: PublishRun,
  reason: DiffBuildReason,
): Promise<Omit<PublishSummary, "durationMs">> {
  if (reason.unbuilt) deliveriesWithoutDocuments.inc({ action: "diff-build" }, reason.unbuilt);
  run.log[reason.level ?? "warn"](reason.details ?? {}, reason.message);
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  return { ...(await diffBuild(ctx, run.ref, index, run.generation)), ids: reason.ids };
}
