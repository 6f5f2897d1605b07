import { redisKeys } from "#jobs/catalog.ts";
import { copyrightYear } from "#web/lib/copyright-year.ts";
import { publishObserved } from "../ops/publish-metrics.ts";
import type { PublishContext } from "./context.ts";
import type { DependencyIndex } from "./dependency-index.ts";

/**
 * The copyright year turned: routes recorded `year:<n>` for a year before today's
 * (web/src/lib/copyright-year.ts). Every such route read settings (that is where the year is
 * recorded), so publishing the settings document again re-renders exactly them, through the normal
 * publish: recorded as pending first, so nothing is lost if it fails. Called by reconcile each round;
 * undefined when no route shows a past year. `today` is a parameter for tests (a fake clock).
 */
export async function republishPastYears(
  ctx: PublishContext,
  index: DependencyIndex,
  today: Date = new Date(),
): Promise<{ action: "publish"; reason: string; ref: string } | undefined> {
  const year = copyrightYear(today);
  const past = (await index.recordedYears()).filter((recorded) => recorded < year);
  const settingsId = past.length > 0 ? await index.settingsId() : undefined;
  if (!settingsId) return undefined;
  ctx.logger.info(
    { past, year },
    "reconcile: the year turned; re-rendering the routes that show the copyright year",
  );
  await ctx.redis.sadd(redisKeys(ctx.queuePrefix).pendingIds, settingsId);
  const result = await publishObserved(ctx);
  return { action: "publish", reason: `the year turned (${past.join(", ")} → ${year})`, ref: result.ref };
}
