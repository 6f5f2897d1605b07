import { redisKeys } from "#jobs/catalog.ts";
import { publishObserved } from "./ops/publish-metrics.ts";
import type { PublishContext, PublishSummary } from "./publish/context.ts";
import { type LockOptions, withLockWhilePending } from "./publish/lock.ts";
import { startPublishTake } from "./publish/publish.ts";
import type { StartedTake } from "./publish/take.ts";

/**
 * The publish job of one delivery (worker.ts). It takes the publish lock only while ids or refs are
 * pending (a duplicate delivery, or one whose ids the holder it waited for took, answers undefined at
 * once), publishes, and publishes again while ids arrived meanwhile, before it lets the lock go.
 * The take and the index read ride in the lock try's round trip (take.ts), so an edit pays one Redis
 * round trip before its content requests.
 */
export async function publishDelivery(
  ctx: PublishContext,
  delivery: { masterRef?: string | null | undefined; documents: readonly string[] },
  lock: LockOptions,
): Promise<PublishSummary | undefined> {
  const keys = redisKeys(ctx.queuePrefix);
  const hinted: PublishContext = {
    ...ctx,
    ...(delivery.masterRef ? { refHint: delivery.masterRef } : {}),
    idsHint: delivery.documents,
  };
  /** Ids, or refs announced with none (pending-refs.ts), waiting for a publish to take them. */
  const waiting = async () => {
    const answers = (await ctx.redis.pipeline().scard(keys.pendingIds).scard(keys.pendingRefs).exec()) ?? [];
    return answers.reduce((sum, [error, count]) => {
      if (error) throw error;
      return sum + Number(count);
    }, 0);
  };
  let started: StartedTake | undefined;
  return withLockWhilePending(
    ctx.redis,
    keys.publishLock,
    [keys.pendingIds, keys.pendingRefs, keys.processingIds, keys.processingRefs, keys.processingBacklog],
    async () => {
      // Ids that arrived while this publish ran are published now, not after a queue round trip.
      let result = await publishObserved({ ...hinted, ...(started ? { started } : {}) });
      while ((await waiting()) > 0) result = await publishObserved(ctx);
      return result;
    },
    {
      ...lock,
      behindEachTry: (token) => {
        started = startPublishTake(started ? ctx : hinted, token);
      },
    },
  );
}
