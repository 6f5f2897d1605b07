import { hostname } from "node:os";
import type { PrismicDocument } from "@prismicio/client";
import { redisKeys } from "#jobs/catalog.ts";
import { createClientSource } from "#web/content/index.ts";
import { keyForRoute, routeProblem } from "#web/routes.ts";
import { updateManifest } from "./commit.ts";
import {
  type BatchOutcome,
  FAN_OUT_BATCH,
  isListingRoute,
  type PublishContext,
  type PublishSummary,
} from "./context.ts";
import { DependencyIndex, type IndexedDocument, type IndexedRoute } from "./dependency-index.ts";
import { dependencyPool } from "./dependency-pool.ts";
import { diffBuild, indexed } from "./diff-build.ts";
import { fetchPagesByUid, pageUidsOf } from "./fetch-documents.ts";
import { isCurrent, nextGeneration, SupersededError } from "./generation.ts";
import { layeredSource } from "./layered-source.ts";
import { planIds } from "./plan-ids.ts";
import { idsToFetch } from "./planner.ts";
import { type PurgeOutcome, purgeStage, startOwnPurge } from "./purge-stage.ts"; // the edge (issue 21)
import { publishRedirects } from "./redirects-stage.ts"; // redirects (issue 13 §2)
import { renderRoutes } from "./render-routes.ts";
import { recordRouteFailures } from "./route-failures.ts";
import { StepTimer } from "./step-timer.ts";

/** The process that runs a publish, as `<host>:<pid>`, recorded with the last publish. */
const PUBLISHER = `${hostname()}:${process.pid}`;

/**
 * One publish: take every pending id (a burst of webhooks is one publish), read the master ref now
 * (never the one announced: later work never goes back in time), fetch the ids at it, plan, render
 * the planned routes, write changed bytes, delete removed routes, then commit the manifest and the
 * index, and only then forget the ids. A failure anywhere leaves the ids pending for the retry.
 *
 * Content requests of a single-page edit: the master ref, then ONE request (per 100 ids) for the
 * changed ids, settings, and the documents the routes to re-render read last time (their pages and
 * the price lists they embed), which the index knows before anything is fetched. Only a dependency
 * that is genuinely new (a price list the edit just embedded) costs a request of its own.
 */
export async function publish(ctx: PublishContext): Promise<PublishSummary> {
  const timer = new StepTimer();
  const startedAt = Date.now();
  const keys = redisKeys(ctx.queuePrefix);
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  // Take every pending id at once; ids a failed or killed publish took are still in processing and
  // are taken again. Webhooks arriving from now on fill a fresh pending set for the next publish.
  // The index's meta (version, ref, settings id) comes back in the same round trip.
  const take = ctx.redis
    .multi()
    .sunionstore(keys.processingIds, keys.processingIds, keys.pendingIds)
    .del(keys.pendingIds)
    .smembers(keys.processingIds);
  const answers = (await index.readMeta(take).exec()) ?? [];
  const ids = [...((answers[2]?.[1] as string[] | undefined) ?? [])].sort();
  const meta = DependencyIndex.parseMeta((answers[3]?.[1] as (string | null)[] | undefined) ?? []);
  timer.lap("take");
  const done = async (summary: Omit<PublishSummary, "durationMs">): Promise<PublishSummary> => {
    const result = { ...summary, durationMs: timer.elapsed(), startedAt, timings: timer.timings };
    await ctx.redis
      .multi()
      .del(keys.processingIds)
      .set(keys.lastRef, summary.ref)
      // `by`: the worker process that ran it (`pressroom status` shows it; the benchmark reads its pid).
      .set(keys.lastPublish, JSON.stringify({ ...result, at: new Date().toISOString(), by: PUBLISHER }))
      .exec();
    ctx.logger.info(result, "publish finished");
    return result;
  };
  if (ids.length === 0) {
    return {
      ref: (await ctx.redis.get(keys.lastRef)) ?? "",
      ids: 0,
      rendered: 0,
      written: 0,
      unchanged: 0,
      deleted: 0,
      mode: "nothing-pending",
      durationMs: 0,
    };
  }
  // From here on every write carries this publish's generation: a child job of an older publish
  // still queued (its worker was killed) is dropped, and none of its writes can land after ours.
  const generation = await nextGeneration(ctx.redis, ctx.queuePrefix);
  const threshold = ctx.fanOutThreshold ?? 200;
  // The master ref and what the index knows do not depend on each other: both at once.
  const [ref, prior] = await Promise.all([
    timer.time("masterRef", ctx.client.fetchMasterRef()),
    meta.ref === undefined
      ? undefined
      : timer.time("indexRead", index.prior(ids, { maxRoutes: threshold, isListing: isListingRoute })),
  ]);
  const log = ctx.logger.child({ ref, generation });
  if (prior === undefined) {
    log.warn("the dependency index is missing or of another version: running a diff build");
    return done({ ...(await diffBuild(ctx, ref, index)), ids: ids.length });
  }

  const { plan, fetchedDocs, gone, fetched, documents } = await planIds(ctx.client, index, ref, ids, {
    prior,
    alsoFetch: idsToFetch(ids, meta.settingsId, prior.entries.values()),
    timer,
  });
  for (const [route, why] of plan.render) log.debug({ route, why }, "render");
  for (const [route, why] of plan.delete) log.debug({ route, why }, "delete");
  // A uid Prismic accepted but the site cannot route (reserved, too long): say it where it happens.
  for (const doc of fetchedDocs.values()) {
    const problem = routeProblem(doc);
    if (problem)
      log.error({ documentId: doc.id, uid: doc.uid }, `${doc.type} ${doc.id} gets no page: ${problem}`);
  }
  if (plan.render.size > threshold && !ctx.fanOut) {
    log.info(
      { routes: plan.render.size },
      "large fan-out and no render queue: rendering everything as a diff build",
    );
    return done({ ...(await diffBuild(ctx, ref, index)), ids: ids.length });
  }

  // A document's own route first, then what links to it, listings last.
  const own = new Set([...fetched.values()].map((d) => d.route));
  const routes = [...plan.render.keys()].sort((a, b) => rank(a, own) - rank(b, own) || a.localeCompare(b));
  const counts = { rendered: 0, written: 0, unchanged: 0, deleted: 0, batches: 0 };
  const written = new Map<string, IndexedRoute>();
  const deleted = [...plan.delete.keys()];
  const failed: NonNullable<BatchOutcome["failed"]> = [];
  const overlay = new Map<string, IndexedDocument | null>(
    ids.map((id) => [id, fetchedDocs.has(id) ? indexed(fetchedDocs.get(id) as PrismicDocument) : null]),
  );
  // The entries held until the commit (previous and new, 2 × 10,000 in a fan-out of every route)
  // share their dependency strings instead of each holding its own copies.
  const pooled = dependencyPool();
  const keep = (outcome: BatchOutcome) => {
    for (const [, entry] of outcome.written) pooled(entry);
    return outcome;
  };
  const collect = (outcome: BatchOutcome) => {
    for (const [route, entry] of outcome.written) written.set(route, entry);
    deleted.push(...outcome.gone);
    failed.push(...(outcome.failed ?? []));
    counts.rendered += outcome.rendered;
    counts.written += outcome.changed;
    counts.unchanged += outcome.unchanged;
  };
  // Every route written or deleted needs its previous entry (unchanged bytes are not written again;
  // the commit replaces its dependencies). The index read most of them before anything was fetched.
  const previous = new Map([...prior.entries].map(([route, entry]) => [route, pooled(entry)]));
  const readPrevious = async (wanted: readonly string[]) => {
    const missing = wanted.filter((route) => !previous.has(route));
    for (const [route, entry] of await index.routes(missing)) previous.set(route, pooled(entry));
  };

  // The edge (issue 21): the changed pages of the changed documents, purged as soon as they are
  // written when the site server already serves them from the same key (purge-stage.ts).
  let ownChanged: string[] = [];
  let early: string[] = [];
  let earlyPurge: Promise<PurgeOutcome> | undefined;
  // Unique to this publish, whatever Redis remembers (its generation restarts at 1 if Redis is lost).
  const reference = `${ctx.queuePrefix}-${generation}-${startedAt}`;
  // Read now, so that the changed pages' purge goes out the moment they are written.
  const owed = ctx.edge ? ctx.redis.hlen(keys.edgePending) : Promise.resolve(0);
  owed.catch(() => undefined);

  if (plan.render.size > threshold && ctx.fanOut) {
    // Shared by every worker process: batches of routes as child jobs on the render queue; this
    // publish waits for them (holding the lock and the ids) and commits when all are done.
    await readPrevious([...routes, ...plan.delete.keys()]);
    const batches: string[][] = [];
    const size = ctx.fanOutBatch ?? FAN_OUT_BATCH;
    for (let i = 0; i < routes.length; i += size) batches.push(routes.slice(i, i + size));
    log.info({ routes: routes.length, batches: batches.length }, "large fan-out: rendering in child jobs");
    counts.batches = batches.length;
    for (const outcome of await ctx.fanOut(ref, batches, [...overlay], generation, keep)) collect(outcome);
    timer.lap("fanOut");
  } else {
    const fallback = createClientSource(ctx.client, ref);
    // The changed documents' own routes first, on their own: what the editor waits for is live
    // before the pages that link to them and the listings are re-rendered.
    const ownRoutes = routes.filter((r) => own.has(r));
    const rest = routes.filter((r) => !own.has(r));
    await readPrevious(ownRoutes);
    const source = layeredSource(documents, gone, fallback);
    collect(
      await renderRoutes(ctx, {
        ref,
        routes: ownRoutes,
        source,
        overlay,
        previous,
        index,
        log,
        generation,
        timings: { render: "ownRender", write: "ownWrite", timer },
      }),
    );
    timer.sinceStart("ownDone");
    if (ctx.edge)
      ({ ownChanged, early, earlyPurge } = startOwnPurge(ctx, {
        own,
        written,
        previous,
        reference,
        owed,
        timer,
        log,
      }));
    await readPrevious([...rest, ...plan.delete.keys()]);
    // Pages of the other routes that were not fetched with the changed ids (normally none): one
    // request for all of them rather than one each.
    const fetchedUids = new Set(documents.flatMap((d) => (d.type === "page" && d.uid ? [d.uid] : [])));
    const extra = await fetchPagesByUid(
      ctx.client,
      ref,
      pageUidsOf(rest).filter((uid) => !fetchedUids.has(uid)),
    );
    const restSource = extra.length > 0 ? layeredSource([...documents, ...extra], gone, fallback) : source;
    collect(
      await renderRoutes(ctx, {
        ref,
        routes: rest,
        source: restSource,
        overlay,
        previous,
        index,
        log,
        generation,
      }),
    );
    timer.lap("rest");
  }
  // A publish whose lock expired while it ran (a paused process) must not commit over its successor.
  if (!(await isCurrent(ctx.redis, ctx.queuePrefix, generation))) throw new SupersededError(generation);
  for (const route of deleted) {
    await ctx.store.delete(previous.get(route)?.key ?? keyForRoute(route));
    counts.deleted++;
  }

  // redirects (issue 13 §2): old routes of renamed documents answer 301; see redirects-stage.ts.
  const redirected = new Set<string>();
  const redirects = await publishRedirects(ctx.store, {
    ...{ ids, known: prior.known, fetched, written, deleted },
    indexedRoutes: (candidates) => index.routes(candidates),
    touched: redirected,
  });
  await updateManifest(ctx.store, ref, written, deleted, redirects);
  await index.commit({ ref, written, deleted, previous, documents: overlay });
  await recordRouteFailures(
    ctx.redis,
    ctx.queuePrefix,
    failed.map((f) => ({ ...f, ref, at: new Date().toISOString() })),
    [...written.keys(), ...deleted],
  );
  timer.lap("commit");
  const edge = ctx.edge
    ? await purgeStage(ctx, {
        written,
        previous,
        deleted,
        redirected,
        ownChanged,
        early,
        earlyPurge,
        reference,
        startedAt,
        log,
      })
    : undefined;
  if (edge) timer.lap("purge");
  return done({
    ref,
    ids: ids.length,
    ...counts,
    failed: failed.length,
    mode: "incremental",
    ...(edge ? { edge } : {}),
  });
}

function rank(route: string, own: ReadonlySet<string | null>): number {
  if (own.has(route)) return 0;
  return isListingRoute(route) ? 2 : 1;
}
