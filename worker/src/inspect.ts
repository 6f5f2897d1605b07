import { Queue } from "bullmq";
import { Redis } from "ioredis";
import type { PublisherConfig } from "#config";
import { readUndelivered, type UndeliveredMessage } from "#contact/undelivered.ts";
import { createContentClient, loadContentSchema } from "#content";
import { QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { readManifest } from "#manifest/manifest-store.ts";
import { redactUrl } from "#redact-url";
import { describeRedirectNotice } from "#redirects/resolve-redirects.ts";
import { createSiteStore } from "#storage";
import { website } from "#website";
import { describeContentApiWait, readContentApiWait } from "./content-api-wait.ts";
import { DependencyIndex } from "./publish/dependency-index.ts";
import { describeEdge } from "./publish/pending-purges.ts";
import { planIds } from "./publish/plan-ids.ts";
import { readRedirectHistory } from "./publish/redirects-stage.ts";
import { routeFailures } from "./publish/route-failures.ts";
import {
  describeStall,
  PUBLISH_STALL_MS,
  type PublishingHealth,
  readPublishingHealth,
} from "./publishing-health.ts";
import { connectOrUnreachable, masterRefOrUnreachable, reason } from "./reachable.ts";
import type { Suspects } from "./reconcile.ts";
import { describeRefused, type EditorReport, editorReport } from "./refused-documents.ts";
import { formatVerification } from "./verify.ts";

/** What `pressroom plan` and `pressroom status` read with: Redis, the content API and the index. */
interface Readers {
  redis: Redis;
  client: ReturnType<typeof createContentClient>;
  index: DependencyIndex;
}

/** What `pressroom plan` and `pressroom status` need: read-only views of the index and the queue. */
async function withReaders<T>(config: PublisherConfig, task: (readers: Readers) => Promise<T>): Promise<T> {
  // No retries and no offline queue: an unreachable Redis is one line, not a retry loop's stack trace.
  const redis = new Redis(config.redisUrl, {
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    enableOfflineQueue: false,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  redis.on("error", () => undefined); // the connect below rejects with it
  try {
    await connectOrUnreachable(redis, config.redisUrl, () => storageFacts(config));
    const client = createContentClient(config.prismic, {
      routes: website.routes.resolver,
      schema: loadContentSchema(website.projectDir),
    });
    return await task({ redis, client, index: new DependencyIndex(redis, config.queuePrefix) });
  } finally {
    redis.disconnect();
  }
}

/** What storage alone says of the site: what `status` can still tell without Redis. */
async function storageFacts(config: PublisherConfig): Promise<string[]> {
  const store = createSiteStore(config.storage);
  try {
    const manifest = await readManifest(store);
    if (!manifest) return [`storage:             no site built yet (${redactUrl(config.storage.url)})`];
    return [
      `storage:             ${Object.keys(manifest.routes).length} routes at ref ${manifest.ref}, built ${manifest.builtAt} (${redactUrl(config.storage.url)})`,
    ];
  } catch (error) {
    return [`storage:             unreadable (${(error as Error).message})`];
  } finally {
    await store.close();
  }
}

/** `pressroom plan <id…>`: which routes a publish of those ids would render and delete, and why. Writes nothing. */
export function planCommand(config: PublisherConfig, ids: string[]): Promise<string> {
  return withReaders(config, async ({ client, index }) => {
    const ref = await masterRefOrUnreachable(client, config.prismic.endpoint);
    if ((await index.ref()) === undefined) {
      return `The dependency index is missing (no build has run against ${config.redisUrl} with prefix ${config.queuePrefix}): the next publish runs a diff build of every route.`;
    }
    const { plan, gone } = await planIds(client, index, ref, ids);
    const lines = [`At master ref ${ref}:`];
    for (const id of gone) lines.push(`  ${id} is not published at this ref`);
    lines.push(`render ${plan.render.size}:`);
    for (const [route, why] of [...plan.render].sort()) lines.push(`  ${route}  (${why})`);
    lines.push(`delete ${plan.delete.size}:`);
    for (const [route, why] of [...plan.delete].sort()) lines.push(`  ${route}  (${why})`);
    if (plan.redirects.size > 0) {
      lines.push(`redirects ${plan.redirects.size} (resolved again, written where they change):`);
      for (const [from, why] of [...plan.redirects].sort()) lines.push(`  ${from}  (${why})`);
    }
    return lines.join("\n");
  });
}

/** `pressroom status`: refs, queue, index size and the last publish. */
export function statusCommand(
  config: PublisherConfig,
  /** How long deliveries may wait with no publish completing before publishing counts as stalled. */
  stallMs = PUBLISH_STALL_MS,
): Promise<string> {
  return withReaders(config, async (readers) => {
    const queue = new Queue(QUEUE_NAME, { connection: readers.redis, prefix: config.queuePrefix });
    try {
      const facts = await readStatus(config, readers, queue, stallMs);
      const report = await readEditorReport(config, readers.client, facts.masterRef);
      return [
        ...describePublishState(facts),
        ...describeEditorReport(report),
        `undelivered contact: ${facts.undelivered.length === 0 ? "none" : `${facts.undelivered.length} (each is archived under .pressroom/contact/ in storage):`}`,
        ...facts.undelivered.map(describeUndelivered),
      ].join("\n");
    } finally {
      await queue.close();
    }
  });
}

/** What `pressroom status` reads of Redis, the queue and the content API's master ref. */
interface StatusFacts {
  /** The master ref, or why the content API did not say it (`unreachable at …`). */
  masterRef: string;
  lastRef: string | null;
  indexRef: string | undefined;
  indexSite: string | undefined;
  routes: number;
  docs: number;
  pending: number;
  processing: number;
  backlog: number;
  refsWithoutDocuments: string[];
  counts: Record<string, number>;
  lastPublish: string | null;
  checkedUntil: string | null;
  suspects: string | null;
  lastVerify: string | null;
  failures: Awaited<ReturnType<typeof routeFailures>>;
  apiWait: Awaited<ReturnType<typeof readContentApiWait>>;
  edge: string[];
  undelivered: UndeliveredMessage[];
  health: PublishingHealth;
}

/** Everything status shows but the editors' report, read at once. */
async function readStatus(
  config: PublisherConfig,
  { redis, client, index }: Readers,
  queue: Queue,
  stallMs: number,
): Promise<StatusFacts> {
  const keys = redisKeys(config.queuePrefix);
  const {
    verify: [checkedUntil, suspects, lastVerify],
    ...facts
  } = await allOf({
    masterRef: client
      .fetchMasterRef()
      .catch(
        (error: Error) =>
          `unreachable at ${redactUrl(config.prismic.endpoint)} (${reason(error)}); PRISMIC_ENDPOINT names the content API`,
      ),
    lastRef: redis.get(keys.lastRef),
    indexRef: index.ref(),
    indexSite: index.site(),
    routes: redis.hlen(`${config.queuePrefix}:index:routes`),
    docs: redis.hlen(`${config.queuePrefix}:index:docs`),
    pending: redis.scard(keys.pendingIds),
    processing: redis.scard(keys.processingIds),
    backlog: redis.scard(keys.processingBacklog),
    refsWithoutDocuments: redis.sunion(keys.pendingRefs, keys.processingRefs),
    counts: queue.getJobCounts("waiting", "active", "delayed", "completed", "failed"),
    lastPublish: redis.get(keys.lastPublish),
    verify: redis.mget(keys.checkedUntil, keys.suspects, keys.lastVerify),
    failures: routeFailures(redis, config.queuePrefix),
    apiWait: readContentApiWait(redis, config.queuePrefix),
    edge: describeEdge(redis, config.queuePrefix, config.edge?.purgeUrl),
    undelivered: readUndelivered(redis, config.queuePrefix),
    health: readPublishingHealth(redis, config.queuePrefix, stallMs),
  });
  return {
    ...facts,
    checkedUntil: checkedUntil ?? null,
    suspects: suspects ?? null,
    lastVerify: lastVerify ?? null,
  };
}

/** Every value of `pending` awaited at once, under its own key. */
async function allOf<T extends Record<string, unknown>>(
  pending: T,
): Promise<{ [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.all(Object.entries(pending).map(async ([key, value]) => [key, await value]));
  return Object.fromEntries(settled) as { [K in keyof T]: Awaited<T[K]> };
}

/** What editors should fix at the master ref; undefined when the content API cannot say. */
async function readEditorReport(
  config: PublisherConfig,
  client: Readers["client"],
  masterRef: string,
): Promise<EditorReport | undefined> {
  if (masterRef.startsWith("unreachable")) return undefined;
  return editorReport(client, masterRef, {
    siteUrl: config.siteUrl,
    history: await readHistory(config),
  }).catch(() => undefined);
}

/** Refs, the index, the queue, reconcile, verification, failed routes, the edge and the last publish. */
function describePublishState(facts: StatusFacts): string[] {
  const { masterRef, lastRef, indexRef, indexSite, backlog, refsWithoutDocuments, failures } = facts;
  const reachable = !masterRef.startsWith("unreachable");
  return [
    `master ref:          ${masterRef}`,
    `content API:         ${describeContentApiWait(facts.apiWait)}`,
    `last processed ref:  ${lastRef ?? "none"}${lastRef && lastRef !== masterRef && reachable ? "  (behind: a publish is pending or reconcile will catch up)" : ""}`,
    `index:               ${indexRef ? `${facts.routes} routes, ${facts.docs} documents, at ${indexRef}, ${indexSite ? `site version ${indexSite} (a worker logs its own at start; another rebuilds the site)` : "marked stale (the next publish or reconcile round rebuilds it)"}` : "missing (the next publish runs a diff build)"}`,
    `pending ids:         ${facts.pending} waiting, ${facts.processing + backlog} being published${backlog > 0 ? ` (${backlog} as a backlog: every route is published)` : ""}${refsWithoutDocuments.length === 0 ? "" : `; deliveries naming no document at ${refsWithoutDocuments.sort().join(", ")} (every route is published)`}`,
    `queue:               ${Object.entries(facts.counts)
      .map(([state, n]) => `${state} ${n}`)
      .join(", ")}`,
    `reconcile:           ${reconcileState(facts.checkedUntil, facts.suspects)}`,
    `last verification:   ${formatVerification(facts.lastVerify)}`,
    `failed routes:       ${failures.length === 0 ? "none" : `${failures.length} keep their last good page until their document changes again`}`,
    ...failures.map(
      (f) =>
        `  ${f.route}  document ${f.documentId ?? "unknown"}, at ${f.ref} (${f.attempts} publish${f.attempts === 1 ? "" : "es"}): ${f.error}`,
    ),
    ...facts.edge,
    `last publish:        ${facts.lastPublish ?? "none"}`,
    ...describePublishing(facts.health),
  ];
}

/** Refused documents, content notices and the redirects served, from the editors' report. */
function describeEditorReport(report: EditorReport | undefined): string[] {
  const refused = report?.refused;
  const notices = report?.notices;
  return [
    `refused documents:   ${refused === undefined ? "unknown (content API unreachable)" : refused.length === 0 ? "none" : `${refused.length}, fix their uid in Prismic and publish again:`}`,
    ...(refused ?? []).map((doc) => `  ${describeRefused(doc)}`),
    `content notices:     ${notices === undefined ? "unknown (content API unreachable)" : notices.length === 0 ? "none" : `${notices.length}, pages render with a fallback, a converted field or without a slice until an editor fixes and publishes these:`}`,
    ...(notices ?? []).map((notice) => `  ${website.content.describeNotice(notice)}`),
    ...describeRedirects(report?.redirects),
  ];
}

/**
 * The redirects a build at the master ref serves (editors' and renamed pages'), and what editors
 * should know of theirs: one not served (a page wins, a loop, a duplicate, an unusable From path
 * or target) or served otherwise than it says (a chain collapsed, a target with no page).
 */
function describeRedirects(redirects: EditorReport["redirects"]): string[] {
  if (!redirects) return ["redirects:           unknown (content API unreachable)"];
  const editors = redirects.served.size - redirects.renames;
  const notes = redirects.notices;
  return [
    `redirects:           ${editors} from editors' redirect documents and ${redirects.renames} from renamed pages served; ${notes.length === 0 ? "nothing to fix" : `${notes.length} to look at (fix the redirect, or the page, in Prismic and publish):`}`,
    ...notes.map((notice) => `  ${describeRedirectNotice(notice)}${notice.served ? "" : "  [not served]"}`),
  ];
}

/** The rename history in storage; an empty one when storage cannot be read (status only reports). */
async function readHistory(config: PublisherConfig) {
  const store = createSiteStore(config.storage);
  try {
    return await readRedirectHistory(store);
  } catch {
    return {};
  } finally {
    await store.close();
  }
}

/** Whether publishing moves, and the last failure while it has not since. */
function describePublishing(health: PublishingHealth): string[] {
  const lines = [`publishing:          ${health.stalled ? describeStall(health) : "ok"}`];
  const failure = health.lastFailure;
  if (failure && health.failuresSince > 0)
    lines.push(
      `last failure:        ${failure.at} by ${failure.by} (${health.failuresSince} failed attempt${health.failuresSince === 1 ? "" : "s"} since the last publish): ${failure.error}`,
    );
  return lines;
}

/** One undelivered contact message: when it came, how often it was tried, what stopped it. */
function describeUndelivered(message: UndeliveredMessage): string {
  const state = message.givenUp ? "given up" : "retrying";
  const tries = `${message.attempts} attempt${message.attempts === 1 ? "" : "s"}`;
  return `  ${message.id}  received ${message.receivedAt}, ${tries}, ${state}: ${message.error}`;
}

/** What reconcile's check of the newest publications has seen (reconcile.ts): how far, and what waits a round. */
function reconcileState(checkedUntil: string | null, suspects: string | null): string {
  const checked = checkedUntil ? `publications checked up to ${checkedUntil}` : "no publication check yet";
  if (!suspects) return checked;
  const { ids, mismatch } = JSON.parse(suspects) as Suspects;
  const waiting = [
    ...(ids.length > 0 ? [`${ids.join(", ")} published with no webhook yet`] : []),
    ...(mismatch ? ["the document counts disagree"] : []),
  ];
  return `${checked}; waiting one round: ${waiting.join("; ")}`;
}
