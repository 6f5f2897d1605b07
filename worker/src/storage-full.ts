/**
 * A publish or build that finds the store full (ENOSPC, EDQUOT) waits for space, however long it
 * takes: the job goes back to the delayed set without spending one of its attempts, every 1 s at
 * first, doubling to STORAGE_FULL_MAX_WAIT_MS, each try logged as an error with the reason. Its
 * ids stay pending meanwhile, so the first try after space is freed publishes them, with no
 * reconcile round and no operator. Spending attempts instead would give up after two minutes and
 * leave the site to the next reconcile round, minutes after space came back.
 */
import { DelayedError, type Job } from "bullmq";
import type { Logger } from "#logger";
import { storageFullCode } from "#storage";

/** The longest wait between two tries while the store is full. */
export const STORAGE_FULL_MAX_WAIT_MS = 30_000;

/** The wait before the next try, after `tries` tries that found the store full. */
export function storageFullWait(tries: number): number {
  return Math.min(STORAGE_FULL_MAX_WAIT_MS, 1_000 * 2 ** Math.max(0, tries - 1));
}

/**
 * When `error` says the store is full: logs it, puts `job` back to be tried again later and throws
 * BullMQ's DelayedError (the job neither fails nor spends an attempt). Otherwise does nothing.
 */
export async function retryWhenStorageFull(
  job: Job,
  token: string | undefined,
  error: unknown,
  log: Logger,
): Promise<void> {
  const code = storageFullCode(error);
  if (token === undefined || code === undefined) return;
  // Tries started that spent no attempt: the ones that found the store full (this one included).
  const tries = Math.max(1, job.attemptsStarted - job.attemptsMade);
  const waitMs = storageFullWait(tries);
  log.error(
    { err: error, reason: code, tries, retryInMs: waitMs },
    `storage is full (${code}): the ${job.name} could not write and is tried again in ${Math.round(waitMs / 1000)} s, until space is freed (what visitors are served stays as it was)`,
  );
  await job.moveToDelayed(Date.now() + waitMs, token);
  throw new DelayedError();
}
