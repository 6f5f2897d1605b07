import { type Job, Queue, Worker } from "bullmq";
import { EDGE_QUEUE_NAME, jobCatalog } from "#jobs/catalog.ts";
import type { Logger } from "#logger";
import type { PublishContext } from "../publish/context.ts";
import { sendOwedPurges } from "../publish/edge-purge.ts";
import type { Plumbing } from "./queues.ts";

export interface PurgeQueue {
  /** Queues the purge job, or brings a waiting retry forward (PublishContext's `schedulePurge`). */
  schedule(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The purge queue: purges the edge owes, sent again with backoff (1 s doubling to a minute); not under
 * the publish lock: a purge sent late is harmless, and a publish never waits for an edge that is down.
 * Its worker runs only when the worker has an edge (`context.edge`).
 */
export function startPurgeQueue(deps: Plumbing & { context: PublishContext }): PurgeQueue {
  const { connection, logErrors } = deps;
  const prefix = deps.config.queuePrefix;
  const queue = logErrors(new Queue(EDGE_QUEUE_NAME, { connection, prefix }), EDGE_QUEUE_NAME);
  const worker = new Worker(EDGE_QUEUE_NAME, (job) => sendPurges(deps.context, job, deps.logger), {
    connection,
    prefix,
    concurrency: 1,
    autorun: deps.context.edge !== undefined,
    settings: {
      backoffStrategy: (attemptsMade: number) => Math.min(60_000, 1_000 * 2 ** (attemptsMade - 1)),
    },
  });
  logErrors(worker, EDGE_QUEUE_NAME);
  return {
    schedule: () => schedulePurge(queue),
    close: async () => {
      await worker.close();
      await queue.close();
    },
  };
}

/** One purge job: what the edge owes, sent; again while routes were added during a send. */
async function sendPurges(context: PublishContext, job: Job, logger: Logger): Promise<string> {
  jobCatalog.purge.schema.parse(job.data);
  const log = logger.child({ jobId: job.id, job: job.name, attempt: job.attemptsMade + 1 });
  // Routes added while a send was in flight wait for the next one, here rather than a round later.
  for (let round = 0; round < 3; round++) {
    const sent = await sendOwedPurges(
      { ...context, logger: log },
      {
        reference: `${context.queuePrefix}-owed-${Date.now()}`,
        siteRoutes: await context.redis.hlen(`${context.queuePrefix}:index:routes`),
      },
    );
    if (!sent.ok) throw new Error(sent.error ?? "the edge did not acknowledge the purge");
    if (sent.routes === 0 && !sent.everything) break;
  }
  return "sent";
}

/**
 * Queues the purge job, or brings a waiting retry forward to now (a publish just added routes: the
 * edge may be back). One job at a time, by its fixed id; a job sending right now re-reads what is
 * owed before it ends.
 */
async function schedulePurge(queue: Queue): Promise<void> {
  const spec = jobCatalog.purge;
  const data = spec.schema.parse({ reason: "a purge was not acknowledged" });
  const id = spec.jobId(data);
  const existing = await queue.getJob(id);
  if (existing) {
    if (await existing.isDelayed()) await existing.promote().catch(() => undefined);
    if (!(await existing.isCompleted()) && !(await existing.isFailed())) return;
    await existing.remove().catch(() => undefined);
  }
  await queue.add("purge", data, {
    jobId: id,
    attempts: spec.attempts,
    backoff: { ...spec.backoff },
    removeOnComplete: true,
    removeOnFail: true,
  });
}
