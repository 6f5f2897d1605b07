import { resolve } from "node:path";
import { type Job, Queue, QueueEvents, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { PublisherConfig } from "#config";
import { createContentClient, DEFAULT_MAX_RETRY_AFTER_MS, loadContentSchema } from "#content";
import { createEdgePurger } from "#edge";
import { ShuttingDownError } from "#errors";
import {
  CONTACT_QUEUE_NAME,
  EDGE_QUEUE_NAME,
  jobCatalog,
  QUEUE_NAME,
  RECONCILE_QUEUE_NAME,
  RENDER_QUEUE_NAME,
  redisKeys,
  retryAfterBackoff,
  willStillRun,
} from "#jobs/catalog.ts";
import type { Logger } from "#logger";
import { createSiteStore } from "#storage";
import { WarnLimiter } from "#warn-limiter";
import { website } from "#website";
import { idleRenderPool } from "./build/idle-render-pool.ts";
import { sharedDocumentsCache } from "./build/list-documents.ts";
import { createRenderPool, defaultRenderThreads } from "./build/render-pool.ts";
import { deliverContact } from "./contact/deliver.ts";
import { recordingDelivery } from "./contact/record-delivery.ts";
import { replayContactArchives } from "./contact/replay.ts";
import { longWaitError, recordContentApiWait } from "./content-api-wait.ts";
import type { BatchOutcome, PublishContext } from "./publish/context.ts";
import type { IndexedDocument } from "./publish/dependency-index.ts";
import { diffBuild, siteVersionOf } from "./publish/diff-build.ts";
import { sendOwedPurges } from "./publish/edge-purge.ts";
import { fetchPageAnswers } from "./publish/fetch-documents.ts";
import { SupersededError } from "./publish/generation.ts";
import { DEFAULT_LOCK_MS, withLock } from "./publish/lock.ts";
import { renderBatchJob } from "./publish/render-routes.ts";
import { waitForChildren } from "./publish/wait-for-children.ts";
import { publishDelivery } from "./publish-delivery.ts";
import { type ReconcileOutcome, reconcile, removeStaleTemp } from "./reconcile.ts";
import { watchForRedisLoss } from "./redis-loss.ts";
import { retryWhenStorageFull } from "./storage-full.ts";

export interface WorkerOptions {
  rootDir: string;
  /** How often reconcile runs (it also runs at start). */
  reconcileEveryMs?: number;
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
 */
export async function startWorker(
  config: PublisherConfig,
  logger: Logger,
  options: WorkerOptions,
): Promise<RunningWorker> {
  // Workers block on Redis: commands must wait for a reconnect rather than fail (BullMQ's rule).
  const connection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  // One line per outage, not one per reconnect attempt (ioredis retries every ≤ 2 s).
  let redisDown = false;
  connection.on("error", (error) => {
    if (!redisDown) logger.warn({ err: error }, "Redis connection lost; reconnecting");
    redisDown = true;
  });
  connection.on("ready", () => {
    if (redisDown) logger.info("Redis connection back");
    redisDown = false;
  });
  // Every BullMQ queue, worker and event stream re-emits its connection's errors, at each reconnect
  // attempt; one without a listener prints them raw (console.error). Logged here instead, the
  // first of a kind a minute (the outage itself is said once, above).
  const queueErrors = new WarnLimiter();
  const logErrors = <T extends { on(event: "error", listener: (error: Error) => void): unknown }>(
    emitter: T,
    queue: string,
  ): T => {
    emitter.on("error", (error) => {
      const code = (error as NodeJS.ErrnoException).code;
      const limit = queueErrors.take(code ?? error.message.replace(/\d+/g, "#").slice(0, 200));
      if (limit) logger.warn({ err: error, queue, suppressed: limit.suppressed }, "queue worker error");
    });
    return emitter;
  };
  // Aborted first thing at close: every content request and wait ends, so the job in hand does too.
  const shutdown = new AbortController();
  const lock = { ttlMs: config.lockMs ?? DEFAULT_LOCK_MS, signal: shutdown.signal };
  const client = createContentClient(config.prismic, {
    routes: website.routes.resolver,
    schema: loadContentSchema(options.rootDir),
    logger,
    signal: shutdown.signal,
    onRateLimited: (wait) => recordContentApiWait(connection, config.queuePrefix, wait, logger),
  });
  await client.probe();
  const store = createSiteStore(config.storage, { logger });
  await removeStaleTemp({ store, logger }).catch((error: unknown) =>
    logger.warn({ err: error }, "could not remove stale temp files"),
  );
  const built = await website.assets.build();
  const context: PublishContext = {
    client,
    store,
    redis: connection,
    queuePrefix: config.queuePrefix,
    siteUrl: config.siteUrl,
    assets: built.assets,
    logger,
    ...(options.fanOutThreshold !== undefined ? { fanOutThreshold: options.fanOutThreshold } : {}),
    ...(options.fanOutBatch !== undefined ? { fanOutBatch: options.fanOutBatch } : {}),
  };
  // The edge in front of the site: purged after every publish, owed purges sent again.
  const edge = createEdgePurger(config.edge?.purgeUrl, { logger });
  const edgeQueue = logErrors(
    new Queue(EDGE_QUEUE_NAME, { connection, prefix: config.queuePrefix }),
    EDGE_QUEUE_NAME,
  );
  if (edge) {
    context.edge = edge;
    context.schedulePurge = () => schedulePurge(edgeQueue);
  }
  const renderThreads = options.renderThreads ?? config.renderThreads ?? defaultRenderThreads();
  context.renderThreads = renderThreads;
  const renderPool = idleRenderPool(() =>
    createRenderPool({ siteUrl: config.siteUrl, assets: built.assets, documents: [] }, logger, renderThreads),
  );
  if (renderThreads > 0) {
    context.threads = {
      pool: () => renderPool.get(),
      sharedDocuments: sharedDocumentsCache(client),
      pageAnswers: (ref, uids) => fetchPageAnswers(client, ref, uids),
    };
  }
  const keys = redisKeys(config.queuePrefix);
  const lockKey = keys.publishLock;
  // Large fan-outs: child jobs on the render queue, rendered by every worker process (this one too,
  // by a second BullMQ worker, so that a lone process does not wait for itself).
  const renderQueue = logErrors(
    new Queue(RENDER_QUEUE_NAME, { connection, prefix: config.queuePrefix }),
    RENDER_QUEUE_NAME,
  );
  // QueueEvents blocks on its connection: it gets its own, closed with it.
  const eventsConnection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  eventsConnection.on("error", () => undefined); // said once by the main connection
  const renderEvents = logErrors(
    new QueueEvents(RENDER_QUEUE_NAME, { connection: eventsConnection, prefix: config.queuePrefix }),
    RENDER_QUEUE_NAME,
  );
  await renderEvents.waitUntilReady();
  const renderSpec = jobCatalog["render-batch"];
  context.fanOut = async (ref, batches, documents, generation, keep) => {
    const site = await siteVersionOf(context);
    const jobs = await renderQueue.addBulk(
      batches.map((routes) => ({
        name: "render-batch",
        data: renderSpec.schema.parse({ ref, routes, documents, generation, site }),
        opts: {
          attempts: renderSpec.attempts,
          backoff: { ...renderSpec.backoff },
          removeOnComplete: { age: 3600 },
          removeOnFail: { age: 86_400 },
        },
      })),
    );
    const maxWaitMs = config.prismic.rateLimitMaxWaitMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
    return waitForChildren<BatchOutcome>(renderQueue, renderEvents, jobs, {
      keep,
      signal: shutdown.signal,
      // Children delayed by a long 429 must not keep this publish holding the lock: it fails and
      // retries when the content API said (its children, of an older generation then, are dropped).
      check: () => longWaitError(connection, config.queuePrefix, maxWaitMs),
    });
  };
  // BullMQ's job lock as short as the publish lock, checked every half of it: a paused worker's job
  // is handed to another within lock + check (≤ 12 s by default), not 30 s + 30 s.
  const jobLocks = {
    lockDuration: lock.ttlMs,
    stalledInterval: Math.round(lock.ttlMs / 2),
    settings: { backoffStrategy: retryAfterBackoff },
  };
  const renderWorker = new Worker(
    RENDER_QUEUE_NAME,
    async (job) => {
      const { ref, routes, documents, generation, site } = renderSpec.schema.parse(job.data);
      // Queued by a worker of another site version (a rolling deploy): its pages are that code's to
      // render. Refused, the job is retried (on another worker) or fails its publish, which retries.
      const mine = await siteVersionOf(context);
      if (site !== undefined && site !== mine)
        throw new Error(
          `a child job of site version ${site}, and this worker renders ${mine}: left to a worker of that version`,
        );
      const overlay = new Map(documents.map(([id, doc]) => [id, doc as IndexedDocument | null]));
      return renderBatchJob(
        { ...context, logger: logger.child({ jobId: job.id, job: job.name }) },
        ref,
        routes,
        overlay,
        generation,
      );
    },
    {
      connection,
      prefix: config.queuePrefix,
      concurrency: Math.max(1, options.renderConcurrency ?? renderThreads + 1),
      autorun: options.renderConcurrency !== 0,
      ...jobLocks,
    },
  );
  logErrors(renderWorker, RENDER_QUEUE_NAME);
  const assetKeys = built.files.map((file) => file.key);

  const queue = logErrors(new Queue(QUEUE_NAME, { connection, prefix: config.queuePrefix }), QUEUE_NAME);
  // Which publish job waits for space while storage is full (storage-full.ts); at worst two jobs
  // wait for space a while (an active one is not counted).
  const storageFull = {
    redis: connection,
    prefix: config.queuePrefix,
    isQueued: async (id: string) => willStillRun(await queue.getJobState(id)),
  };
  const processor = async (job: Job, token?: string) => {
    const log = logger.child({ jobId: job.id, job: job.name });
    try {
      return await run(job, log);
    } catch (error) {
      // A worker that was paused past its locks finds another took over: said once, plainly (BullMQ
      // may not report the failure: the job's lock is the other worker's by now).
      if (error instanceof SupersededError)
        log.warn({ err: error }, "superseded: another worker took this over; nothing more of it is written");
      // A full disk: tried again until space is freed, never given up (storage-full.ts).
      if (job.name === "publish" || job.name === "build") {
        const left = await retryWhenStorageFull(job, token, error, log, storageFull);
        if (left) return left;
      }
      throw error;
    }
  };
  const run = async (job: Job, log: Logger) => {
    const ctx = { ...context, logger: log };
    switch (job.name) {
      case "publish": {
        const delivery = jobCatalog.publish.schema.parse(job.data);
        // Nothing pending (a duplicate delivery, or ids the holder we waited for took): done, no
        // lock. Checked with each try for the lock, in its round trip.
        const published = await publishDelivery(ctx, delivery, lock);
        return published ?? { mode: "nothing-pending" };
      }
      case "build":
        return withLock(connection, lockKey, async () => diffBuild(ctx, await client.fetchMasterRef()), lock);
      case "reconcile":
        return withLock(connection, lockKey, () => reconcile(ctx, assetKeys), lock);
      case "contact":
        // Not under the publish lock, and on its own queue (also here: jobs queued by older code):
        // a message never waits for a publish.
        return recordingDelivery(connection, config.queuePrefix, job, log, () =>
          deliverContact(
            {
              store,
              smtpUrl: config.contact?.smtpUrl,
              outbox: config.contact?.outbox,
              to: config.contact?.to,
              from: config.contact?.from ?? "Pressroom <no-reply@localhost>",
              logger: log,
            },
            job.data,
          ),
        );
      default:
        throw new Error(`unknown job ${job.name}`);
    }
  };
  // Publishes and builds on the main queue; contact messages and reconcile rounds each on their
  // own, so neither waits behind a publish (nor a stream of them).
  const workers = [QUEUE_NAME, CONTACT_QUEUE_NAME, RECONCILE_QUEUE_NAME].map((name) => {
    const w = new Worker(name, processor, {
      connection,
      prefix: config.queuePrefix,
      concurrency: 1,
      ...jobLocks,
    });
    // BullMQ's own errors (a lock lost to a stall, Redis away) go to the log, not to stderr.
    logErrors(w, name);
    w.on("failed", (job, error) => {
      if (shutdown.signal.aborted)
        logger.info({ jobId: job?.id, job: job?.name }, "job interrupted by the shutdown; it is retried");
      else logger.error({ jobId: job?.id, job: job?.name, err: error }, "job failed");
    });
    return w;
  });
  const worker = workers[0] as Worker;
  // Purges the edge owes, sent again with backoff (1 s doubling to a minute); not under the publish
  // lock: a purge sent late is harmless, and a publish never waits for an edge that is down.
  const edgeWorker = new Worker(
    EDGE_QUEUE_NAME,
    async (job) => {
      jobCatalog.purge.schema.parse(job.data);
      const log = logger.child({ jobId: job.id, job: job.name, attempt: job.attemptsMade + 1 });
      // Routes added while a send was in flight wait for the next one, here rather than a round later.
      for (let round = 0; round < 3; round++) {
        const sent = await sendOwedPurges(
          { ...context, logger: log },
          { reference: `${config.queuePrefix}-owed-${Date.now()}`, siteRoutes: await indexSize() },
        );
        if (!sent.ok) throw new Error(sent.error ?? "the edge did not acknowledge the purge");
        if (sent.routes === 0 && !sent.everything) break;
      }
      return "sent";
    },
    {
      connection,
      prefix: config.queuePrefix,
      concurrency: 1,
      autorun: edge !== undefined,
      settings: {
        backoffStrategy: (attemptsMade: number) => Math.min(60_000, 1_000 * 2 ** (attemptsMade - 1)),
      },
    },
  );
  logErrors(edgeWorker, EDGE_QUEUE_NAME);
  const indexSize = () => connection.hlen(`${config.queuePrefix}:index:routes`);

  const contactQueue = logErrors(
    new Queue(CONTACT_QUEUE_NAME, { connection, prefix: config.queuePrefix }),
    CONTACT_QUEUE_NAME,
  );
  const reconcileQueue = logErrors(
    new Queue(RECONCILE_QUEUE_NAME, { connection, prefix: config.queuePrefix }),
    RECONCILE_QUEUE_NAME,
  );
  // Older code scheduled reconcile on the main queue.
  await queue.removeJobScheduler("reconcile");
  // The schedule lives in Redis: registered at start, and again whenever Redis lost its data.
  const schedule = async () => {
    await reconcileQueue.upsertJobScheduler(
      "reconcile",
      { every: options.reconcileEveryMs ?? 5 * 60_000 },
      { name: "reconcile" },
    );
    await reconcileQueue.add("reconcile", {}, { removeOnComplete: true, removeOnFail: 100 });
  };
  await schedule();
  const lossWatch = watchForRedisLoss({
    redis: connection,
    markerKey: redisKeys(config.queuePrefix).workerMarker,
    logger,
    onLoss: async () => {
      await schedule();
      await replayContactArchives(store, contactQueue, logger);
    },
  });
  await lossWatch.start();
  // Messages archived (before their 202) whose job Redis lost while no worker was running.
  await replayContactArchives(store, contactQueue, logger).catch((error: unknown) =>
    logger.warn({ err: error }, "could not read the contact archive"),
  );
  logger.info(
    {
      queue: QUEUE_NAME,
      prefix: config.queuePrefix,
      storage: store.description,
      // The code it renders with: a publish or reconcile that finds the index built with another
      // runs a diff build (a deploy). Computed now, so its first job does not wait for the bundle.
      site: await siteVersionOf(context),
    },
    "worker started",
  );
  logContactDelivery(config, logger);

  return {
    worker,
    workers,
    context,
    reconcileNow: () => withLock(connection, lockKey, () => reconcile(context, assetKeys), lock),
    close: async () => {
      shutdown.abort(new ShuttingDownError("the worker"));
      lossWatch.stop();
      for (const w of workers) await w.close();
      await renderWorker.close();
      await edgeWorker.close();
      await edgeQueue.close();
      await edge?.close();
      await renderPool.close();
      await renderEvents.close();
      await eventsConnection.quit().catch(() => undefined);
      await renderQueue.close();
      await queue.close();
      await contactQueue.close();
      await reconcileQueue.close();
      await store.close();
      await connection.quit().catch(() => undefined);
    },
  };
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

/** Says once, at start, where contact messages go: a mail server, the outbox folder, or nowhere yet. */
function logContactDelivery(config: PublisherConfig, logger: Logger): void {
  const contact = config.contact;
  if (contact?.smtpUrl) logger.info({ to: contact.to }, "contact messages are mailed through SMTP_URL");
  else if (contact?.outbox)
    logger.info(
      { outbox: resolve(contact.outbox) },
      `contact messages are written to ${resolve(contact.outbox)} (no SMTP_URL)`,
    );
  else
    logger.warn(
      "contact messages cannot be delivered: set SMTP_URL and CONTACT_TO (or CONTACT_OUTBOX); they are archived and listed by pressroom status",
    );
}
