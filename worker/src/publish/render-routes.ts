import type { PrismicDocument } from "@prismicio/client";
import { partsNamed } from "#content/dependencies.ts";
import { type ContentSource, countOf, createClientSource } from "#content/source.ts";
import { redisKeys } from "#jobs/catalog.ts";
import type { Logger } from "#logger";
import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { observeRender, observeRenderMs } from "#metrics/metrics.ts";
import { sha256 } from "#storage";
import { type FragmentCache, type RenderResult, website } from "#website";
import { asBuffer } from "../build/full-build.ts";
import { mapLimit } from "../build/map-limit.ts";
import type { BatchResult } from "../build/render-batch.ts";
import { fetchBatchContent } from "./batch-content.ts";
import type { BatchOutcome, PublishContext, ThreadedRendering } from "./context.ts";
import { DependencyIndex, type IndexedDocument, type IndexedRoute } from "./dependency-index.ts";
import { stageEntries } from "./fan-out-entries.ts";
import { documentsByUid } from "./fetch-documents.ts";
import { claimWrite, claimWrites, isCurrent } from "./generation.ts";
import { type IndexListings, indexStubs, SlotListings } from "./index-stubs.ts";
import { layeredSource } from "./layered-source.ts";
import { isTransient } from "./route-failures.ts";
import type { StepTimer } from "./step-timer.ts";

/** A run of routes to render at one ref (renderRoutes). */
export interface RoutesJob {
  ref: string;
  routes: readonly string[];
  source: ContentSource;
  /** What this publish changed (null: gone), laid over the index's documents for the sitemap. */
  overlay: ReadonlyMap<string, IndexedDocument | null>;
  previous: ReadonlyMap<string, IndexedRoute>;
  index: DependencyIndex;
  log: Logger;
  /** The publish's generation: every write is claimed first and refused if a newer one exists. */
  generation?: number;
  /** Routes written whatever `previous` says: storage may not hold it (unsettled, generation.ts). */
  rewrite?: ReadonlySet<string>;
  /** Adds the time spent rendering and writing to the steps `render` and `write` (summed over routes). */
  timings?: { render: string; write: string; timer: StepTimer };
}

/**
 * Renders `routes` at `ref` and writes the ones whose bytes changed; `source` reads at `ref` (the
 * documents a publish already fetched answer first). The sitemap (and each of its parts) reads
 * documents' routes and dates from the index, with this publish's `overlay` laid over it, once, and
 * only if it is rendered. A sitemap that renders as an index names its parts (`partsAfter`): those
 * its last render did not name are rendered after; those it no longer names are deleted.
 */
export async function renderRoutes(ctx: PublishContext, job: RoutesJob): Promise<BatchOutcome> {
  const outcome = emptyOutcome();
  const listings = lazyListingSources(job);
  // What the listings rendered here name as their parts now.
  const named = new Map<string, readonly string[]>();
  // Markup the site's pages share (its frame), rendered once for the routes of this publish.
  const fragments = website.assets.fragmentCache();
  const renderOne = async (route: string) => {
    const started = performance.now();
    const source = website.routes.isListing(route) ? await listings.source(route) : job.source;
    const result = await renderOrFail(ctx, job, outcome, route, { source, fragments });
    if (!result) return;
    addTime(job, "render", started);
    observeRender("worker", started);
    outcome.rendered++;
    if (website.routes.isListing(route)) named.set(route, result.parts ?? []);
    if (result.status === 404 && route !== website.routes.notFound) {
      // Its document is gone though no webhook said so (a lost delivery): remove the route.
      outcome.gone.push(route);
      return;
    }
    await storeRendered(ctx, job, outcome, route, result);
  };
  try {
    await mapLimit(job.routes, 4, renderOne);
    const after = partsAfter(named, job.previous);
    const planned = new Set(job.routes);
    for (const part of after.gone) {
      job.log.debug({ route: part, why: "its listing no longer names it" }, "delete");
      if (!outcome.gone.includes(part)) outcome.gone.push(part);
    }
    const added = after.added.filter((part) => !planned.has(part));
    for (const part of added) job.log.debug({ route: part, why: "its listing names it now" }, "render");
    await mapLimit(added, 4, renderOne);
  } finally {
    outcome.listed = await listings.listed();
    await listings.close();
  }
  return outcome;
}

/**
 * The parts of divided listings (a sitemap index's) that came and went, once the listings among the
 * planned routes have rendered, each naming its parts now (`named`; a listing whose render failed
 * is absent): `added`, named now and not by the listing's last render (`part:<route>` among the
 * dependencies it recorded: `previous`), to render even if unplanned; `gone`, named then and not
 * now, to delete even if planned. A part a listing names now and named then renders only when
 * planned: it holds the same documents' slots as before.
 */
export function partsAfter(
  named: ReadonlyMap<string, readonly string[]>,
  previous: ReadonlyMap<string, IndexedRoute>,
): { added: string[]; gone: string[] } {
  const gone = new Set<string>();
  const added = new Set<string>();
  for (const [listing, now] of named) {
    const before = new Set(partsNamed(previous.get(listing)?.dependencies ?? []));
    const current = new Set(now);
    for (const part of before) if (!current.has(part)) gone.add(part);
    for (const part of current) if (!before.has(part)) added.add(part);
  }
  return { added: [...added], gone: [...gone] };
}

function addTime(job: RoutesJob, step: "render" | "write", since: number): void {
  if (job.timings) job.timings.timer.add(job.timings[step], since);
}

/**
 * What a listing reads, as a full build gives it (full-build.ts): documents of the streamed types
 * (neither frame nor `shared`) as stubs of the index (route, dates, SEO facts: no content), with the
 * publish's overlay laid over it, and no redirect document; the sitemap gets stubs of every type,
 * read by listing slot and counted (`SlotListings`: a part costs its documents, not the site). The
 * rest reads through the job's source. The other listings' stubs are read from the whole index
 * once, and only when a listing asks for a streamed type (the price list index and the error pages
 * never do); they wait in temporary files until `close`.
 */
function lazyListingSources(job: RoutesJob): {
  source: (route: string) => Promise<ContentSource>;
  /** The stubs the listings read from the index. */
  listed: () => Promise<number>;
  close: () => Promise<void>;
} {
  const slots = new SlotListings(job.index, job.overlay);
  const sitemap: ContentSource = {
    ...layeredSource([], new Set(), job.source),
    getAllByType: (type, range) => slots.getAllByType(type, range),
    countByType: (type) => slots.countByType(type),
  };
  let read: Promise<IndexListings> | undefined;
  // The stubs of `type` when a build hands listings stubs of it; undefined: read through the source.
  const stubsOf = async (type: string): Promise<Iterable<PrismicDocument> | undefined> => {
    // A build hands listings no redirect document (no page shows one).
    if (type === website.redirects?.type) return [];
    if (website.frame.includes(type) || website.shared.includes(type)) return undefined;
    read ??= indexStubs(job.index, job.overlay);
    return (await read).byType.get(type);
  };
  const listing: ContentSource = {
    ...layeredSource([], new Set(), job.source),
    getAllByType: async (type) => (await stubsOf(type)) ?? job.source.getAllByType(type),
    countByType: async (type) => {
      const stubs = await stubsOf(type);
      return stubs ? countOf(stubs) : job.source.countByType(type);
    },
  };
  return {
    source: async (route) => (website.routes.isSitemap(route) ? sitemap : listing),
    listed: async () => slots.read + ((await read?.catch(() => undefined))?.count ?? 0),
    close: async () => {
      if (read) (await read.catch(() => undefined))?.close();
    },
  };
}

/**
 * One route rendered, or undefined when its render failed: a content API hiccup fails the publish
 * (retried with backoff); anything else is this route's content or template: the route keeps its
 * last good page (the failure is added to `outcome`), the rest goes on.
 */
async function renderOrFail(
  ctx: PublishContext,
  job: RoutesJob,
  outcome: BatchOutcome,
  route: string,
  read: { source: ContentSource; fragments: FragmentCache },
): Promise<RenderResult | undefined> {
  try {
    return await website.render(route, {
      ...read,
      siteUrl: ctx.siteUrl,
      ...(ctx.sitemapUrlLimit ? { sitemapUrlLimit: ctx.sitemapUrlLimit } : {}),
      assets: ctx.assets,
      mode: "production",
      logger: job.log,
    });
  } catch (error) {
    if (isTransient(error)) throw error;
    const documentId = job.previous.get(route)?.documentId ?? documentOf(route, job.overlay);
    const message = error instanceof Error ? error.message : String(error);
    outcome.failed = [
      ...(outcome.failed ?? []),
      { route, ...(documentId ? { documentId } : {}), error: message },
    ];
    job.log.error({ route, documentId, err: error }, "render failed: the route keeps its last good page");
    return undefined;
  }
}

/**
 * A rendered route recorded in `outcome` and written when its bytes changed (or storage may not
 * hold them: `rewrite`), once its write is claimed for the job's generation.
 */
async function storeRendered(
  ctx: PublishContext,
  job: RoutesJob,
  outcome: BatchOutcome,
  route: string,
  result: RenderResult,
): Promise<void> {
  const key = website.routes.key(route);
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
  if (before?.hash === hash && before.key === key && !job.rewrite?.has(route)) {
    outcome.unchanged++;
    return;
  }
  const started = performance.now();
  if (
    job.generation !== undefined &&
    !(await claimWrite(ctx.redis, ctx.queuePrefix, route, job.generation))
  ) {
    // A newer publish started or already wrote this route: older bytes must never replace it.
    outcome.refused = (outcome.refused ?? 0) + 1;
    job.log.warn({ route, generation: job.generation }, "write refused: a newer publish owns this route");
    return;
  }
  await ctx.store.put(key, result.html, {
    contentType: result.contentType,
    cacheControl: CACHE_CONTROL.html,
    contentHash: hash,
  });
  addTime(job, "write", started);
  outcome.changed++;
}

/**
 * A child job of a large fan-out: the entries of the routes it wrote go to Redis for the publish's
 * commit (fan-out-entries.ts), its answer says which of its routes it did not write. With the process's render threads (`ctx.threads`), as the full
 * build renders: the batch's documents in one request per 100, the shared documents (the frame's and
 * `website.shared`) once per ref for the whole fan-out, rendered from memory on a render thread while the main thread fetches and writes
 * other batches, the writes claimed in one round trip. Listings (rare: the last batch) and a process
 * without render threads read through the content source (`fetchBatchContent`: a request or two).
 */
export async function renderBatchJob(
  ctx: PublishContext,
  ref: string,
  routes: readonly string[],
  overlay: ReadonlyMap<string, IndexedDocument | null>,
  generation: number | undefined,
): Promise<BatchOutcome> {
  if (generation === undefined || !(await isCurrent(ctx.redis, ctx.queuePrefix, generation))) {
    // An orphan of a superseded publish (its worker was killed; a newer publish has started since):
    // its routes are the newer publish's to write.
    ctx.logger.warn(
      { ref, generation, routes: routes.length },
      "dropping a child job of a superseded publish",
    );
    return { ...emptyOutcome(), unwritten: [...routes], superseded: true };
  }
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  const onThreads = ctx.threads ? routes.filter((r) => !website.routes.isListing(r)) : [];
  const onThread = new Set(onThreads);
  const onSource = routes.filter((r) => !onThread.has(r));
  const [previous, rewrite] = await Promise.all([
    index.routes(routes),
    unsettledAmong(ctx, routes, onSource.length > 0),
  ]);
  const log = ctx.logger.child({ ref, generation });
  const threaded = ctx.threads
    ? await renderOnThreads(ctx, ctx.threads, { ref, routes: onThreads, previous, log, generation, rewrite })
    : emptyOutcome();
  const rest =
    onSource.length === 0
      ? emptyOutcome()
      : await renderRoutes(ctx, {
          ref,
          routes: onSource,
          source: await batchSource(ctx, ref, onSource, previous),
          overlay,
          previous,
          index,
          log,
          generation,
          rewrite,
        });
  // The entries stay in Redis for the publish's commit; it learns which routes were written.
  const written = [...threaded.written, ...rest.written];
  await stageEntries(ctx.redis, ctx.queuePrefix, generation, written);
  const writtenRoutes = new Set(written.map(([route]) => route));
  const batch = new Set(routes);
  return {
    written: [],
    unwritten: routes.filter((route) => !writtenRoutes.has(route)),
    also: [...writtenRoutes].filter((route) => !batch.has(route)),
    gone: [...threaded.gone, ...rest.gone],
    rendered: threaded.rendered + rest.rendered,
    changed: threaded.changed + rest.changed,
    unchanged: threaded.unchanged + rest.unchanged,
    refused: (threaded.refused ?? 0) + (rest.refused ?? 0),
    failed: [...(threaded.failed ?? []), ...(rest.failed ?? [])],
  };
}

/**
 * The routes among `routes` left unsettled (generation.ts): written whatever `previous` says. Asked
 * for the batch's routes only: the set grows with every route the fan-out writes, and reading it
 * whole in each child job cost a fan-out of N routes N²/200 members read. A batch that renders
 * through the source (`whole`: listings, which may render routes beyond it: the sitemap's new parts)
 * reads the whole set.
 */
async function unsettledAmong(
  ctx: PublishContext,
  routes: readonly string[],
  whole: boolean,
): Promise<Set<string>> {
  const key = redisKeys(ctx.queuePrefix).unsettledRoutes;
  if (whole) return new Set(await ctx.redis.smembers(key));
  if (routes.length === 0) return new Set();
  const answers = await ctx.redis.smismember(key, ...routes);
  return new Set(routes.filter((_, i) => answers[i] === 1));
}

/** What the routes of a batch not rendered on threads read: their documents fetched, then the content API. */
async function batchSource(
  ctx: PublishContext,
  ref: string,
  routes: readonly string[],
  previous: ReadonlyMap<string, IndexedRoute>,
): Promise<ContentSource> {
  const { documents, gone } = await fetchBatchContent(ctx, ref, routes, previous);
  return layeredSource(documents, gone, createClientSource(ctx.client, ref));
}

/** A batch outcome with nothing rendered yet. */
function emptyOutcome(): BatchOutcome {
  return { written: [], gone: [], rendered: 0, changed: 0, unchanged: 0 };
}

/** Writes in flight per batch (the full build's figure). */
const WRITES_IN_FLIGHT = 16;

/** The routes of one batch that show a document (no listings), rendered on a render thread from memory. */
async function renderOnThreads(
  ctx: PublishContext,
  threads: ThreadedRendering,
  job: {
    ref: string;
    routes: readonly string[];
    previous: ReadonlyMap<string, IndexedRoute>;
    log: Logger;
    generation: number;
    /** Routes written whatever `previous` says (unsettled, generation.ts). */
    rewrite: ReadonlySet<string>;
  },
): Promise<BatchOutcome> {
  const outcome = emptyOutcome();
  if (job.routes.length === 0) return outcome;
  const [pool, shared, answers] = await Promise.all([
    threads.pool(),
    threads.sharedDocuments(job.ref),
    threads.pageAnswers(job.ref, documentsByUid(job.routes)),
  ]);
  await storeThreaded(ctx, job, outcome, await pool.render(shared, job.routes, answers));
  return outcome;
}

/**
 * What a render thread answered, recorded in `outcome`: failures logged, each route's entry, and the
 * bytes that changed (or that storage may not hold: `rewrite`) written once their writes are claimed
 * for the job's generation, in one round trip.
 */
async function storeThreaded(
  ctx: PublishContext,
  job: {
    log: Logger;
    previous: ReadonlyMap<string, IndexedRoute>;
    generation?: number | undefined;
    rewrite?: ReadonlySet<string> | undefined;
  },
  outcome: BatchOutcome,
  { rendered, failed }: BatchResult,
): Promise<void> {
  for (const failure of failed) {
    job.log.error(
      { route: failure.route, documentId: failure.documentId, err: failure.error },
      "render failed: the route keeps its last good page",
    );
  }
  if (failed.length > 0) outcome.failed = [...(outcome.failed ?? []), ...failed];
  const changed: typeof rendered = [];
  for (const result of rendered) {
    observeRenderMs("worker", result.renderMs);
    outcome.rendered++;
    if (result.status === 404 && result.route !== website.routes.notFound) {
      outcome.gone.push(result.route); // its document is gone though no webhook said so
      continue;
    }
    outcome.written.push([
      result.route,
      {
        key: result.key,
        hash: result.hash,
        status: result.status,
        dependencies: result.dependencies,
        ...(result.documentId ? { documentId: result.documentId } : {}),
      },
    ]);
    const before = job.previous.get(result.route);
    if (before?.hash === result.hash && before.key === result.key && !job.rewrite?.has(result.route))
      outcome.unchanged++;
    else changed.push(result);
  }
  // A newer publish started or already wrote a route: older bytes must never replace it.
  const granted =
    job.generation === undefined
      ? new Set(changed.map((result) => result.route))
      : await claimWrites(
          ctx.redis,
          ctx.queuePrefix,
          changed.map((result) => result.route),
          job.generation,
        );
  const refused = changed.length - granted.size;
  if (refused > 0) {
    outcome.refused = (outcome.refused ?? 0) + refused;
    job.log.warn(
      { refused, generation: job.generation },
      "writes refused: a newer publish owns these routes",
    );
  }
  await mapLimit(
    changed.filter((result) => granted.has(result.route)),
    WRITES_IN_FLIGHT,
    async (result) => {
      await ctx.store.put(result.key, asBuffer(result.body), {
        contentType: result.contentType,
        cacheControl: CACHE_CONTROL.html,
        contentHash: result.hash,
      });
      outcome.changed++;
    },
  );
}

/** The id of the document this publish changed whose route is `route`, if any. */
function documentOf(route: string, overlay: ReadonlyMap<string, IndexedDocument | null>): string | undefined {
  for (const [id, doc] of overlay) if (doc?.route === route) return id;
  return undefined;
}
