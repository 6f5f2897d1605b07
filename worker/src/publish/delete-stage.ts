import { website } from "#website";
import type { PublishContext } from "./context.ts";
import { claimWrites, ensureCurrent } from "./generation.ts";
import type { Redirected } from "./publish-redirects.ts";
import { keyOrUndefined } from "./redirect-objects.ts";
import type { PublishRun } from "./run.ts";
import type { PublishWrites } from "./writes.ts";

/**
 * The delete stage: the stored objects of removed routes, after the redirects. Each delete is claimed
 * as each put is (generation.ts): a publish superseded meanwhile deletes nothing a newer one wrote. A
 * route whose key now holds a redirect keeps it: the route's page is gone either way.
 */
export async function deleteStage(
  ctx: PublishContext,
  run: PublishRun,
  writes: PublishWrites,
  redirects: Redirected,
): Promise<void> {
  await ensureCurrent(ctx.redis, ctx.queuePrefix, run.generation);
  const redirectKeys = new Set([...redirects.served.keys()].map(keyOrUndefined));
  const deletable = await claimWrites(ctx.redis, ctx.queuePrefix, writes.deleted, run.generation);
  for (const route of writes.deleted) {
    if (!deletable.has(route)) continue;
    const key = writes.previous.get(route)?.key ?? website.routes.key(route);
    if (!redirectKeys.has(key)) await ctx.store.delete(key);
    writes.counts.deleted++;
  }
  run.timer.lap("delete");
}
