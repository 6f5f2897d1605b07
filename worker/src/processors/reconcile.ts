import type { Queue } from "bullmq";
import { redisKeys } from "#jobs/catalog.ts";
import type { PublishContext } from "../publish/context.ts";
import { type LockOptions, withLock } from "../publish/lock.ts";
import { type ReconcileOutcome, reconcile } from "../reconcile.ts";

/** A `reconcile` job (and `pressroom start`'s first build): reconcile.ts, under the publish lock. */
export function reconcileJob(
  ctx: PublishContext,
  assetKeys: readonly string[],
  lock: LockOptions,
): Promise<ReconcileOutcome> {
  return withLock(ctx.redis, redisKeys(ctx.queuePrefix).publishLock, () => reconcile(ctx, assetKeys), lock);
}

/**
 * Registers reconcile's schedule and queues a round now. The schedule lives in Redis: registered at
 * start, and again whenever Redis lost its data. Older code scheduled reconcile on the main queue:
 * that schedule is removed.
 */
export async function scheduleReconcile(queues: { main: Queue; reconcile: Queue }, everyMs: number) {
  await queues.main.removeJobScheduler("reconcile");
  await queues.reconcile.upsertJobScheduler("reconcile", { every: everyMs }, { name: "reconcile" });
  await queues.reconcile.add("reconcile", {}, { removeOnComplete: true, removeOnFail: 100 });
}
