import { redisKeys } from "../../services/shared/src/jobs/catalog.ts";
import { MANIFEST_KEY, parseManifest } from "../../services/shared/src/site/manifest.ts";
import { DependencyIndex } from "./publish/dependency-index.ts";
import { diffBuild, type PublishContext, publish } from "./publish/publish.ts";

/** Long enough to outlast any reconcile interval; the key only pairs two consecutive rounds. */
const MOVED_REF_TTL_SECONDS = 24 * 3600;

export interface ReconcileOutcome {
  action: "none" | "diff-build" | "publish";
  reason: string;
  ref: string;
}

/**
 * Catches what webhooks missed. A diff build (render all, write changed bytes, delete orphans,
 * rebuild the index) runs when the index is missing or of another version, when the master ref
 * moved with no publish pending (a lost delivery), or when the site's assets are not this code's
 * (a deploy changed the CSS). Runs under the publish lock, like a publish.
 *
 * A moved ref is acted on only when the previous round saw the same one: Prismic moves the master
 * ref before its webhook arrives, and a round falling in between must not rebuild the whole site
 * for an edit its webhook is about to publish in milliseconds. A lost delivery is thus recovered
 * within two rounds instead of one.
 */
export async function reconcile(
  ctx: PublishContext,
  assetKeys: readonly string[],
): Promise<ReconcileOutcome> {
  const keys = redisKeys(ctx.queuePrefix);
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  const [indexRef, pending, processing, masterRef, manifestObject] = await Promise.all([
    index.ref(),
    ctx.redis.scard(keys.pendingIds),
    ctx.redis.scard(keys.processingIds),
    ctx.client.fetchMasterRef(),
    ctx.store.get(MANIFEST_KEY),
  ]);
  const manifest = parseManifest(manifestObject?.body);
  if (indexRef !== undefined && pending + processing > 0) {
    // Ids whose job is gone (a redelivery deduplicated against a finished job, a job that ran out of attempts).
    ctx.logger.info({ pending, processing }, "reconcile: publishing ids left pending");
    const result = await publish(ctx);
    return { action: "publish", reason: "ids were pending with no job", ref: result.ref };
  }
  let reason: string | undefined;
  if (indexRef === undefined) reason = "the dependency index is missing or of another version";
  else if (!manifest) reason = "storage holds no build manifest";
  else if (pending + processing === 0 && indexRef !== masterRef) {
    const seenBefore = await ctx.redis.getset(keys.movedRef, masterRef);
    if (seenBefore !== masterRef) {
      await ctx.redis.expire(keys.movedRef, MOVED_REF_TTL_SECONDS);
      ctx.logger.info(
        { indexRef, masterRef },
        "reconcile: the master ref moved; its webhook has one round to arrive",
      );
      return {
        action: "none",
        reason: "the master ref moved; waiting one round for its webhook",
        ref: masterRef,
      };
    }
    reason = `the master ref moved (${indexRef} → ${masterRef}) with no publish since the last round`;
  } else if (assetKeys.some((key) => !(key in manifest.assets)))
    reason = "the site's assets are not this version's";
  if (!reason) return { action: "none", reason: "up to date", ref: masterRef };
  ctx.logger.warn({ reason, masterRef }, "reconcile: running a diff build");
  await diffBuild(ctx, masterRef, index);
  await ctx.redis.multi().set(keys.lastRef, masterRef).del(keys.movedRef).exec();
  return { action: "diff-build", reason, ref: masterRef };
}
