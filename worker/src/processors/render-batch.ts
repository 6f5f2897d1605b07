import { type Job, Queue, QueueEvents, Worker } from "bullmq";
import { Redis } from "ioredis";
import { DEFAULT_MAX_RETRY_AFTER_MS } from "#content";
import { jobCatalog, RENDER_QUEUE_NAME } from "#jobs/catalog.ts";
import type { Logger } from "#logger";
import { longWaitError } from "../content-api-wait.ts";
import type { BatchOutcome, PublishContext } from "../publish/context.ts";
import type { IndexedDocument } from "../publish/dependency-index.ts";
import { siteVersionOf } from "../publish/diff-build.ts";
import { renderBatchJob } from "../publish/render-routes.ts";
import { waitForChildren } from "../publish/wait-for-children.ts";
import { jobLocks, type Plumbing } from "./queues.ts";

const spec = jobCatalog["render-batch"];

export interface RenderQueue {
  /** What a publish calls for a large fan-out (PublishContext's `fanOut`). */
  fanOut: NonNullable<PublishContext["fanOut"]>;
  worker: Worker;
  close(): Promise<void>;
}

/**
 * The render queue: a large fan-out's batches of routes as child jobs, rendered by every worker
 * process (this one too, by a BullMQ worker of its own, so that a lone process does not wait for
 * itself), and the publish's side that queues them and waits for them.
 */
export async function startRenderQueue(
  deps: Plumbing & {
    context: PublishContext;
    /** Child jobs this process renders at once (0: none). */
    concurrency: number;
  },
): Promise<RenderQueue> {
  const { config, connection, logErrors } = deps;
  const prefix = config.queuePrefix;
  const queue = logErrors(new Queue(RENDER_QUEUE_NAME, { connection, prefix }), RENDER_QUEUE_NAME);
  // QueueEvents blocks on its connection: it gets its own, closed with it.
  const eventsConnection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  eventsConnection.on("error", () => undefined); // said once by the main connection
  const events = logErrors(
    new QueueEvents(RENDER_QUEUE_NAME, { connection: eventsConnection, prefix }),
    RENDER_QUEUE_NAME,
  );
  await events.waitUntilReady();
  const worker = new Worker(RENDER_QUEUE_NAME, (job) => renderBatch(deps.context, job, deps.logger), {
    connection,
    prefix,
    concurrency: Math.max(1, deps.concurrency),
    autorun: deps.concurrency !== 0,
    ...jobLocks(deps.lockMs),
  });
  logErrors(worker, RENDER_QUEUE_NAME);
  const maxWaitMs = config.prismic.rateLimitMaxWaitMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  return {
    worker,
    fanOut: async (ref, batches, documents, generation, keep) => {
      const site = await siteVersionOf(deps.context);
      const jobs = await queue.addBulk(
        batches.map((routes) => childJob({ ref, routes, documents, generation, site })),
      );
      return waitForChildren<BatchOutcome>(queue, events, jobs, {
        ...(keep ? { keep } : {}),
        signal: deps.shutdown,
        // Children delayed by a long 429 must not keep this publish holding the lock: it fails and
        // retries when the content API said (its children, of an older generation then, are dropped).
        check: () => longWaitError(connection, prefix, maxWaitMs),
      });
    },
    close: async () => {
      await worker.close();
      await events.close();
      await eventsConnection.quit().catch(() => undefined);
      await queue.close();
    },
  };
}

function childJob(data: unknown) {
  return {
    name: "render-batch",
    data: spec.schema.parse(data),
    opts: {
      attempts: spec.attempts,
      backoff: { ...spec.backoff },
      removeOnComplete: { age: 3600 },
      removeOnFail: { age: 86_400 },
    },
  };
}

/** One child job: its routes rendered and written, as the publish that queued it would. */
async function renderBatch(context: PublishContext, job: Job, logger: Logger): Promise<BatchOutcome> {
  const { ref, routes, documents, generation, site } = spec.schema.parse(job.data);
  // Queued by a worker of another site version (a rolling deploy): its pages are that code's to
  // render. Refused, the job is retried (on another worker) or fails its publish, which retries.
  const mine = await siteVersionOf(context);
  if (site !== undefined && site !== mine)
    throw new Error(
      `a child job of site version ${site}, and this worker renders ${mine}: left to a worker of that version`,
    );
  const overlay = new Map(documents.map(([id, doc]) => [id, doc as IndexedDocument | null]));
  const log = logger.child({ jobId: job.id, job: job.name });
  return renderBatchJob({ ...context, logger: log }, ref, routes, overlay, generation);
}
