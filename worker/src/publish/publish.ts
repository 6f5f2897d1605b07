import { type Client, filter, type PrismicDocument } from "@prismicio/client";
import type { Redis } from "ioredis";
import { redisKeys } from "../../../services/shared/src/jobs/catalog.ts";
import type { Logger } from "../../../services/shared/src/logger.ts";
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
import { buildSite, stub } from "../build/full-build.ts";
import { mapLimit } from "../build/map-limit.ts";
import { DependencyIndex, type IndexedDocument, type IndexedRoute } from "./dependency-index.ts";
import { layeredSource } from "./layered-source.ts";
import { type FetchedDocument, type KnownDocument, planPublish } from "./planner.ts";

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
  },
): Promise<BatchOutcome> {
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
    const result = await renderRoute(route, {
      source: route === SITEMAP_ROUTE ? await sitemapSource() : job.source,
      siteUrl: ctx.siteUrl,
      assets: ctx.assets,
      mode: "production",
      logger: job.log,
    });
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
    await ctx.store.put(key, result.html, {
      contentType: result.contentType,
      cacheControl: CACHE_CONTROL.html,
      contentHash: hash,
    });
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
}

const LAST = new Set([PRICE_LIST_INDEX_ROUTE, SITEMAP_ROUTE, ROBOTS_ROUTE, NOT_FOUND_ROUTE]);

/**
 * One publish: take every pending id (a burst of webhooks is one publish), read the master ref now
 * (never the one announced: later work never goes back in time), fetch the ids at it, plan, render
 * the planned routes, write changed bytes, delete removed routes, then commit the manifest and the
 * index, and only then forget the ids. A failure anywhere leaves the ids pending for the retry.
 */
export async function publish(ctx: PublishContext): Promise<PublishSummary> {
  const started = performance.now();
  const keys = redisKeys(ctx.queuePrefix);
  // Take every pending id at once; ids a failed or killed publish took are still in processing and
  // are taken again. Webhooks arriving from now on fill a fresh pending set for the next publish.
  const [, , taken] = (await ctx.redis
    .multi()
    .sunionstore(keys.processingIds, keys.processingIds, keys.pendingIds)
    .del(keys.pendingIds)
    .smembers(keys.processingIds)
    .exec()) as [unknown, unknown, [Error | null, string[]]];
  const ids = [...taken[1]].sort();
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  const done = async (summary: Omit<PublishSummary, "durationMs">): Promise<PublishSummary> => {
    const result = { ...summary, durationMs: Math.round(performance.now() - started) };
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
  const ref = await ctx.client.fetchMasterRef();
  const log = ctx.logger.child({ ref });
  if ((await index.ref()) === undefined) {
    log.warn("the dependency index is missing or of another version: running a diff build");
    return done({ ...(await diffBuild(ctx, ref, index)), ids: ids.length });
  }

  // Settings rides along with the changed ids: every render needs it, and it costs no extra request.
  const settingsId = await index.settingsId();
  const { plan, fetchedDocs, gone, fetched, alsoFetched } = await planIds(
    ctx.client,
    index,
    ref,
    ids,
    settingsId ? [settingsId] : [],
  );
  for (const [route, why] of plan.render) log.debug({ route, why }, "render");
  for (const [route, why] of plan.delete) log.debug({ route, why }, "delete");
  if (plan.render.size > (ctx.fanOutThreshold ?? 200) && !ctx.fanOut) {
    log.info(
      { routes: plan.render.size },
      "large fan-out and no render queue: rendering everything as a diff build",
    );
    return done({ ...(await diffBuild(ctx, ref, index)), ids: ids.length });
  }

  // A document's own route first, then what links to it, listings last.
  const own = new Set([...fetched.values()].map((d) => d.route));
  const fetchedUids = new Set(
    [...fetchedDocs.values()].flatMap((d) => (d.type === "page" && d.uid ? [d.uid] : [])),
  );
  const routes = [...plan.render.keys()].sort((a, b) => rank(a, own) - rank(b, own) || a.localeCompare(b));
  const previous = await index.routes([...routes, ...plan.delete.keys()]);
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

  if (plan.render.size > (ctx.fanOutThreshold ?? 200) && ctx.fanOut) {
    // Shared by every worker process: batches of routes as child jobs on the render queue; this
    // publish waits for them (holding the lock and the ids) and commits when all are done.
    const batches: string[][] = [];
    for (let i = 0; i < routes.length; i += FAN_OUT_BATCH) batches.push(routes.slice(i, i + FAN_OUT_BATCH));
    log.info({ routes: routes.length, batches: batches.length }, "large fan-out: rendering in child jobs");
    counts.batches = batches.length;
    for (const outcome of await ctx.fanOut(ref, batches, [...overlay])) collect(outcome);
  } else {
    const fallback = createClientSource(ctx.client, ref);
    const base = [...fetchedDocs.values(), ...alsoFetched];
    // The changed documents' own routes first, on their own: what the editor waits for is live
    // before the pages that link to them and the listings are re-rendered.
    const ownRoutes = routes.filter((r) => own.has(r));
    const rest = routes.filter((r) => !own.has(r));
    collect(
      await renderRoutes(ctx, {
        ref,
        routes: ownRoutes,
        source: layeredSource(base, gone, fallback),
        overlay,
        previous,
        index,
        log,
      }),
    );
    // Then the pages of the other routes, fetched in one request rather than one each.
    const dependents = await fetchPagesByUid(
      ctx.client,
      ref,
      pageUidsOf(rest).filter((uid) => !fetchedUids.has(uid)),
    );
    const source = layeredSource([...base, ...dependents], gone, fallback);
    collect(await renderRoutes(ctx, { ref, routes: rest, source, overlay, previous, index, log }));
  }
  for (const route of deleted) {
    await ctx.store.delete(previous.get(route)?.key ?? keyForRoute(route));
    counts.deleted++;
  }

  await updateManifest(ctx.store, ref, written, deleted);
  await index.commit({ ref, written, deleted, previous, documents: overlay });
  return done({ ref, ids: ids.length, ...counts, mode: "incremental" });
}

export interface PlannedPublish {
  plan: ReturnType<typeof planPublish>;
  /** Documents fetched along with the changed ones (settings), at the same ref: they answer renders first. */
  alsoFetched: PrismicDocument[];
  fetchedDocs: Map<string, PrismicDocument>;
  fetched: Map<string, FetchedDocument>;
  gone: Set<string>;
}

/** What a publish of `ids` at `ref` would render and delete, and why (also `pressroom plan`). Reads only. */
export async function planIds(
  client: Client,
  index: DependencyIndex,
  ref: string,
  ids: readonly string[],
  alsoFetch: readonly string[] = [],
): Promise<PlannedPublish> {
  const extra = alsoFetch.filter((id) => !ids.includes(id));
  const all = await fetchByIds(client, ref, [...ids, ...extra]);
  const alsoFetched = extra.flatMap((id) => (all.has(id) ? [all.get(id) as PrismicDocument] : []));
  const fetchedDocs = new Map([...all].filter(([id]) => ids.includes(id)));
  const gone = new Set(ids.filter((id) => !fetchedDocs.has(id)));
  const known = await index.documents(ids);
  const fetched = new Map<string, FetchedDocument>(
    [...fetchedDocs].map(([id, doc]) => [id, { id, type: doc.type, route: routeForDocument(doc) }]),
  );
  const types = new Set(
    [...fetched.values()].map((d) => d.type).concat([...known.values()].map((d) => d.type)),
  );
  const dependents = await index.dependents([
    ...ids.map((id) => `doc:${id}`),
    ...[...types].map((t) => `type:${t}`),
  ]);
  const plan = planPublish({
    changedIds: ids,
    fetched,
    known: known as Map<string, KnownDocument>,
    dependents: (dep) => dependents.get(dep) ?? [],
  });
  return { plan, fetchedDocs, gone, fetched, alsoFetched };
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
  const documents = new Map(outcome.documents.map((doc) => [doc.id, indexed(doc)]));
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
  const found = new Map<string, PrismicDocument>();
  for (let i = 0; i < ids.length; i += 100) {
    const chunk = ids.slice(i, i + 100);
    const answer = await client.get({
      ref,
      filters: [filter.in("document.id", chunk)],
      pageSize: 100,
      lang: "*",
      fetchOptions: { cache: "no-store" },
    });
    for (const doc of answer.results) found.set(doc.id, doc);
  }
  return found;
}

function indexed(doc: PrismicDocument): IndexedDocument {
  return {
    route: routeForDocument(doc),
    type: doc.type,
    uid: doc.uid ?? null,
    lang: doc.lang,
    first_publication_date: doc.first_publication_date,
    last_publication_date: doc.last_publication_date,
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
