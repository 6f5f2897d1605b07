import type { Job } from "bullmq";
import type { Logger } from "#logger";
import { SupersededError } from "../publish/generation.ts";
import { retryWhenStorageFull, type StorageFullContext } from "../storage-full.ts";

/** A job's work, by job name: `publish`, `build`, `reconcile`, `contact`. */
export type JobHandlers = Record<string, (job: Job, log: Logger) => Promise<unknown>>;

/**
 * The processor of the publish, reconcile and contact queues: the handler of the job's name (each
 * queue also takes the other names: jobs queued there by older code), with the job's logger. A
 * superseded publish is said once, plainly; a publish or build that finds the store full is tried
 * again until space is freed, never given up (storage-full.ts).
 */
export function processByName(handlers: JobHandlers, storageFull: StorageFullContext, logger: Logger) {
  return async (job: Job, token?: string): Promise<unknown> => {
    const log = logger.child({ jobId: job.id, job: job.name });
    const handler = handlers[job.name];
    try {
      if (!handler) throw new Error(`unknown job ${job.name}`);
      return await handler(job, log);
    } catch (error) {
      // A worker that was paused past its locks finds another took over (BullMQ may not report the
      // failure: the job's lock is the other worker's by now).
      if (error instanceof SupersededError)
        log.warn({ err: error }, "superseded: another worker took this over; nothing more of it is written");
      if (job.name === "publish" || job.name === "build") {
        const left = await retryWhenStorageFull(job, token, error, log, storageFull);
        if (left) return left;
      }
      throw error;
    }
  };
}
