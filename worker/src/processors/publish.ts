import type { Job } from "bullmq";
import { type JobPayload, jobCatalog, redisKeys } from "#jobs/catalog.ts";
import { publishObserved } from "../ops/publish-metrics.ts";
import type { PublishContext, PublishSummary } from "../publish/context.ts";
import { diffBuild } from "../publish/diff-build.ts";
import { type LockOptions, withLock, withLockWhilePending } from "../publish/lock.ts";

/**
 * A `publish` job, one per delivery: publishes what is pending (publishDelivery). Nothing pending
 * (a duplicate delivery, or ids the holder it waited for took): done, without the lock.
 */
export async function publishJob(ctx: PublishContext, job: Job, lock: LockOptions): Promise<unknown> {
  const delivery = jobCatalog.publish.schema.parse(job.data);
  const published = await publishDelivery(ctx, delivery, lock);
  return published ?? { mode: "nothing-pending" };
}

/**
 * The publish of one delivery. It takes the publish lock only while ids or refs are pending (checked
 * with each try for the lock, in its round trip: a duplicate delivery, or one whose ids the holder it
 * waited for took, answers undefined at once), publishes, and publishes again while ids arrived
 * meanwhile (not after a queue round trip), before it lets the lock go.
 */
export async function publishDelivery(
  ctx: PublishContext,
  delivery: Pick<JobPayload<"publish">, "masterRef">,
  lock: LockOptions,
): Promise<PublishSummary | undefined> {
  const keys = redisKeys(ctx.queuePrefix);
  const pending = [
    keys.pendingIds,
    keys.pendingRefs,
    keys.processingIds,
    keys.processingRefs,
    keys.processingBacklog,
  ];
  return withLockWhilePending(
    ctx.redis,
    keys.publishLock,
    pending,
    async () => {
      let result = await publishObserved(ctx, delivery.masterRef ? { announcedRef: delivery.masterRef } : {});
      while ((await waiting(ctx)) > 0) result = await publishObserved(ctx);
      return result;
    },
    lock,
  );
}

/** Ids, or refs announced with none (pending-refs.ts), waiting for a publish to take them. */
async function waiting(ctx: PublishContext): Promise<number> {
  const keys = redisKeys(ctx.queuePrefix);
  const answers = (await ctx.redis.pipeline().scard(keys.pendingIds).scard(keys.pendingRefs).exec()) ?? [];
  return answers.reduce((sum, [error, count]) => {
    if (error) throw error;
    return sum + Number(count);
  }, 0);
}

/** A `build` job: a diff build at the master ref, under the publish lock. */
export function buildJob(ctx: PublishContext, lock: LockOptions) {
  return withLock(
    ctx.redis,
    redisKeys(ctx.queuePrefix).publishLock,
    async () => diffBuild(ctx, await ctx.client.fetchMasterRef()),
    lock,
  );
}
