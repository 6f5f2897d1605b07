import { createHash } from "node:crypto";
import type { MinimalJob } from "bullmq";
import { z } from "zod";

/**
 * The typed job catalog shared by producers (the webhook receiver, the CLI,
 * reconcile's scheduler) and the worker: each job's name, payload schema,
 * attempts, backoff and job-id rule. A job id derived from content makes the
 * same delivery twice one job.
 */
export const QUEUE_NAME = "pressroom";
/** Contact messages, on their own queue: a message never waits behind a publish. */
export const CONTACT_QUEUE_NAME = "pressroom-contact";
/** Reconcile rounds (and their schedule), on their own queue: a round never waits behind queued publishes. */
export const RECONCILE_QUEUE_NAME = "pressroom-reconcile";
/** Child jobs of large fan-outs: every worker process renders from it while a publish waits. */
export const RENDER_QUEUE_NAME = "pressroom-render";
/** Edge purges that failed, sent again with backoff: never behind a publish, never holding its lock. */
export const EDGE_QUEUE_NAME = "pressroom-edge";

/**
 * The most ids one publish reads one by one (the most one delivery may name, too). More waiting at
 * once (a bulk publish while the workers were down, a flood of deliveries) is a backlog: one diff build
 * at the master ref publishes them all (every route rendered, only changed bytes written), without
 * reading them out of Redis; and the receiver stops adding ids to a pending set this full, recording
 * the delivery's ref instead (record-delivery.ts), so what piles up stays bounded.
 */
export const MAX_IDS_PER_PUBLISH = 10_000;

const publishPayload = z.object({
  /** The master ref the webhook announced (absent when only a release changed). Informational: the
   * worker always renders at the master ref it reads itself, so later work never goes back in time. */
  masterRef: z.string().min(1).nullable(),
  /** Ids Prismic listed as changed; they are also recorded in the pending set before the job exists. */
  documents: z.array(z.string().min(1)).max(MAX_IDS_PER_PUBLISH),
  receivedAt: z.string(),
  /** The delivery announced `masterRef` and named no document (as Prismic's recorded 2020 body does):
   * the ref is recorded in the pending refs and the worker publishes every route at once (a diff
   * build). Informational here, as the ids are: Redis' pending refs are the source of truth. */
  namesNoDocuments: z.boolean().optional(),
});

const buildPayload = z.object({
  reason: z.enum(["manual", "reconcile", "index-missing"]),
});

const reconcilePayload = z.object({});

const purgePayload = z.object({
  /** What queued it: a publish or build whose purge failed, or reconcile finding purges still owed. */
  reason: z.string().max(200),
});

const renderBatchPayload = z.object({
  ref: z.string().min(1),
  routes: z.array(z.string().min(1)).min(1).max(1_000),
  /** The publish's changed documents as the index keeps them (null: gone), for the sitemap. */
  documents: z.array(z.tuple([z.string(), z.record(z.string(), z.unknown()).nullable()])),
  /** The publish's generation (worker/src/publish/generation.ts): a job of a superseded one is dropped,
   * and none of its writes may land after a newer one's. Absent (a job queued by older code): dropped. */
  generation: z.number().int().positive().optional(),
  /**
   * The site version of the worker that queued it (worker/src/build/render-code.ts): a worker of
   * another version refuses it (a rolling deploy), so no page of one version is committed under the
   * other's index. Absent (a job queued by older code): rendered.
   */
  site: z.string().min(1).optional(),
});

// Checked again here, not only in the form's validation: whatever queued the job, a line break
// must never reach a mail header.
const oneLine = z.string().regex(/^[^\r\n\u2028\u2029]*$/, "contains a line break");
const contactPayload = z.object({
  /** A random UUID made by the site server; the job id and the archive's name. */
  id: z.uuid(),
  name: oneLine.min(1).max(200),
  email: oneLine.min(3).max(254),
  /** E.164, or null when the visitor left it out. */
  phone: oneLine.max(20).nullable(),
  message: z.string().min(1).max(5000),
  receivedAt: z.iso.datetime(),
});

/**
 * The backoff of jobs that read the content API (`type: "retry-after"`, registered as every worker's
 * `backoffStrategy`): exponential from the job's `delay`, as BullMQ's own, but never before the time a
 * 429 asked to come back. A job failing with a RateLimitedError (a wait longer than a job may sleep
 * holding the lock) is so retried when the content API said, not seven times within minutes.
 */
export const RETRY_AFTER_BACKOFF = "retry-after";

export function retryAfterBackoff(
  attemptsMade: number,
  _type?: string,
  error?: Error,
  job?: MinimalJob,
): number {
  const delay = (job?.opts.backoff as { delay?: number } | undefined)?.delay ?? 1_000;
  const exponential = Math.round(2 ** Math.max(0, attemptsMade - 1) * delay);
  const retryAt = (error as { retryAt?: unknown } | undefined)?.retryAt;
  return typeof retryAt === "number" ? Math.max(exponential, retryAt - Date.now()) : exponential;
}

export const jobCatalog = {
  publish: {
    schema: publishPayload,
    attempts: 8,
    backoff: { type: RETRY_AFTER_BACKOFF, delay: 1_000 },
    /** One job per announced master ref: Prismic's redelivery of the same publish is a duplicate.
     * (BullMQ refuses custom ids with a colon, hence the dash; a release-only change has no ref, so
     * its ids, hashed, name it.) */
    jobId: (payload: z.output<typeof publishPayload>) =>
      `publish-${
        payload.masterRef ??
        `ids-${createHash("sha256")
          .update([...payload.documents].sort().join(","))
          .digest("hex")
          .slice(0, 24)}`
      }`,
  },
  build: {
    schema: buildPayload,
    attempts: 3,
    backoff: { type: RETRY_AFTER_BACKOFF, delay: 5_000 },
    jobId: (_payload: z.output<typeof buildPayload>) => undefined,
  },
  "render-batch": {
    schema: renderBatchPayload,
    attempts: 3,
    backoff: { type: RETRY_AFTER_BACKOFF, delay: 500 },
    jobId: (_payload: z.output<typeof renderBatchPayload>) => undefined,
  },
  reconcile: {
    schema: reconcilePayload,
    attempts: 1,
    backoff: { type: "fixed", delay: 0 },
    jobId: (_payload: z.output<typeof reconcilePayload>) => undefined,
  },
  /**
   * Sends every purge the edge still owes (`<prefix>:edge-pending`), whoever queued it: one job at
   * a time (a fixed id), promoted when a publish adds to it. Backoff doubles from 1 s to at most a
   * minute (the worker's `backoffStrategy`): about an hour and a half of attempts; then
   * reconcile re-sends every round.
   */
  purge: {
    schema: purgePayload,
    attempts: 100,
    backoff: { type: "edge", delay: 1_000 },
    jobId: (_payload: z.output<typeof purgePayload>) => "edge-purge",
  },
  /** One visitor's message: archived to storage, then mailed; retries ride out an SMTP outage (~3 h). */
  contact: {
    schema: contactPayload,
    attempts: 10,
    backoff: { type: "exponential", delay: 20_000 },
    jobId: (payload: z.output<typeof contactPayload>) => `contact-${payload.id}`,
  },
} as const;

export type JobName = keyof typeof jobCatalog;
export type JobPayload<N extends JobName> = z.output<(typeof jobCatalog)[N]["schema"]>;

/**
 * Whether a job in BullMQ state `state` will still start, and so take whatever ids are pending then.
 * An active job does not count: it may be past its last take.
 */
export function willStillRun(state: string): boolean {
  return (
    state === "waiting" || state === "delayed" || state === "prioritized" || state === "waiting-children"
  );
}

/** Redis keys outside BullMQ's own, under the same prefix. */
export const redisKeys = (prefix: string) => ({
  /** Set of document ids announced by webhooks and not yet published. */
  pendingIds: `${prefix}:pending-ids`,
  /** The ids a publish took from pendingIds: deleted when it commits, merged back into the next one otherwise. */
  processingIds: `${prefix}:processing-ids`,
  /**
   * The pending ids a take set aside unread because there were more than MAX_IDS_PER_PUBLISH: one
   * diff build publishes them all; deleted when it commits, taken again by the next one otherwise.
   */
  processingBacklog: `${prefix}:processing-backlog`,
  /**
   * Set of master refs announced by deliveries that named no document (pending-refs.ts): each calls
   * for a diff build at the master ref, unless a diff build already covered it.
   */
  pendingRefs: `${prefix}:pending-refs`,
  /** The refs a publish took from pendingRefs: deleted when it commits, taken again by the next one otherwise. */
  processingRefs: `${prefix}:processing-refs`,
  /** Sorted set (by time) of refs a diff build covered: a delivery announcing one of them needs none. */
  builtRefs: `${prefix}:built-refs`,
  /** Until when (epoch ms) the content API's latest 429 asked to wait; expires then (content-api-wait.ts). */
  contentApiWait: `${prefix}:content-api-wait`,
  /** Held by the one process publishing at a time. */
  publishLock: `${prefix}:publish-lock`,
  /** The last master ref a publish or build completed at. */
  lastRef: `${prefix}:last-ref`,
  /** A moved master ref reconcile saw with nothing pending, given one round for its webhook to arrive. */
  movedRef: `${prefix}:reconcile-moved-ref`,
  /** The newest `last_publication_date` reconcile has checked against the index (a Prismic date). */
  checkedUntil: `${prefix}:reconcile-checked-until`,
  /** What the last reconcile round found the index lacks (JSON), acted on if the next round finds it too. */
  suspects: `${prefix}:reconcile-suspects`,
  /** The summary of the last publish (JSON), for `pressroom status`. */
  lastPublish: `${prefix}:last-publish`,
  /** Counter: the newest publish (or build) generation; every write carries one (publish/generation.ts). */
  generation: `${prefix}:generation`,
  /** Hash route → the generation that last wrote it: a write of an older generation is refused. */
  routeGenerations: `${prefix}:route-generations`,
  /**
   * Set of routes written (or deleted) since the index was last committed: storage may hold there
   * what the index does not say (a publish that failed after writing, a full disk). The next
   * publish renders them and writes them whatever the index's hash; the commit empties it.
   */
  unsettledRoutes: `${prefix}:unsettled-routes`,
  /** The last storage verification (JSON), full (`pressroom verify`) or reconcile's sample, for `pressroom status`. */
  lastVerify: `${prefix}:last-verify`,
  /** Where reconcile's rotating storage sample resumes (an index route, exclusive). */
  verifyCursor: `${prefix}:verify-cursor`,
  /** Written by every worker at start: its absence means Redis lost its data (worker/src/redis-loss.ts). */
  workerMarker: `${prefix}:worker-marker`,
  /** Fixed 10-minute window counter of contact messages per client IP (`<this>:<ip>`). */
  contactRate: `${prefix}:contact-rate`,
  /**
   * Hash route → `<since ms>|<token>`: routes written whose edge purge has not been acknowledged
   * (`*`: everything). Sent again by the `purge` job, the next publish and reconcile.
   */
  edgePending: `${prefix}:edge-pending`,
  /** The last failed purge (JSON: at, edge, error), for `pressroom status`. */
  edgeLastError: `${prefix}:edge-last-error`,
  /** Epoch ms: the latest publish start whose deliveries wait for a purge to be live (publish-to-live). */
  edgeLiveFrom: `${prefix}:edge-live-from`,
  /** Hash: contact message id → why its delivery failed (services/shared/src/contact/undelivered.ts). */
  contactUndelivered: `${prefix}:contact-undelivered`,
  /**
   * The id of the publish job that is tried again while storage is full (worker/src/storage-full.ts):
   * other deliveries meeting the full store leave their documents to it. Expires after its wait.
   */
  storageFullRetrier: `${prefix}:storage-full-retrier`,
});
