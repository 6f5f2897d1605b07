import { calendarYear } from "#content/dependencies.ts";
import { redisKeys } from "#jobs/catalog.ts";
import { publishObserved } from "../ops/publish-metrics.ts";
import type { PublishContext } from "./context.ts";
import type { DependencyIndex } from "./dependency-index.ts";

/**
 * The calendar year turned: routes recorded `year:<n>` for a year before today's
 * (#content/dependencies.ts). The year is shown in the site's frame (a copyright line), so every
 * such route read the frame's documents, and publishing them again re-renders those routes, through
 * the normal publish: recorded as pending first, so nothing is lost if it fails. Called by reconcile
 * each round; undefined when no route shows a past year. `today` is a parameter for tests (a fake clock).
 */
export async function republishPastYears(
  ctx: PublishContext,
  index: DependencyIndex,
  today: Date = new Date(),
): Promise<{ action: "publish"; reason: string; ref: string } | undefined> {
  const year = calendarYear(today);
  const past = (await index.recordedYears()).filter((recorded) => recorded < year);
  const frameIds = past.length > 0 ? await index.frameIds() : [];
  if (frameIds.length === 0) return undefined;
  ctx.logger.info({ past, year }, "reconcile: the year turned; re-rendering the routes that show the year");
  await ctx.redis.sadd(redisKeys(ctx.queuePrefix).pendingIds, ...frameIds);
  const result = await publishObserved(ctx);
  return { action: "publish", reason: `the year turned (${past.join(", ")} → ${year})`, ref: result.ref };
}
