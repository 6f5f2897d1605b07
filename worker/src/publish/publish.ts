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
import { createClientSource } from "../../../web/src/content/index.ts";
import { renderRoute } from "../../../web/src/render.ts";
import {
  keyForRoute,
  NOT_FOUND_ROUTE,
  PRICE_LIST_INDEX_ROUTE,
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
  /** Above this many routes a publish renders everything as a diff build instead (streamed, threaded). */
  fanOutThreshold?: number;
}

export interface PublishSummary {
  ref: string;
  ids: number;
  rendered: number;
  written: number;
  unchanged: number;
  deleted: number;
  mode: "incremental" | "diff-build" | "nothing-pending";
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

  const { plan, fetchedDocs, gone, fetched } = await planIds(ctx.client, index, ref, ids);
  for (const [route, why] of plan.render) log.debug({ route, why }, "render");
  for (const [route, why] of plan.delete) log.debug({ route, why }, "delete");
  if (plan.render.size > (ctx.fanOutThreshold ?? 200)) {
    log.info({ routes: plan.render.size }, "large fan-out: rendering everything as a diff build");
    return done({ ...(await diffBuild(ctx, ref, index)), ids: ids.length });
  }

  const source = layeredSource([...fetchedDocs.values()], gone, createClientSource(ctx.client, ref));
  // The sitemap reads every document's route and dates: from the index (updated with this publish),
  // read only if the sitemap is rendered, and after the documents' own routes are written.
  const sitemapSource = async () => {
    const allDocs = await index.allDocuments();
    for (const id of gone) allDocs.delete(id);
    for (const [id, doc] of fetchedDocs) allDocs.set(id, indexed(doc));
    return layeredSource([...fetchedDocs.values()], gone, source, {
      page: listingStubs(allDocs, "page"),
      price_list: listingStubs(allDocs, "price_list"),
    });
  };
  // A document's own route first, then what links to it, listings last.
  const own = new Set([...fetched.values()].map((d) => d.route));
  const routes = [...plan.render.keys()].sort((a, b) => rank(a, own) - rank(b, own) || a.localeCompare(b));
  const previous = await index.routes([...routes, ...plan.delete.keys()]);
  const counts = { rendered: 0, written: 0, unchanged: 0, deleted: 0 };
  const written = new Map<string, IndexedRoute>();
  const deleted = [...plan.delete.keys()];

  const renderAndWrite = async (route: string) => {
    const result = await renderRoute(route, {
      source: route === SITEMAP_ROUTE ? await sitemapSource() : source,
      siteUrl: ctx.siteUrl,
      assets: ctx.assets,
      mode: "production",
      logger: log,
    });
    counts.rendered++;
    if (result.status === 404 && route !== NOT_FOUND_ROUTE) {
      // Its document is gone though no webhook said so (a lost delivery): remove the route.
      deleted.push(route);
      return;
    }
    const key = keyForRoute(route);
    const hash = sha256(result.html);
    written.set(route, {
      key,
      hash,
      status: result.status,
      dependencies: result.dependencies,
      ...(result.documentId ? { documentId: result.documentId } : {}),
    });
    if (previous.get(route)?.hash === hash && previous.get(route)?.key === key) {
      counts.unchanged++;
      return;
    }
    await ctx.store.put(key, result.html, {
      contentType: result.contentType,
      cacheControl: CACHE_CONTROL.html,
      contentHash: hash,
    });
    counts.written++;
  };
  // The changed documents' own routes first, on their own: what the editor waits for is live
  // before the pages that link to them and the listings are re-rendered.
  await mapLimit(
    routes.filter((route) => own.has(route)),
    4,
    renderAndWrite,
  );
  await mapLimit(
    routes.filter((route) => !own.has(route)),
    4,
    renderAndWrite,
  );
  for (const route of deleted) {
    await ctx.store.delete(previous.get(route)?.key ?? keyForRoute(route));
    counts.deleted++;
  }

  await updateManifest(ctx.store, ref, written, deleted);
  const documents = new Map<string, IndexedDocument | null>(
    [...ids].map((id) => [id, fetchedDocs.has(id) ? indexed(fetchedDocs.get(id) as PrismicDocument) : null]),
  );
  await index.commit({ ref, written, deleted, previous, documents });
  return done({ ref, ids: ids.length, ...counts, mode: "incremental" });
}

export interface PlannedPublish {
  plan: ReturnType<typeof planPublish>;
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
): Promise<PlannedPublish> {
  const fetchedDocs = await fetchByIds(client, ref, ids);
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
  return { plan, fetchedDocs, gone, fetched };
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
