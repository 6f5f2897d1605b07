import { type Job, Queue, Worker } from "bullmq";
import type { PublisherConfig } from "#config";
import { createContentClient, loadContentSchema } from "#content";
import { createEdgePurger } from "#edge";
import { ShuttingDownError } from "#errors";
import {
  CONTACT_QUEUE_NAME,
  QUEUE_NAME,
  RECONCILE_QUEUE_NAME,
  redisKeys,
  willStillRun,
} from "#jobs/catalog.ts";
import type { Logger } from "#logger";
import { createSiteStore } from "#storage";
import { website } from "#website";
import { idleRenderPool } from "./build/idle-render-pool.ts";
import { sharedDocumentsCache } from "./build/list-documents.ts";
import { createRenderPool, defaultRenderThreads } from "./build/render-pool.ts";
import { replayContactArchives } from "./contact/replay.ts";
import { recordContentApiWait } from "./content-api-wait.ts";
import { type JobHandlers, processByName } from "./processors/by-name.ts";
import { deliverContactJob, logContactDelivery } from "./processors/contact.ts";
import { buildJob, publishJob } from "./processors/publish.ts";
import { startPurgeQueue } from "./processors/purge.ts";
import { jobLocks, type Plumbing, queueErrorLogger, workerConnection } from "./processors/queues.ts";
import { reconcileJob, scheduleReconcile } from "./processors/reconcile.ts";
import { startRenderQueue } from "./processors/render-batch.ts";
import type { PublishContext, ThreadedRendering } from "./publish/context.ts";
import { siteVersionOf } from "./publish/diff-build.ts";
import { fetchAnswersByUid } from "./publish/fetch-documents.ts";
import { DEFAULT_LOCK_MS } from "./publish/lock.ts";
import type { ReconcileOutcome } from "./reconcile.ts";
import { watchForRedisLoss } from "./redis-loss.ts";
import { tempSweeper } from "./temp-sweep.ts";

export interface WorkerOptions {
  rootDir: string;
  /** How often reconcile runs (it also runs at start). */
  reconcileEveryMs?: number;
  /** How often, at most, a reconcile round starts a walk of folder storage for stale temp files (temp-sweep.ts). */
  tempSweepEveryMs?: number;
  fanOutThreshold?: number;
  /** Routes per child job of a fan-out (default 100). */
  fanOutBatch?: number;
  /**
   * Child jobs this process renders at once (0: none, this process only publishes). Default: its
   * render threads + 1, so one batch is fetched and written while the threads render another.
   */
  renderConcurrency?: number;
  /**
   * Render threads for child jobs and diff builds (default: `RENDER_THREADS`, else cores − 1, as the
   * full build; 0: on the main thread, child jobs through the content source). A fan-out's threads
   * start on its first batch and close when idle.
   */
  renderThreads?: number;
}

export interface RunningWorker {
  /** The publish queue's BullMQ worker. */
  worker: Worker;
  /** Every BullMQ worker of this process: publish, contact and reconcile queues. */
  workers: readonly Worker[];
  context: PublishContext;
  /** Runs reconcile now, under the publish lock (a newcomer's first build, in `pressroom start`). */
  reconcileNow(): Promise<ReconcileOutcome>;
  close(): Promise<void>;
}

/**
 * `pressroom serve worker`: consumes publish, build and reconcile jobs, one at a time per process
 * (and one publish at a time across processes, under a Redis lock). SIGTERM ends every wait at once
 * (content requests, a 429's wait, the lock, a fan-out's children): the job in hand fails and is
 * retried by another worker. A killed or paused worker's job is taken over once its locks expire
 * (WORKER_LOCK_MS, 8 s: the publish lock, and BullMQ's job lock with a stalled check every half).
 *
 * One module per queue's processor (processors/): publish and build, render child jobs, purge,
 * reconcile, contact. This function builds the process's dependencies and wires the queues.
 */
export async function startWorker(
  config: PublisherConfig,
  logger: Logger,
  options: WorkerOptions,
): Promise<RunningWorker> {
  const connection = workerConnection(config.redisUrl, logger);
  // Aborted first thing at close: every content request and wait ends, so the job in hand does too.
  const shutdown = new AbortController();
  const lock = { ttlMs: config.lockMs ?? DEFAULT_LOCK_MS, signal: shutdown.signal };
  const plumbing: Plumbing = {
    ...{ config, connection, logger, logErrors: queueErrorLogger(logger) },
    ...{ shutdown: shutdown.signal, lockMs: lock.ttlMs },
  };
  const { context, renderPool, assetKeys } = await publishContext(plumbing, options);
  // What killed writers left in folder storage: swept now and by reconcile rounds, beside publishing
  // (a walk reads every folder of the site), never under the publish lock.
  const sweeper = tempSweeper(context, { everyMs: options.tempSweepEveryMs, signal: shutdown.signal });
  sweeper.due();
  const reconcileRound = (ctx: PublishContext) => {
    sweeper.due();
    return reconcileJob(ctx, assetKeys, lock);
  };
  const renderQueue = await startRenderQueue({
    ...plumbing,
    context,
    concurrency: options.renderConcurrency ?? (context.renderThreads ?? 0) + 1,
  });
  context.fanOut = renderQueue.fanOut;
  const purgeQueue = startPurgeQueue({ ...plumbing, context });
  if (context.edge) context.schedulePurge = purgeQueue.schedule;
  const queues = startJobQueues(plumbing, {
    publish: (job, log) => publishJob({ ...context, logger: log }, job, lock),
    build: (_job, log) => buildJob({ ...context, logger: log }, lock),
    reconcile: (_job, log) => reconcileRound({ ...context, logger: log }),
    contact: (job, log) => deliverContactJob({ config, redis: connection, store: context.store }, job, log),
  });
  const lossWatch = await keepSchedules(plumbing, options, context, queues.queues);
  logger.info(
    {
      queue: QUEUE_NAME,
      prefix: config.queuePrefix,
      storage: context.store.description,
      // Which website it publishes (PRESSROOM_WEBSITE), and the code it renders with: a publish or
      // reconcile that finds the index built with another runs a diff build (a deploy). Computed now,
      // so its first job does not wait for the bundle.
      website: website.name,
      site: await siteVersionOf(context),
    },
    "worker started",
  );
  logContactDelivery(config, logger);
  return {
    worker: queues.workers[0] as Worker,
    workers: queues.workers,
    context,
    reconcileNow: () => reconcileRound(context),
    close: async () => {
      shutdown.abort(new ShuttingDownError("the worker"));
      lossWatch.stop();
      for (const w of queues.workers) await w.close();
      await renderQueue.close();
      await purgeQueue.close();
      await context.edge?.close();
      await renderPool.close();
      for (const queue of Object.values(queues.queues)) await queue.close();
      await context.store.close();
      await connection.quit().catch(() => undefined);
    },
  };
}

/**
 * What every publish of this process reads (PublishContext): the content client (its API probed),
 * the store, the site's assets, the edge, and the render threads that
 * child jobs and diff builds share, started on first use.
 */
async function publishContext({ config, connection, logger, shutdown }: Plumbing, options: WorkerOptions) {
  const client = createContentClient(config.prismic, {
    routes: website.routes.resolver,
    schema: loadContentSchema(options.rootDir),
    logger,
    signal: shutdown,
    onRateLimited: (wait) => recordContentApiWait(connection, config.queuePrefix, wait, logger),
  });
  await client.probe();
  const store = createSiteStore(config.storage, { logger });
  const built = await website.assets.build();
  const renderThreads = options.renderThreads ?? config.renderThreads ?? defaultRenderThreads();
  const renderPool = idleRenderPool(() =>
    createRenderPool({ siteUrl: config.siteUrl, assets: built.assets, documents: [] }, logger, renderThreads),
  );
  // The edge in front of the site: purged after every publish, owed purges sent again.
  const edge = createEdgePurger(config.edge?.purgeUrl, { logger });
  const threads: ThreadedRendering = {
    pool: () => renderPool.get(),
    sharedDocuments: sharedDocumentsCache(client),
    pageAnswers: (ref, documents) => fetchAnswersByUid(client, ref, documents),
  };
  const context: PublishContext = {
    ...{ client, store, redis: connection, queuePrefix: config.queuePrefix, siteUrl: config.siteUrl },
    ...{ assets: built.assets, logger, renderThreads },
    ...(options.fanOutThreshold !== undefined ? { fanOutThreshold: options.fanOutThreshold } : {}),
    ...(options.fanOutBatch !== undefined ? { fanOutBatch: options.fanOutBatch } : {}),
    ...(edge ? { edge } : {}),
    ...(renderThreads > 0 ? { threads } : {}),
  };
  return { context, renderPool, assetKeys: built.files.map((file) => file.key) };
}

/**
 * The publish queue (publishes and builds), and the contact and reconcile queues, each with its own
 * BullMQ worker so that neither a message nor a reconcile round waits behind a publish.
 */
function startJobQueues(plumbing: Plumbing, handlers: JobHandlers) {
  const { connection, logErrors, logger, shutdown } = plumbing;
  const prefix = plumbing.config.queuePrefix;
  const open = (name: string) => logErrors(new Queue(name, { connection, prefix }), name);
  const queues = {
    main: open(QUEUE_NAME),
    contact: open(CONTACT_QUEUE_NAME),
    reconcile: open(RECONCILE_QUEUE_NAME),
  };
  // Which publish job waits for space while storage is full (storage-full.ts); at worst two jobs
  // wait for space a while (an active one is not counted).
  const storageFull = {
    redis: connection,
    prefix,
    isQueued: async (id: string) => willStillRun(await queues.main.getJobState(id)),
  };
  const processor = processByName(handlers, storageFull, logger);
  const workers = [QUEUE_NAME, CONTACT_QUEUE_NAME, RECONCILE_QUEUE_NAME].map((name) => {
    const w = new Worker(name, processor, {
      connection,
      prefix,
      concurrency: 1,
      ...jobLocks(plumbing.lockMs),
    });
    // BullMQ's own errors (a lock lost to a stall, Redis away) go to the log, not to stderr.
    logErrors(w, name);
    w.on("failed", (job: Job | undefined, error: Error) => {
      if (shutdown.aborted)
        logger.info({ jobId: job?.id, job: job?.name }, "job interrupted by the shutdown; it is retried");
      else logger.error({ jobId: job?.id, job: job?.name, err: error }, "job failed");
    });
    return w;
  });
  return { queues, workers };
}

/**
 * Reconcile's schedule, registered now and again whenever Redis loses its data (then the contact
 * messages archived but no longer queued are queued again, as at start).
 */
async function keepSchedules(
  { config, connection, logger }: Plumbing,
  options: WorkerOptions,
  context: PublishContext,
  queues: { main: Queue; contact: Queue; reconcile: Queue },
) {
  const schedule = () => scheduleReconcile(queues, options.reconcileEveryMs ?? 5 * 60_000);
  await schedule();
  const lossWatch = watchForRedisLoss({
    redis: connection,
    markerKey: redisKeys(config.queuePrefix).workerMarker,
    logger,
    onLoss: async () => {
      await schedule();
      await replayContactArchives(context.store, queues.contact, logger);
    },
  });
  await lossWatch.start();
  // Messages archived (before their 202) whose job Redis lost while no worker was running.
  await replayContactArchives(context.store, queues.contact, logger).catch((error: unknown) =>
    logger.warn({ err: error }, "could not read the contact archive"),
  );
  return lossWatch;
}
