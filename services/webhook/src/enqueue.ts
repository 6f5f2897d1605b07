import { randomUUID } from "node:crypto";
import { type JobPayload, jobCatalog, MAX_IDS_PER_PUBLISH, willStillRun } from "#jobs/catalog.ts";
import {
  createFailFastQueue,
  QueueUnavailableError,
  REMOVE_ON_COMPLETE,
  REMOVE_ON_FAIL,
} from "#jobs/fail-fast-queue.ts";
import type { Logger } from "#logger";
import { recordDelivery } from "./record-delivery.ts";

export { QueueUnavailableError };

export type PublishPayload = JobPayload<"publish">;

/** What the HTTP app needs from the queue; tests and other hosts may pass their own. */
export interface PublishEnqueuer {
  /** Resolves only once Redis holds both the pending ids and the job. */
  enqueue(payload: PublishPayload): Promise<{ jobId: string; duplicate?: boolean }>;
  /** Resolves when Redis answers PING; rejects with QueueUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface PublishEnqueuerOptions {
  redisUrl: string;
  queuePrefix: string;
  logger: Logger;
  /** Upper bound for one enqueue or ping, whatever Redis does (default 1500 ms). */
  timeoutMs?: number;
}

/**
 * The receiver must answer Prismic within a second whether Redis is there or not (Prismic
 * redelivers on non-2xx), hence a fail-fast producer (services/shared/src/jobs/fail-fast-queue.ts).
 */
export function createPublishEnqueuer(options: PublishEnqueuerOptions): PublishEnqueuer {
  const producer = createFailFastQueue(options);
  const { redis, queue } = producer;

  return {
    async enqueue(input) {
      // A payload the worker would refuse is a bug here, not an outage: let it surface as a 500.
      const payload = jobCatalog.publish.schema.parse(input);
      const jobId = jobCatalog.publish.jobId(payload);
      const jobOptions = {
        attempts: jobCatalog.publish.attempts,
        backoff: { ...jobCatalog.publish.backoff },
        removeOnComplete: REMOVE_ON_COMPLETE,
        removeOnFail: REMOVE_ON_FAIL,
      };
      const duplicate = await producer.run(async () => {
        // Ids first: if the job cannot be added, a later publish or reconcile still finds them.
        // Both go down the one connection the queue shares, the ids' transaction first, and Redis
        // runs one connection's commands in order, so no worker can take the job before the ids are
        // there (one round trip before the answer).
        const recorded = recordDelivery(
          redis,
          options.queuePrefix,
          jobId,
          payload.documents,
          payload.masterRef ?? undefined,
          payload.namesNoDocuments && payload.masterRef ? payload.masterRef : undefined,
        );
        const added = queue.add("publish", payload, { jobId, ...jobOptions });
        const [{ existed, idsLeftOut }] = await Promise.all([recorded, added]);
        if (idsLeftOut)
          options.logger.warn(
            { jobId, ids: payload.documents.length, limit: MAX_IDS_PER_PUBLISH },
            "the pending set is full: this delivery's ids are published by a diff build at the master ref",
          );
        // A redelivery of a publish whose job already ran (or ran out of attempts) recorded its ids
        // again: a job of its own takes them now, not the next reconcile.
        if (existed && !willStillRun(await queue.getJobState(jobId)))
          await queue.add("publish", payload, { jobId: `${jobId}-again-${randomUUID()}`, ...jobOptions });
        return existed;
      });
      return { jobId, duplicate };
    },
    ping: () => producer.ping(),
    close: () => producer.close(),
  };
}
