import { type Client, filter, type PrismicDocument } from "@prismicio/client";
import type { Logger } from "#logger";
import {
  type BuildManifest,
  CACHE_CONTROL,
  MANIFEST_KEY,
  MANIFEST_VERSION,
  type ManifestRoute,
  parseManifest,
  serializeManifest,
} from "#manifest/manifest.ts";
import { type SiteStore, sha256 } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import { createJavaScriptMeter, type JavaScriptReport } from "#web/js-budget.ts";
import { noindexOf } from "#web/lib/page-seo.ts";
import {
  ERROR_PAGE_ROUTES,
  keyForRoute,
  PRICE_LIST_INDEX_ROUTE,
  ROBOTS_ROUTE,
  routeForDocument,
  routeProblem,
  SITEMAP_ROUTE,
} from "#web/routes.ts";
import { buildRedirects, redirectHashes } from "../publish/redirects-stage.ts";
import { forEachPage, readSharedDocuments } from "./list-documents.ts";
import { mapLimit } from "./map-limit.ts";
import { createProgress, type Progress } from "./progress.ts";
import type { BatchResult, FailedRender, SharedContent } from "./render-batch.ts";
import { createRenderPool } from "./render-pool.ts";

export interface BuildOptions {
  /** The content client (`createContentClient`): its `fetchMasterRef` bypasses every cache. */
  client: Client & { fetchMasterRef(): Promise<string> };
  store: SiteStore;
  siteUrl: string;
  logger: Logger;
  /** The ref to build at; the current master ref when absent. */
  ref?: string;
  /** Render threads beside the main thread; 0 renders on the main thread. Default: cores − 1. */
  renderThreads?: number;
  /** Show a progress bar (on a terminal) or progress log lines. */
  progress?: boolean;
  /**
   * Compare with the hashes storage reports for each object (one metadata read per object on a
   * folder) instead of trusting the previous manifest's. Always done when there is no manifest.
   */
  verify?: boolean;
  /**
   * What storage holds, key → sha256 of the bytes actually stored (read and hashed by the caller:
   * `pressroom verify`). Trusted over every recorded hash, so an object changed behind the build's
   * back is found and rewritten even where its metadata still claims the old hash.
   */
  storedHashes?: ReadonlyMap<string, string>;
  /** URLs per sitemap file before `/sitemap.xml` becomes an index (default 50,000, the protocol's; tests lower it). */
  sitemapUrlLimit?: number;
}

export interface BuildSummary {
  ref: string;
  routes: number;
  rendered: number;
  written: number;
  unchanged: number;
  deleted: number;
  durationMs: number;
  pagesPerSecond: number;
  renderThreads: number;
  /** The JavaScript budget: what the heaviest pages load (gzip). */
  javascript: JavaScriptReport;
  /**
   * Routes whose render threw: each kept its stored page (and its previous manifest entry), the
   * rest of the site was built. `pressroom build` exits non-zero when there is one.
   */
  failed: FailedRender[];
}

/** Routes that list other documents: rendered last, from every document's route and dates. */
const LISTING_ROUTES = [PRICE_LIST_INDEX_ROUTE, SITEMAP_ROUTE, ROBOTS_ROUTE, ...ERROR_PAGE_ROUTES];
const UPLOADS_IN_FLIGHT = 16;

/**
 * Renders every route at one ref and makes storage hold exactly that site.
 * Pages stream through: a batch of 100 is fetched, rendered on a render
 * thread, and uploaded while the next ones are fetched, so memory stays
 * bounded whatever the repository's size. Only objects whose bytes changed
 * are written; objects no route produces are deleted once every route is
 * written; the manifest is written last, so it only ever describes a complete
 * site. A route whose render throws (its content or the template) keeps its
 * stored object and its previous manifest entry, is reported in the summary's
 * `failed`, and the build goes on; any other error (content API, storage, a
 * render thread that dies) stops the build before anything is deleted.
 */
export async function fullBuild(options: BuildOptions): Promise<BuildSummary> {
  return (await buildSite(options)).summary;
}

/** A route as built: what the manifest stores, plus what it depends on (kept by the worker's index). */
export interface BuiltRoute extends ManifestRoute {
  dependencies: string[];
}

export interface BuiltManifest extends BuildManifest {
  routes: Record<string, BuiltRoute>;
}

export interface BuildOutcome {
  summary: BuildSummary;
  /** What was written last to `.pressroom/manifest.json`, with each route's dependencies. */
  manifest: BuiltManifest;
  /** Every document at the ref, without its data: what the dependency index keeps of them. */
  documents: PrismicDocument[];
  /** `documentHash` of each document (with its data), by id. */
  hashes: Map<string, string>;
}

/** The document types a build reads: everything else in the repository is not the site's. */
export const SITE_TYPES = ["settings", "price_list", "page"] as const;

/**
 * A short hash of what a document's own publications set: its data, uid, tags and dates. Left out
 * is what reflects other documents or the ref: `href` (names the ref), `alternate_languages`, and
 * in each link to a document everything but its id (the API copies the target's uid, dates and tags
 * into the link, so publishing the target would change every document linking to it). About 20–40 µs
 * a document; reconcile compares it with the index's to find publications no webhook announced.
 */
export function documentHash(doc: PrismicDocument): string {
  const { href: _href, alternate_languages: _alternates, ...own } = doc;
  return sha256(JSON.stringify(own, (_key, value) => (isDocumentLink(value) ? value.id : value))).slice(
    0,
    24,
  );
}

function isDocumentLink(value: unknown): value is { id: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { link_type?: unknown }).link_type === "Document" &&
    typeof (value as { id?: unknown }).id === "string"
  );
}

/** fullBuild, also handing back the manifest and the documents (the worker rebuilds its index from them). */
export async function buildSite(options: BuildOptions): Promise<BuildOutcome> {
  const { client, store, logger } = options;
  const started = performance.now();
  // Never the client's cached repository (kept for seconds): a build must see the newest ref.
  const ref = options.ref ?? (await client.fetchMasterRef());
  const log = logger.child({ ref });

  const [previous, built, [settings, ...priceLists]] = await Promise.all([
    store.get(MANIFEST_KEY).then((object) => parseManifest(object?.body)),
    buildSiteAssets(),
    readSharedDocuments(client, ref),
  ]);
  if (!settings) throw new Error(`no settings document at ref ${ref}`);
  // What storage holds decides what must be written: which keys exist, and each one's hash, from
  // the previous manifest (cheap) or, when verifying or without one, from storage itself. Where
  // storage reports no hash (S3 listings), the manifest's stands in.
  const previousHashes = new Map<string, string>(Object.entries(previous?.assets ?? {}));
  for (const route of Object.values(previous?.routes ?? {})) previousHashes.set(route.key, route.hash);
  for (const [key, hash] of redirectHashes(previous?.redirects)) previousHashes.set(key, hash); // redirects
  const existing: ReadonlyMap<string, string | undefined> =
    options.storedHashes ??
    (previous && !options.verify ? await storedKeys(store) : await storedHashes(store));
  const isStored = (key: string, hash: string) =>
    existing.has(key) &&
    (options.storedHashes ? existing.get(key) : (existing.get(key) ?? previousHashes.get(key))) === hash;

  const manifest: BuiltManifest = {
    version: MANIFEST_VERSION,
    ref,
    builtAt: new Date().toISOString(),
    routes: {},
    assets: {},
  };
  const counts = { rendered: 0, written: 0, unchanged: 0, deleted: 0 };
  const javascript = createJavaScriptMeter(built.assets.browser);
  const write = async (
    key: string,
    body: string | Buffer,
    hash: string,
    contentType: string,
    cacheControl: string,
  ) => {
    if (isStored(key, hash)) {
      counts.unchanged++;
      return;
    }
    await store.put(key, body, { contentType, cacheControl, contentHash: hash });
    counts.written++;
  };
  const failed: FailedRender[] = [];
  const commit = async ({ rendered, failed: failedHere }: BatchResult, progress?: Progress) => {
    for (const failure of failedHere) {
      // Its last good page stays: not written, not an orphan, listed as before (if it was).
      failed.push(failure);
      const before = previous?.routes[failure.route];
      // What it depends on is not known without a render: at least its own document (the diff
      // build adds what the dependency index still knew), so it is rendered when that changes.
      const dependencies = failure.documentId ? [`doc:${failure.documentId}`] : [];
      if (before) manifest.routes[failure.route] = { ...before, dependencies };
      log.error(
        { route: failure.route, documentId: failure.documentId, err: failure.error },
        "render failed: the route keeps its last good page",
      );
      progress?.tick();
    }
    await mapLimit(rendered, UPLOADS_IN_FLIGHT, async (result) => {
      const { route, body, contentType, parts: _parts, renderMs: _renderMs, islands, ...entry } = result;
      manifest.routes[route] = entry;
      counts.rendered++;
      if (islands) javascript.add(route, islands);
      await write(result.key, asBuffer(body), result.hash, contentType, CACHE_CONTROL.html);
      progress?.tick();
    });
  };

  // Assets first: pages refer to them by their hashed names.
  for (const file of built.files) {
    const hash = sha256(file.body);
    manifest.assets[file.key] = hash;
    await write(file.key, file.body, hash, file.contentType, CACHE_CONTROL.immutable);
  }

  const shared: SharedContent = {
    siteUrl: options.siteUrl,
    assets: built.assets,
    documents: [settings, ...priceLists],
    ...(options.sitemapUrlLimit ? { sitemapUrlLimit: options.sitemapUrlLimit } : {}),
  };
  const pool = await createRenderPool(shared, log, options.renderThreads);
  // Listings need every page's route and dates, not its content.
  const pageStubs: PrismicDocument[] = [];
  const hashes = new Map([settings, ...priceLists].map((doc) => [doc.id, documentHash(doc)]));
  try {
    // Price lists before the pages that embed and link them.
    await commit(await pool.render([], routesOf(priceLists, log)));
    const progress = options.progress ? createProgress("rendering pages", log) : undefined;
    await forEachPage(
      client,
      ref,
      [filter.at("document.type", "page")],
      pool.threads + 1,
      async (pages) => {
        for (const page of pages) {
          pageStubs.push(stub(page));
          hashes.set(page.id, documentHash(page));
        }
        await commit(await pool.render(pages, routesOf(pages, log)), progress);
      },
      (total) => progress?.setTotal(total),
    );
    progress?.done();
    const listings = await pool.render(pageStubs, LISTING_ROUTES);
    await commit(listings);
    // A sitemap above the URL limit is an index: its parts; a part no longer needed is an orphan below.
    const parts = listings.rendered.flatMap((result) => result.parts ?? []);
    if (parts.length > 0) await commit(await pool.render(pageStubs, parts));
  } finally {
    await pool.close();
  }

  // redirects (issue 13 §2): the stored history replayed against every document's route now.
  const redirects = await buildRedirects(
    store,
    [settings, ...priceLists, ...pageStubs].map((doc) => ({ id: doc.id, route: routeForDocument(doc) })),
    (route) => Object.hasOwn(manifest.routes, route),
    isStored,
  );
  if (Object.keys(redirects.locations).length > 0) manifest.redirects = redirects.locations;
  counts.written += redirects.written;

  // Only now that every route is written: remove what no route produces any more.
  const keep = new Set([
    ...Object.values(manifest.routes).map((r) => r.key),
    ...failed.map((f) => keyForRoute(f.route)), // stored without a manifest entry: still its last page
    ...Object.keys(manifest.assets),
    ...redirects.keys,
  ]);
  const orphans = [...existing.keys()].filter((key) => !keep.has(key));
  await mapLimit(orphans, UPLOADS_IN_FLIGHT, async (key) => {
    await store.delete(key);
    counts.deleted++;
  });

  const body = serializeManifest(manifest);
  await store.put(MANIFEST_KEY, body, {
    contentType: "application/json",
    cacheControl: CACHE_CONTROL.metadata,
    contentHash: sha256(body),
  });

  const durationMs = Math.round(performance.now() - started);
  const summary: BuildSummary = {
    ref,
    routes: Object.keys(manifest.routes).length,
    ...counts,
    durationMs,
    pagesPerSecond: Math.round((counts.rendered / Math.max(1, durationMs)) * 1000),
    renderThreads: pool.threads,
    javascript: javascript.report(),
    failed,
  };
  const { ref: _ref, ...figures } = summary; // the child logger carries the ref already
  const { failed: _failed, ...counted } = figures;
  log.info({ ...counted, failed: failed.length }, "build finished");
  for (const line of summary.javascript.overBudget) log.warn(line);
  return { summary, manifest, documents: [stub(settings), ...priceLists.map(stub), ...pageStubs], hashes };
}

/** Every key of the site in storage (the `.pressroom/` metadata aside), hashes left to the manifest. */
async function storedKeys(store: SiteStore): Promise<Map<string, string | undefined>> {
  const keys = new Map<string, string | undefined>();
  for await (const key of store.keys()) if (!key.startsWith(".pressroom/")) keys.set(key, undefined);
  return keys;
}

/** Every object of the site in storage (the `.pressroom/` metadata aside) → its content hash when known. */
async function storedHashes(store: SiteStore): Promise<Map<string, string | undefined>> {
  const hashes = new Map<string, string | undefined>();
  for await (const object of store.list()) {
    if (!object.key.startsWith(".pressroom/")) hashes.set(object.key, object.contentHash);
  }
  return hashes;
}

/** The routes of routable documents; a uid that cannot be a route is refused, loudly, never written. */
function routesOf(documents: readonly PrismicDocument[], logger: Logger): string[] {
  const routes: string[] = [];
  for (const doc of documents) {
    const route = routeForDocument(doc);
    if (route === null)
      logger.error(
        { documentId: doc.id, type: doc.type, uid: doc.uid },
        `${doc.type} ${doc.id} gets no page: ${routeProblem(doc) ?? "it has no route"} (see pressroom status)`,
      );
    else routes.push(route);
  }
  return routes;
}

/** The bytes a render thread handed over, as a Buffer over the same memory (no copy). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * What listings read of a document: its identity, route and dates, and whether the sitemap lists
 * it (a page's `noindex`), without its content.
 */
export function stub(doc: PrismicDocument): PrismicDocument {
  const data = noindexOf(doc) ? { noindex: true } : {};
  return { ...doc, data, alternate_languages: [], linked_documents: [] };
}
