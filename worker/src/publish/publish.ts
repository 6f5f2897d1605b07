import { type Client, filter, type PrismicDocument } from "@prismicio/client";
import type { Redis } from "ioredis";
import { redisKeys } from "../../../services/shared/src/jobs/catalog.ts";
import type { Logger } from "../../../services/shared/src/logger.ts";
import { observeRender } from "../../../services/shared/src/metrics/metrics.ts";
import {
  type BuildManifest,
  CACHE_CONTROL,
  MANIFEST_KEY,
  MANIFEST_VERSION,
  parseManifest,
  serializeManifest,
} from "../../../services/shared/src/site/manifest.ts";
import { type SiteStore, sha256 } from "../../../services/shared/src/storage/index.ts";
import type { SiteAssets } from "../../../web/src/assets.ts";
import { type ContentSource, createClientSource } from "../../../web/src/content/index.ts";
import { renderRoute } from "../../../web/src/render.ts";
import {
  keyForRoute,
  NOT_FOUND_ROUTE,
  PRICE_LIST_INDEX_ROUTE,
  parseRoute,
  ROBOTS_ROUTE,
  routeForDocument,
  SITEMAP_ROUTE,
} from "../../../web/src/routes.ts";
import { buildSite, documentHash, stub } from "../build/full-build.ts";
import { mapLimit } from "../build/map-limit.ts";
import {
  DependencyIndex,
  type IndexedDocument,
  type IndexedRoute,
  type PriorState,
} from "./dependency-index.ts";
import { layeredSource } from "./layered-source.ts";
import { type FetchedDocument, idsToFetch, type KnownDocument, planPublish } from "./planner.ts";
import { type PublishTimings, StepTimer } from "./step-timer.ts";

export interface PublishContext {
  client: Client & { fetchMasterRef(): Promise<string> };
  store: SiteStore;
  redis: Redis;
  queuePrefix: string;
  siteUrl: string;
  assets: SiteAssets;
  logger: Logger;
  /** Above this many routes a publish is split into child jobs (`fanOut`), or else runs a diff build. */
  fanOutThreshold?: number;
  /** Renders batches of routes as child jobs that every worker process shares; resolves when all are done. */
  fanOut?: (
    ref: string,
    batches: string[][],
    overlay: [string, IndexedDocument | null][],
  ) => Promise<BatchOutcome[]>;
}

/** Routes per child job of a large fan-out. */
export const FAN_OUT_BATCH = 100;

/** What rendering a batch of routes did (JSON: a child job returns it to the publish that waits for it). */
export interface BatchOutcome {
  written: [string, IndexedRoute][];
  /** Routes whose document turned out to be gone (rendered as 404): to delete. */
  gone: string[];
  rendered: number;
  changed: number;
  unchanged: number;
}

/**
 * Renders `routes` at `ref` and writes the ones whose bytes changed; `source` reads at `ref` (the
 * documents a publish already fetched answer first). The sitemap reads every document's route and dates from the
 * index, with this publish's `overlay` laid over it, and only if it is rendered.
 */
export async function renderRoutes(
  ctx: PublishContext,
  job: {
    ref: string;
    routes: readonly string[];
    source: ContentSource;
    /** What this publish changed (null: gone), laid over the index's documents for the sitemap. */
    overlay: ReadonlyMap<string, IndexedDocument | null>;
    previous: ReadonlyMap<string, IndexedRoute>;
    index: DependencyIndex;
    log: Logger;
    /** Adds the time spent rendering and writing to the steps `render` and `write` (summed over routes). */
    timings?: { render: string; write: string; timer: StepTimer };
  },
): Promise<BatchOutcome> {
  const add = (step: "render" | "write", since: number) => {
    if (job.timings) job.timings.timer.add(job.timings[step], since);
  };
  const outcome: BatchOutcome = { written: [], gone: [], rendered: 0, changed: 0, unchanged: 0 };
  const sitemapSource = async () => {
    const allDocs = await job.index.allDocuments();
    for (const [id, doc] of job.overlay) {
      if (doc) allDocs.set(id, doc);
      else allDocs.delete(id);
    }
    return layeredSource([], new Set(), job.source, {
      page: listingStubs(allDocs, "page"),
      price_list: listingStubs(allDocs, "price_list"),
    });
  };
  await mapLimit(job.routes, 4, async (route) => {
    const renderStarted = performance.now();
    const result = await renderRoute(route, {
      source: route === SITEMAP_ROUTE ? await sitemapSource() : job.source,
      siteUrl: ctx.siteUrl,
      assets: ctx.assets,
      mode: "production",
      logger: job.log,
    });
    add("render", renderStarted);
    observeRender("worker", renderStarted);
    outcome.rendered++;
    if (result.status === 404 && route !== NOT_FOUND_ROUTE) {
      // Its document is gone though no webhook said so (a lost delivery): remove the route.
      outcome.gone.push(route);
      return;
    }
    const key = keyForRoute(route);
    const hash = sha256(result.html);
    const entry: IndexedRoute = {
      key,
      hash,
      status: result.status,
      dependencies: result.dependencies,
      ...(result.documentId ? { documentId: result.documentId } : {}),
    };
    outcome.written.push([route, entry]);
    const before = job.previous.get(route);
    if (before?.hash === hash && before.key === key) {
      outcome.unchanged++;
      return;
    }
    const writeStarted = performance.now();
    await ctx.store.put(key, result.html, {
      contentType: result.contentType,
      cacheControl: CACHE_CONTROL.html,
      contentHash: hash,
    });
    add("write", writeStarted);
    outcome.changed++;
  });
  return outcome;
}

/**
 * A child job of a large fan-out: fetches the pages and price lists its routes need in a request or
 * two (not one per route), renders and writes them.
 */
export async function renderBatchJob(
  ctx: PublishContext,
  ref: string,
  routes: readonly string[],
  overlay: ReadonlyMap<string, IndexedDocument | null>,
): Promise<BatchOutcome> {
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  const pageUids = pageUidsOf(routes);
  const fetched = await fetchPagesByUid(ctx.client, ref, pageUids);
  const source = layeredSource(fetched, new Set(), createClientSource(ctx.client, ref));
  const previous = await index.routes(routes);
  return renderRoutes(ctx, { ref, routes, source, overlay, previous, index, log: ctx.logger.child({ ref }) });
}

/** The pages behind `uids` at `ref`, 100 per request (a route each would cost a request each). */
async function fetchPagesByUid(
  client: Client,
  ref: string,
  uids: readonly string[],
): Promise<PrismicDocument[]> {
  const pages: PrismicDocument[] = [];
  for (let i = 0; i < uids.length; i += 100) {
    const answer = await client.get({
      ref,
      filters: [filter.in("my.page.uid", uids.slice(i, i + 100))],
      pageSize: 100,
      fetchOptions: { cache: "no-store" },
    });
    pages.push(...answer.results);
  }
  return pages;
}

/** Page uids of routes (`/` is the page `home`). */
function pageUidsOf(routes: readonly string[]): string[] {
  return routes.flatMap((route) => {
    const parsed = parseRoute(route);
    return parsed.kind === "home" ? ["home"] : parsed.kind === "page" ? [parsed.uid] : [];
  });
}

export interface PublishSummary {
  ref: string;
  ids: number;
  rendered: number;
  written: number;
  unchanged: number;
  deleted: number;
  mode: "incremental" | "diff-build" | "nothing-pending";
  /** Child jobs a large fan-out was split into (0: rendered by the publishing job itself). */
  batches?: number;
  durationMs: number;
  /** When the publish started (epoch ms, after the lock), and where its time went (ms per step). */
  startedAt?: number;
  timings?: PublishTimings;
}

const LAST = new Set([PRICE_LIST_INDEX_ROUTE, SITEMAP_ROUTE, ROBOTS_ROUTE, NOT_FOUND_ROUTE]);

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
      .set(keys.lastPublish, JSON.stringify({ ...result, at: new Date().toISOString() }))
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
  const threshold = ctx.fanOutThreshold ?? 200;
  // The master ref and what the index knows do not depend on each other: both at once.
  const [ref, prior] = await Promise.all([
    timer.time("masterRef", ctx.client.fetchMasterRef()),
    meta.ref === undefined
      ? undefined
      : timer.time("indexRead", index.prior(ids, { maxRoutes: threshold, isListing: (r) => LAST.has(r) })),
  ]);
  const log = ctx.logger.child({ ref });
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
  const overlay = new Map<string, IndexedDocument | null>(
    ids.map((id) => [id, fetchedDocs.has(id) ? indexed(fetchedDocs.get(id) as PrismicDocument) : null]),
  );
  const collect = (outcome: BatchOutcome) => {
    for (const [route, entry] of outcome.written) written.set(route, entry);
    deleted.push(...outcome.gone);
    counts.rendered += outcome.rendered;
    counts.written += outcome.changed;
    counts.unchanged += outcome.unchanged;
  };
  // Every route written or deleted needs its previous entry (unchanged bytes are not written again;
  // the commit replaces its dependencies). The index read most of them before anything was fetched.
  const previous = new Map(prior.entries);
  const readPrevious = async (wanted: readonly string[]) => {
    const missing = wanted.filter((route) => !previous.has(route));
    for (const [route, entry] of await index.routes(missing)) previous.set(route, entry);
  };

  if (plan.render.size > threshold && ctx.fanOut) {
    // Shared by every worker process: batches of routes as child jobs on the render queue; this
    // publish waits for them (holding the lock and the ids) and commits when all are done.
    await readPrevious([...routes, ...plan.delete.keys()]);
    const batches: string[][] = [];
    for (let i = 0; i < routes.length; i += FAN_OUT_BATCH) batches.push(routes.slice(i, i + FAN_OUT_BATCH));
    log.info({ routes: routes.length, batches: batches.length }, "large fan-out: rendering in child jobs");
    counts.batches = batches.length;
    for (const outcome of await ctx.fanOut(ref, batches, [...overlay])) collect(outcome);
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
        timings: { render: "ownRender", write: "ownWrite", timer },
      }),
    );
    timer.sinceStart("ownDone");
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
      await renderRoutes(ctx, { ref, routes: rest, source: restSource, overlay, previous, index, log }),
    );
    timer.lap("rest");
  }
  for (const route of deleted) {
    await ctx.store.delete(previous.get(route)?.key ?? keyForRoute(route));
    counts.deleted++;
  }

  await updateManifest(ctx.store, ref, written, deleted);
  await index.commit({ ref, written, deleted, previous, documents: overlay });
  timer.lap("commit");
  return done({ ref, ids: ids.length, ...counts, mode: "incremental" });
}

export interface PlannedPublish {
  plan: ReturnType<typeof planPublish>;
  /** Every document returned at the ref (the changed ones and those fetched along): renders read them first. */
  documents: PrismicDocument[];
  /** The changed documents that are published at the ref. */
  fetchedDocs: Map<string, PrismicDocument>;
  fetched: Map<string, FetchedDocument>;
  /** Ids asked at the ref and not returned: they do not exist there (unpublished or deleted). */
  gone: Set<string>;
}

/** What a publish of `ids` at `ref` would render and delete, and why (also `pressroom plan`). Reads only. */
export async function planIds(
  client: Client,
  index: DependencyIndex,
  ref: string,
  ids: readonly string[],
  options: {
    /** What the index knew of the ids (read before the master ref, at the same time). */
    prior?: PriorState;
    /** More ids to fetch in the same request(s) as the changed ones, at the same ref. */
    alsoFetch?: readonly string[];
    timer?: StepTimer;
  } = {},
): Promise<PlannedPublish> {
  const changed = new Set(ids);
  const asked = [...ids, ...(options.alsoFetch ?? []).filter((id) => !changed.has(id))];
  const { timer } = options;
  const [all, prior] = await Promise.all([
    fetchByIds(client, ref, [...new Set(asked)]),
    options.prior ?? index.prior(ids, { maxRoutes: 0, isListing: () => true }),
  ]);
  timer?.lap("fetch");
  const fetchedDocs = new Map([...all].filter(([id]) => changed.has(id)));
  const gone = new Set(asked.filter((id) => !all.has(id)));
  const { known } = prior;
  const fetched = new Map<string, FetchedDocument>(
    [...fetchedDocs].map(([id, doc]) => [id, { id, type: doc.type, route: routeForDocument(doc) }]),
  );
  // Listings of a type the index had not seen among the changed documents (a new document's type).
  const types = new Set([...fetched.values(), ...known.values()].map((d) => `type:${d.type}`));
  const unread = [...types].filter((dependency) => !prior.dependents.has(dependency));
  const dependents = new Map(prior.dependents);
  if (unread.length > 0)
    for (const [dep, routes] of await index.dependents(unread)) dependents.set(dep, routes);
  const plan = planPublish({
    changedIds: ids,
    fetched,
    known: known as Map<string, KnownDocument>,
    dependents: (dep) => dependents.get(dep) ?? [],
  });
  timer?.lap("plan");
  return { plan, documents: [...all.values()], fetchedDocs, gone, fetched };
}

/** Renders everything at `ref` (writing only changed bytes, deleting orphans) and rebuilds the index from it. */
export async function diffBuild(
  ctx: PublishContext,
  ref: string,
  index = new DependencyIndex(ctx.redis, ctx.queuePrefix),
) {
  const outcome = await buildSite({
    client: ctx.client,
    store: ctx.store,
    siteUrl: ctx.siteUrl,
    logger: ctx.logger,
    ref,
  });
  const routes = new Map<string, IndexedRoute>(Object.entries(outcome.manifest.routes));
  const documents = new Map(
    outcome.documents.map((doc) => [doc.id, indexed(doc, outcome.hashes.get(doc.id))]),
  );
  await index.replace(ref, routes, documents);
  const { summary } = outcome;
  return {
    ref,
    rendered: summary.rendered,
    written: summary.written,
    unchanged: summary.unchanged,
    deleted: summary.deleted,
    mode: "diff-build" as const,
  };
}

async function fetchByIds(
  client: Client,
  ref: string,
  ids: readonly string[],
): Promise<Map<string, PrismicDocument>> {
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += 100) chunks.push(ids.slice(i, i + 100));
  // 100 ids per request (Prismic's largest page), the requests at once.
  const answers = await Promise.all(
    chunks.map((chunk) =>
      client.get({
        ref,
        filters: [filter.in("document.id", chunk)],
        pageSize: 100,
        lang: "*",
        fetchOptions: { cache: "no-store" },
      }),
    ),
  );
  const found = new Map<string, PrismicDocument>();
  for (const answer of answers) for (const doc of answer.results) found.set(doc.id, doc);
  return found;
}

function indexed(doc: PrismicDocument, hash = documentHash(doc)): IndexedDocument {
  return {
    route: routeForDocument(doc),
    type: doc.type,
    uid: doc.uid ?? null,
    lang: doc.lang,
    first_publication_date: doc.first_publication_date,
    last_publication_date: doc.last_publication_date,
    hash,
  };
}

/** Document-shaped stubs of what the index knows, for listings (the sitemap reads routes and dates only). */
function listingStubs(docs: ReadonlyMap<string, IndexedDocument>, type: string): PrismicDocument[] {
  const stubs: PrismicDocument[] = [];
  for (const [id, doc] of docs) {
    if (doc.type !== type) continue;
    stubs.push(
      stub({
        id,
        uid: doc.uid,
        url: doc.route,
        type: doc.type,
        href: "",
        tags: [],
        first_publication_date: doc.first_publication_date ?? "",
        last_publication_date: doc.last_publication_date ?? "",
        slugs: [],
        linked_documents: [],
        lang: doc.lang,
        alternate_languages: [],
        data: {},
      } as PrismicDocument),
    );
  }
  return stubs;
}

function rank(route: string, own: ReadonlySet<string | null>): number {
  if (own.has(route)) return 0;
  return LAST.has(route) ? 2 : 1;
}

async function updateManifest(
  store: SiteStore,
  ref: string,
  written: ReadonlyMap<string, IndexedRoute>,
  deleted: readonly string[],
): Promise<void> {
  const current = parseManifest((await store.get(MANIFEST_KEY))?.body);
  const manifest: BuildManifest = current ?? {
    version: MANIFEST_VERSION,
    ref,
    builtAt: new Date().toISOString(),
    routes: {},
    assets: {},
  };
  manifest.ref = ref;
  manifest.builtAt = new Date().toISOString();
  for (const route of deleted) delete manifest.routes[route];
  for (const [route, entry] of written) manifest.routes[route] = entry;
  const body = serializeManifest(manifest);
  await store.put(MANIFEST_KEY, body, {
    contentType: "application/json",
    cacheControl: CACHE_CONTROL.metadata,
    contentHash: sha256(body),
  });
}
