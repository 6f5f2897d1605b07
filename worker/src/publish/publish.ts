import { hostname } from "node:os";
import type { PrismicDocument } from "@prismicio/client";
import { createClientSource } from "#content/source.ts";
import { MAX_IDS_PER_PUBLISH, redisKeys } from "#jobs/catalog.ts";
import { deliveriesWithoutDocuments } from "#metrics/metrics.ts";
import { website } from "#website";
import { reportContentNotices } from "../content-notices.ts";
import { clearFailuresCommand } from "../publishing-health.ts";
import { execTransaction, type RedisCommand } from "./chunked-transaction.ts";
import { readManifest, updateManifest } from "./commit.ts";
import {
  type BatchOutcome,
  FAN_OUT_BATCH,
  isListingRoute,
  type PublishContext,
  type PublishSummary,
} from "./context.ts";
import {
  DependencyIndex,
  type IndexedDocument,
  type IndexedRoute,
  type PriorState,
} from "./dependency-index.ts";
import { dependencyPool } from "./dependency-pool.ts";
import { diffBuild, indexed, siteVersionOf } from "./diff-build.ts";
import { fetchByIds, fetchPagesByUid, pageUidsOf } from "./fetch-documents.ts";
import { claimWrites, ensureCurrent, generationGuard, nextGeneration } from "./generation.ts";
import { layeredSource } from "./layered-source.ts";
import { builtRefsCommands, coveredRefs, refsToBuild } from "./pending-refs.ts";
import { idsAsked, planIds } from "./plan-ids.ts";
import { idsToFetch } from "./planner.ts";
import { type PurgeOutcome, purgeStage, startOwnPurge } from "./purge-stage.ts";
import { redirectsConcerned, reportRedirectNotices } from "./redirect-notices.ts";
import { keyOrUndefined, servedOf } from "./redirect-objects.ts";
import { publishRedirects } from "./redirects-stage.ts";
import { renderRoutes } from "./render-routes.ts";
import { recordRouteFailures } from "./route-failures.ts";
import { StepTimer } from "./step-timer.ts";
import { type StartedTake, startTake, type Taken } from "./take.ts";

/**
 * A publish's take, with the index's read for the ids the delivery named behind it (take.ts).
 * `token`: the publish lock's token of the try sent just before it (publish-delivery.ts); without it, the
 * caller holds the lock.
 */
export function startPublishTake(ctx: PublishContext, token?: string): StartedTake {
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  return startTake(ctx.redis, ctx.queuePrefix, {
    ...(token ? { token } : {}),
    ...(ctx.idsHint ? { idsHint: ctx.idsHint } : {}),
    readPrior: (ids) => readPrior(index, ids, ctx.fanOutThreshold ?? 200),
  });
}

/** What the index knows of `ids`, as a publish reads it: listings' entries left out, none past `maxRoutes` routes. */
function readPrior(index: DependencyIndex, ids: readonly string[], maxRoutes: number): Promise<PriorState> {
  return index.prior(ids, { maxRoutes, isListing: isListingRoute });
}

/** The process that runs a publish, as `<host>:<pid>`, recorded with the last publish. */
export const PUBLISHER = `${hostname()}:${process.pid}`;

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
  const threshold = ctx.fanOutThreshold ?? 200;
  const keys = redisKeys(ctx.queuePrefix);
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  // Take every pending id at once (ids a failed publish left in processing too), with the index's
  // meta and what it knows of the named ids, in one round trip sent with the lock's try (take.ts).
  // Webhooks arriving from now on fill a fresh pending set for the next publish.
  let started = ctx.started;
  if (!started || !(await started.taken)) started = startPublishTake(ctx);
  const { guessed, prior: priorGuessed } = started;
  const { ids, announced, meta, backlog } = (await started.taken) as Taken;
  const unbuilt = refsToBuild(announced, await coveredRefs(ctx.redis, ctx.queuePrefix, announced));
  timer.lap("take");
  // Taken below, before anything is rendered; every write from then on carries it.
  let generation = 0;
  const done = async (summary: Omit<PublishSummary, "durationMs">): Promise<PublishSummary> => {
    const result = { ...summary, durationMs: timer.elapsed(), startedAt, timings: timer.timings };
    const commands: RedisCommand[] = [
      // UNLINK: a backlog of a million ids is freed in the background, not while Redis serves no one.
      ["unlink", keys.processingIds, keys.processingRefs, keys.processingBacklog],
      ["set", keys.lastRef, summary.ref],
      // `by`: the worker process that ran it (`pressroom status` shows it; the benchmark reads its pid).
      ["set", keys.lastPublish, JSON.stringify({ ...result, at: new Date().toISOString(), by: PUBLISHER })],
      clearFailuresCommand(ctx.queuePrefix),
      // A diff build read the master ref after taking the announced refs: it covered them all.
      ...(summary.mode === "diff-build" ? builtRefsCommands(ctx.queuePrefix, announced) : []),
    ];
    // Only while still the newest: a superseded publish (paused, then resumed) must neither forget
    // ids its successor took nor move the last ref back.
    await execTransaction(ctx.redis, commands, undefined, generationGuard(ctx.queuePrefix, generation));
    ctx.logger.info(result, "publish finished");
    return result;
  };
  if (announced.length > unbuilt.length) {
    deliveriesWithoutDocuments.inc({ action: "covered" }, announced.length - unbuilt.length);
    ctx.logger.info(
      { refs: announced.filter((ref) => !unbuilt.includes(ref)) },
      "deliveries naming no document at refs a diff build already covered: nothing more to publish for them",
    );
  }
  if (ids.length === 0 && unbuilt.length === 0 && backlog === 0) {
    if (announced.length > 0) await ctx.redis.del(keys.processingRefs);
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
  // From here on every write carries this publish's generation, so no write of an older publish
  // lands after ours. The generation, the master ref and the index read are independent: all at once.
  // The batch is asked for at the announced ref meanwhile, and kept only if the master ref is that
  // ref: a publish never renders at a ref it did not read as the master.
  const sameIds = ids.length === guessed.length && ids.every((id, i) => id === guessed[i]);
  const priorRead =
    meta.ref === undefined || backlog > 0
      ? Promise.resolve(undefined)
      : timer.time("indexRead", priorGuessed && sameIds ? priorGuessed : readPrior(index, ids, threshold));
  const hint = unbuilt.length === 0 && backlog === 0 ? ctx.refHint : undefined;
  const atHint = hint
    ? priorRead.then((known) =>
        known
          ? fetchByIds(
              ctx.client,
              hint,
              idsAsked(ids, idsToFetch(ids, meta.frameIds, known.entries.values())),
            )
          : undefined,
      )
    : undefined;
  atHint?.catch(() => undefined); // an old ref may be gone: the master ref's fetch answers instead
  const [next, ref, prior, unsettled, site] = await Promise.all([
    nextGeneration(ctx.redis, ctx.queuePrefix),
    timer.time("masterRef", ctx.client.fetchMasterRef()),
    priorRead,
    // Routes a publish wrote or deleted and did not commit (it failed after: a full disk, Redis
    // away): storage may hold there what the index does not say. Rendered and written again below.
    ctx.redis.smembers(keys.unsettledRoutes),
    siteVersionOf(ctx),
  ]);
  const rewrite = new Set(unsettled);
  generation = next;
  const speculated = atHint && ref === hint ? (atHint as Promise<Map<string, PrismicDocument>>) : undefined;
  const log = ctx.logger.child({ ref, generation });
  if (backlog > 0) {
    log.warn(
      { backlog },
      `${backlog} ids waiting, more than a publish reads one by one (${MAX_IDS_PER_PUBLISH}): publishing every route at the master ref (a diff build)`,
    );
    return done({ ...(await diffBuild(ctx, ref, index, generation)), ids: backlog });
  }
  if (prior === undefined) {
    log.warn("the dependency index is missing or of another version: running a diff build");
    return done({ ...(await diffBuild(ctx, ref, index, generation)), ids: ids.length });
  }
  if (meta.site !== site) {
    // A deploy (or `pressroom build`, which marks the index): any page may render differently, a
    // route may have come or gone, and the index's dependencies were recorded by other code.
    log.warn(
      { indexSite: meta.site ?? null, site },
      "the site's code is not the one the index was built with (a deploy, or pressroom build): running a diff build",
    );
    return done({ ...(await diffBuild(ctx, ref, index, generation)), ids: ids.length });
  }
  if (unbuilt.length > 0) {
    // Something changed at these refs and no delivery said what: every route, at once, at the
    // master ref read now (never the announced one: later work never goes back in time).
    deliveriesWithoutDocuments.inc({ action: "diff-build" }, unbuilt.length);
    log.warn(
      { announced: unbuilt, ids: ids.length },
      "a delivery named no document for a new master ref: publishing every route at the master ref (a diff build)",
    );
    return done({ ...(await diffBuild(ctx, ref, index, generation)), ids: ids.length });
  }

  const { plan, fetchedDocs, gone, fetched, documents, rules } = await planIds(ctx.client, index, ref, ids, {
    prior,
    alsoFetch: idsToFetch(ids, meta.frameIds, prior.entries.values()),
    timer,
    ...(speculated ? { fetchedAlready: speculated } : {}),
  });
  for (const route of rewrite)
    if (!plan.render.has(route) && !plan.delete.has(route))
      plan.render.set(route, "written by a publish that did not commit");
  for (const [route, why] of plan.render) log.debug({ route, why }, "render");
  for (const [route, why] of plan.delete) log.debug({ route, why }, "delete");
  for (const [from, why] of plan.redirects) log.debug({ from, why }, "redirect");
  // A uid Prismic accepted but the site cannot route (reserved, too long): say it where it happens.
  for (const doc of fetchedDocs.values()) {
    const problem = website.routes.problem(doc);
    if (problem)
      log.error({ documentId: doc.id, uid: doc.uid }, `${doc.type} ${doc.id} gets no page: ${problem}`);
  }
  // Fields a page needed and lacks (a model change), slices left out: said once, for what this publishes.
  reportContentNotices(
    ids.map((id) => fetchedDocs.get(id)),
    log,
  );
  if (plan.render.size > threshold && !ctx.fanOut) {
    log.info(
      { routes: plan.render.size },
      "large fan-out and no render queue: rendering everything as a diff build",
    );
    return done({ ...(await diffBuild(ctx, ref, index, generation)), ids: ids.length });
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

  // The edge: the changed pages of the changed documents, purged as soon as they are
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
        rewrite,
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
        rewrite,
      }),
    );
    timer.lap("rest");
  }
  // A publish whose lock expired while it ran (a paused process) must not commit over its successor:
  // it checks before each stage that writes, claims each delete as it claims each put, and commits
  // the index only while still the newest (atomically: generation.ts). What a pause can still slip
  // in is one step's writes, as for a put (docs/reliability.md).
  //
  // Redirects (old routes of renamed documents, editors' redirects) go before the deletes: a renamed
  // page's old route becomes its redirect in one write over the page, never a 404 between a delete
  // and the redirect, and never a redirect before the page it leads to is written (the site server
  // serves a page the manifest does not name yet: the manifest is written last and may not fit).
  await ensureCurrent(ctx.redis, ctx.queuePrefix, generation);
  const redirected = new Set<string>();
  const manifest = await readManifest(ctx.store);
  const redirects = await publishRedirects(ctx.store, {
    ...{ siteUrl: ctx.siteUrl, ids, known: prior.known, fetched, written, deleted, rules },
    served: servedOf(manifest),
    indexedRoutes: (candidates) => index.routes(candidates),
    indexedDocuments: (targets) => index.documents(targets),
    touched: redirected,
  });
  reportRedirectNotices(redirects.notices, log, redirectsConcerned(ids, rules.values()));
  await ensureCurrent(ctx.redis, ctx.queuePrefix, generation);
  const redirectKeys = new Set([...redirects.served.keys()].map(keyOrUndefined));
  const deletable = await claimWrites(ctx.redis, ctx.queuePrefix, deleted, generation);
  for (const route of deleted) {
    if (!deletable.has(route)) continue;
    const key = previous.get(route)?.key ?? website.routes.key(route);
    // The route's page is gone either way; a redirect served there now holds its key.
    if (!redirectKeys.has(key)) await ctx.store.delete(key);
    counts.deleted++;
  }
  await ensureCurrent(ctx.redis, ctx.queuePrefix, generation);
  await updateManifest(ctx.store, ref, written, deleted, redirects.served, manifest);
  await index.commit({
    ref,
    written,
    deleted,
    previous,
    documents: overlay,
    guard: generationGuard(ctx.queuePrefix, generation),
  });
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
        rewritten: [...rewrite].filter((route) => written.has(route)),
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
