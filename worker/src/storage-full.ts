/**
 * A publish or build that finds the store full (ENOSPC, EDQUOT) waits for space, however long it
 * takes: the job goes back to the delayed set without spending one of its attempts, every 1 s at
 * first, doubling to STORAGE_FULL_MAX_WAIT_MS, each try logged as an error with the reason. Its
 * ids stay pending meanwhile, so the first try after space is freed publishes them, with no
 * reconcile round and no operator. Spending attempts would give up after about two minutes (8
 * attempts, 1 s doubling) and leave the site to the next reconcile round, minutes after space is back.
 *
 * One publish job at a time is tried again: a delivery that meets the full store while another is
 * waiting for space completes, its documents left pending for that one (a publish takes every
 * pending id), so that twenty deliveries during an hour's full disk are not twenty publishes every
 * 30 s. A build always waits for space itself.
 */
import { DelayedError, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { redisKeys } from "#jobs/catalog.ts";
import type { Logger } from "#logger";
import { storageFullCode } from "#storage";

/** The longest wait between two tries while the store is full. */
export const STORAGE_FULL_MAX_WAIT_MS = 30_000;

/** The wait before the next try, after `tries` tries that found the store full. */
export function storageFullWait(tries: number): number {
  return Math.min(STORAGE_FULL_MAX_WAIT_MS, 1_000 * 2 ** Math.max(0, tries - 1));
}

export interface StorageFullContext {
  redis: Redis;
  prefix: string;
  /** Whether the job of this id is still to run (waiting or delayed). */
  isQueued(jobId: string): Promise<boolean>;
}

/**
 * When `error` says the store is full: logs it, then either puts `job` back to be tried again
 * later, throwing BullMQ's DelayedError (the job neither fails nor spends an attempt), or, when
 * another publish job is already waiting for space, answers what the job completes with. Answers
 * undefined for any other error.
 */
export async function retryWhenStorageFull(
  job: Job,
  token: string | undefined,
  error: unknown,
  log: Logger,
  ctx: StorageFullContext,
): Promise<{ mode: "storage-full"; leftTo: string } | undefined> {
  const code = storageFullCode(error);
  if (token === undefined || code === undefined || job.id === undefined) return undefined;
  const retrierKey = redisKeys(ctx.prefix).storageFullRetrier;
  if (job.name === "publish") {
    const retrier = await ctx.redis.get(retrierKey);
    if (retrier && retrier !== job.id && (await ctx.isQueued(retrier))) {
      log.error(
        { err: error, reason: code, retrier },
        `storage is full (${code}): the publish could not write; its documents are left to job ${retrier}, tried again until space is freed`,
      );
      return { mode: "storage-full", leftTo: retrier };
    }
  }
  // Tries started that spent no attempt: the ones that found the store full (this one included).
  const tries = Math.max(1, job.attemptsStarted - job.attemptsMade);
  const waitMs = storageFullWait(tries);
  log.error(
    { err: error, reason: code, tries, retryInMs: waitMs },
    `storage is full (${code}): the ${job.name} could not write and is tried again in ${Math.round(waitMs / 1000)} s, until space is freed; the pages it wrote are served, the rest waits`,
  );
  if (job.name === "publish") await ctx.redis.set(retrierKey, job.id, "PX", waitMs + 60_000);
  await job.moveToDelayed(Date.now() + waitMs, token);
  throw new DelayedError();
}
