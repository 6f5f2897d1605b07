import { Queue, QueueEvents, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { PublisherConfig } from "../../services/shared/src/config/index.ts";
import { createContentClient, loadContentSchema } from "../../services/shared/src/content/index.ts";
import {
  jobCatalog,
  QUEUE_NAME,
  RENDER_QUEUE_NAME,
  redisKeys,
} from "../../services/shared/src/jobs/catalog.ts";
import type { Logger } from "../../services/shared/src/logger.ts";
import { createSiteStore } from "../../services/shared/src/storage/index.ts";
import { buildSiteAssets } from "../../web/src/assets.ts";
import { deliverContact } from "./contact/deliver.ts";
import type { BatchOutcome, PublishContext } from "./publish/context.ts";
import type { IndexedDocument } from "./publish/dependency-index.ts";
import { diffBuild } from "./publish/diff-build.ts";
import { withLock } from "./publish/lock.ts";
import { publish } from "./publish/publish.ts";
import { renderBatchJob } from "./publish/render-routes.ts";
import { type ReconcileOutcome, reconcile } from "./reconcile.ts";

export interface WorkerOptions {
  rootDir: string;
  /** How often reconcile runs (it also runs at start). */
  reconcileEveryMs?: number;
  fanOutThreshold?: number;
}

export interface RunningWorker {
  worker: Worker;
  context: PublishContext;
  /** Runs reconcile now, under the publish lock (a newcomer's first build, in `pressroom start`). */
  reconcileNow(): Promise<ReconcileOutcome>;
  close(): Promise<void>;
}

/**
 * `pressroom serve worker`: consumes publish, build and reconcile jobs, one at a time per process
 * (and one publish at a time across processes, under a Redis lock). SIGTERM lets the job in hand
 * finish; a killed worker's job is picked up again once its lock expires (BullMQ's stalled check).
 */
export async function startWorker(
  config: PublisherConfig,
  logger: Logger,
  options: WorkerOptions,
): Promise<RunningWorker> {
  // Workers block on Redis: commands must wait for a reconnect rather than fail (BullMQ's rule).
  const connection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const client = createContentClient(config.prismic, { schema: loadContentSchema(options.rootDir), logger });
  await client.probe();
  const store = createSiteStore(config.storage, { logger });
  const built = await buildSiteAssets();
  const context: PublishContext = {
    client,
    store,
    redis: connection,
    queuePrefix: config.queuePrefix,
    siteUrl: config.siteUrl,
    assets: built.assets,
    logger,
    ...(options.fanOutThreshold !== undefined ? { fanOutThreshold: options.fanOutThreshold } : {}),
  };
  const { publishLock: lockKey, pendingIds: pendingKey } = redisKeys(config.queuePrefix);

  // Large fan-outs: child jobs on the render queue, rendered by every worker process (this one too,
  // by a second BullMQ worker, so that a lone process does not wait for itself).
  const renderQueue = new Queue(RENDER_QUEUE_NAME, { connection, prefix: config.queuePrefix });
  // QueueEvents blocks on its connection: it gets its own, closed with it.
  const eventsConnection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const renderEvents = new QueueEvents(RENDER_QUEUE_NAME, {
    connection: eventsConnection,
    prefix: config.queuePrefix,
  });
  await renderEvents.waitUntilReady();
  const renderSpec = jobCatalog["render-batch"];
  context.fanOut = async (ref, batches, documents, generation) => {
    const jobs = await renderQueue.addBulk(
      batches.map((routes) => ({
        name: "render-batch",
        data: renderSpec.schema.parse({ ref, routes, documents, generation }),
        opts: {
          attempts: renderSpec.attempts,
          backoff: { ...renderSpec.backoff },
          removeOnComplete: { age: 3600 },
          removeOnFail: { age: 86_400 },
        },
      })),
    );
    return Promise.all(
      jobs.map((job) => job.waitUntilFinished(renderEvents, 10 * 60_000) as Promise<BatchOutcome>),
    );
  };
  const renderWorker = new Worker(
    RENDER_QUEUE_NAME,
    async (job) => {
      const { ref, routes, documents, generation } = renderSpec.schema.parse(job.data);
      const overlay = new Map(documents.map(([id, doc]) => [id, doc as IndexedDocument | null]));
      return renderBatchJob(
        { ...context, logger: logger.child({ jobId: job.id, job: job.name }) },
        ref,
        routes,
        overlay,
        generation,
      );
    },
    { connection, prefix: config.queuePrefix, concurrency: 1 },
  );
  const assetKeys = built.files.map((file) => file.key);

  const worker = new Worker(
    QUEUE_NAME,
    async (job) => {
      const log = logger.child({ jobId: job.id, job: job.name });
      const ctx = { ...context, logger: log };
      switch (job.name) {
        case "publish":
          jobCatalog.publish.schema.parse(job.data);
          return withLock(connection, lockKey, async () => {
            // Ids that arrived while this publish ran are published now, not after a queue round trip.
            let result = await publish(ctx);
            while ((await connection.scard(pendingKey)) > 0) result = await publish(ctx);
            return result;
          });
        case "build":
          return withLock(connection, lockKey, async () => diffBuild(ctx, await client.fetchMasterRef()));
        case "reconcile":
          return withLock(connection, lockKey, () => reconcile(ctx, assetKeys));
        case "contact":
          // Not under the publish lock: a message never waits for a publish in another process.
          return deliverContact(
            {
              store,
              smtpUrl: config.contact?.smtpUrl,
              to: config.contact?.to,
              from: config.contact?.from ?? "Pressroom <no-reply@localhost>",
              logger: log,
            },
            job.data,
          );
        default:
          throw new Error(`unknown job ${job.name}`);
      }
    },
    { connection, prefix: config.queuePrefix, concurrency: 1 },
  );
  worker.on("failed", (job, error) =>
    logger.error({ jobId: job?.id, job: job?.name, err: error }, "job failed"),
  );

  const queue = new Queue(QUEUE_NAME, { connection, prefix: config.queuePrefix });
  await queue.upsertJobScheduler(
    "reconcile",
    { every: options.reconcileEveryMs ?? 5 * 60_000 },
    { name: "reconcile" },
  );
  await queue.add("reconcile", {}, { removeOnComplete: true, removeOnFail: 100 });
  logger.info(
    { queue: QUEUE_NAME, prefix: config.queuePrefix, storage: store.description },
    "worker started",
  );

  return {
    worker,
    context,
    reconcileNow: () => withLock(connection, lockKey, () => reconcile(context, assetKeys)),
    close: async () => {
      await worker.close();
      await renderWorker.close();
      await renderEvents.close();
      await eventsConnection.quit().catch(() => undefined);
      await renderQueue.close();
      await queue.close();
      await store.close();
      await connection.quit().catch(() => undefined);
    },
  };
}
