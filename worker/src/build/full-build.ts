import { filter, type PrismicDocument } from "@prismicio/client";
import type { ContentClient } from "#content/content-client.ts";
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
import { REDIRECT_TYPE, redirectRuleOf } from "#web/redirects/redirect-rules.ts";
import {
  ERROR_PAGE_ROUTES,
  keyForRoute,
  PRICE_LIST_INDEX_ROUTE,
  ROBOTS_ROUTE,
  routeForDocument,
  routeProblem,
  SITEMAP_ROUTE,
} from "#web/routes.ts";
import { reportContentNotices, reportNotices } from "../content-notices.ts";
import { dependencyPool } from "../publish/dependency-pool.ts";
import { routesOfKeys } from "../publish/purge-plan.ts";
import { reportRedirectNotices } from "../publish/redirect-notices.ts";
import { keyOrUndefined, setServed } from "../publish/redirect-objects.ts";
import { buildRedirects, previousRoutes, redirectHashes } from "../publish/redirects-stage.ts";
import { documentHash, stub } from "./document-hash.ts";
import { forEachPageAnswer, listDocuments, readSharedDocuments } from "./list-documents.ts";
import { mapLimit } from "./map-limit.ts";
import { type PageInputsFile, readPageInputs, shortHash, writePageInputs } from "./page-inputs.ts";
import { createProgress, type Progress } from "./progress.ts";
import type { BatchResult, FailedRender, SharedContent } from "./render-batch.ts";
import { renderCode, siteParts } from "./render-code.ts";
import { type RenderPool, startRenderPool } from "./render-pool.ts";
import { type BundleModules, renderThreadBundle, renderThreadModules } from "./render-thread-bundle.ts";

export interface BuildOptions {
  /** The content client (`createContentClient`): its `fetchMasterRef` bypasses every cache. */
  client: ContentClient;
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
  /**
   * Keys written since the manifest was (a publish that failed after writing, in the worker:
   * publish/generation.ts): what they hold is not what the manifest says, so each is written again.
   */
  unsettledKeys?: ReadonlySet<string>;
  /** URLs per sitemap file before `/sitemap.xml` becomes an index (default 50,000, the protocol's; tests lower it). */
  sitemapUrlLimit?: number;
  /**
   * The build's generation, in the worker (publish/generation.ts `buildGuard`): each route's write is
   * claimed first and skipped when refused (a newer publish started or wrote it), and redirects,
   * orphans and the manifest are written only while the build is still the newest (it throws
   * SupersededError otherwise). A worker paused mid-build that resumes after another took over so
   * writes nothing stale. `pressroom build` runs without one.
   */
  guard?: {
    claim(routes: readonly string[]): Promise<ReadonlySet<string>>;
    ensureCurrent(): Promise<void>;
  };
  /**
   * Keep a stored page without rendering it when what it is rendered from is unchanged since the
   * build that rendered it (render-inputs.ts). `true`: routes come back without their dependencies
   * (`fullBuild`, which hands back only the summary); a map (route → what the worker's index
   * recorded of it): only routes whose indexed render is the one the page inputs describe (the same
   * `inputs`) are reused, with the dependencies that render recorded. Default: `true` for
   * `fullBuild`, off for `buildSite`.
   */
  reuse?: boolean | ReadonlyMap<string, KnownRoute>;
  /**
   * After a deploy that changed only some slices' code (diff-build.ts): the earlier code's
   * `renderCode` and those slice types. A page showing none of them is reused when its inputs under
   * the earlier code are unchanged (only with `reuse`).
   */
  earlier?: { code: string; unless: readonly string[] };
}

export interface BuildSummary {
  ref: string;
  routes: number;
  rendered: number;
  /** Pages kept as stored, not rendered: their content and the code are as when they were rendered. */
  reused: number;
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
  return (await buildSite({ ...options, reuse: options.reuse ?? true })).summary;
}

/** A route as built: what the manifest stores, plus what it depends on (kept by the worker's index). */
export interface BuiltRoute extends ManifestRoute {
  dependencies: string[];
  /**
   * What a build rendered it from (render-inputs.ts), when a build rendered it: a later build may
   * reuse the page with these dependencies only if its page inputs are these (a publish's render,
   * or another build's, recorded other dependencies).
   */
  inputs?: string;
}

/** What a diff build knows of a route from the index: the dependencies and inputs of its last render. */
export interface KnownRoute {
  dependencies: readonly string[];
  inputs?: string | undefined;
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
  /** Routes whose stored object the build wrote or deleted, assets aside: what the edge purges. */
  changedRoutes: string[];
  /** The site's version the build rendered with (render-code.ts `siteVersion`), its frame and modules. */
  site: { version: string; frame: string; modules: BundleModules };
}

/** The document types a build reads: everything else in the repository is not the site's. */
export const SITE_TYPES = ["settings", "price_list", "page", "redirect"] as const;

/** fullBuild, also handing back the manifest and the documents (the worker rebuilds its index from them). */
export async function buildSite(options: BuildOptions): Promise<BuildOutcome> {
  // The render threads load their code (200-250 ms each) while the build reads what they render from.
  const starting = startRenderPool(options.logger, options.renderThreads);
  let begun = false;
  try {
    return await build(options, (shared) => {
      begun = true;
      return starting.begin(shared);
    });
  } finally {
    if (!begun) await starting.abandon();
  }
}

async function build(
  options: BuildOptions,
  beginRenderPool: (shared: SharedContent) => Promise<RenderPool>,
): Promise<BuildOutcome> {
  const { client, store, logger } = options;
  const started = performance.now();
  // Never the client's cached repository (kept for seconds): a build must see the newest ref.
  const ref = options.ref ?? (await client.fetchMasterRef());
  const log = logger.child({ ref });

  const [previous, previousInputs, built, [settings, ...priceLists], redirectDocs] = await Promise.all([
    store.get(MANIFEST_KEY).then((object) => parseManifest(object?.body)),
    options.reuse ? readPageInputs(store) : ({} as PageInputsFile),
    buildSiteAssets(),
    readSharedDocuments(client, ref),
    // Editors' redirects: no page shows them; the redirects stage below resolves them.
    listDocuments(client, ref, [filter.at("document.type", REDIRECT_TYPE)]),
  ]);
  if (!settings) throw new Error(`no settings document at ref ${ref}`);
  reportContentNotices([settings], log);
  // What storage holds decides what must be written: which keys exist, and each one's hash, from
  // the previous manifest (cheap) or, when verifying or without one, from storage itself. Where
  // storage reports no hash (S3 listings), the manifest's stands in.
  const previousHashes = new Map<string, string>(Object.entries(previous?.assets ?? {}));
  for (const route of Object.values(previous?.routes ?? {})) previousHashes.set(route.key, route.hash);
  for (const [key, hash] of redirectHashes(previous)) previousHashes.set(key, hash); // redirects
  const existing: ReadonlyMap<string, string | undefined> =
    options.storedHashes ??
    (previous && !options.verify ? await storedKeys(store) : await storedHashes(store));
  const isStored = (key: string, hash: string) =>
    !options.unsettledKeys?.has(key) &&
    existing.has(key) &&
    (options.storedHashes ? existing.get(key) : (existing.get(key) ?? previousHashes.get(key))) === hash;

  const manifest: BuiltManifest = {
    version: MANIFEST_VERSION,
    ref,
    builtAt: new Date().toISOString(),
    routes: {},
    assets: {},
  };
  const counts = { rendered: 0, reused: 0, written: 0, unchanged: 0, deleted: 0 };
  const changedKeys = new Set<string>();
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
    changedKeys.add(key);
  };
  const failed: FailedRender[] = [];
  const reuse = options.reuse ?? false;
  // What this build rendered each page from, or kept (page-inputs.ts): written before the manifest.
  const pageInputs: PageInputsFile = {};
  // Each page's dependencies come from a render thread as strings of their own: the manifest keeps
  // one copy of each (every page names the navigation's targets and settings).
  const pooled = dependencyPool();
  const commit = async (
    { rendered, failed: failedHere, reused = [], renewed = {} }: BatchResult,
    progress?: Progress,
  ) => {
    for (const route of reused) {
      // Offered to the render threads only when stored as the previous manifest says (below).
      const before = previous?.routes[route] as ManifestRoute;
      const dependencies = reuse instanceof Map ? [...(reuse.get(route)?.dependencies ?? [])] : [];
      // Kept under the earlier code: recorded with its inputs under this code, for the next build.
      const last = previousInputs[route] as PageInputsFile[string];
      const kept = renewed[route] ? { ...last, inputs: renewed[route] } : last;
      manifest.routes[route] = { ...before, dependencies, inputs: kept.inputs };
      pageInputs[route] = kept;
      if (kept.islands) javascript.add(route, kept.islands);
      counts.reused++;
      counts.unchanged++;
      progress?.tick();
    }
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
    // One round trip per batch: a route refused is one a newer publish owns (this build is superseded).
    const granted = options.guard ? await options.guard.claim(rendered.map((r) => r.route)) : undefined;
    await mapLimit(rendered, UPLOADS_IN_FLIGHT, async (result) => {
      const {
        route,
        body,
        contentType,
        parts: _parts,
        renderMs: _renderMs,
        islands,
        inputs,
        ...entry
      } = result;
      manifest.routes[route] = { ...pooled(entry), ...(inputs ? { inputs } : {}) };
      if (inputs)
        pageInputs[route] = { hash: shortHash(result.hash), inputs, ...(islands ? { islands } : {}) };
      counts.rendered++;
      if (islands) javascript.add(route, islands);
      if (!granted || granted.has(route))
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

  // A page may be kept when the bytes the last build rendered from its inputs are still the
  // route's (no publish rewrote it since) and stored as the manifest says, and its inputs are
  // unchanged (render-inputs.ts); with the index's routes, only when the index recorded the render
  // those page inputs describe (its dependencies are that render's).
  const reusable: Record<string, string> = {};
  if (reuse !== false)
    for (const [route, entry] of Object.entries(previous?.routes ?? {})) {
      const last = previousInputs[route];
      if (
        last?.hash === shortHash(entry.hash) &&
        isStored(entry.key, entry.hash) &&
        (reuse === true || reuse.get(route)?.inputs === last.inputs)
      )
        reusable[route] = last.inputs;
    }
  const siteCode = {
    bundle: await renderThreadBundle(),
    assets: built.assets,
    siteUrl: options.siteUrl,
    ...(options.sitemapUrlLimit ? { sitemapUrlLimit: options.sitemapUrlLimit } : {}),
  };
  const [parts, code, modules] = await Promise.all([
    siteParts(siteCode),
    renderCode(siteCode),
    renderThreadModules(),
  ]);
  const site = parts.version;
  manifest.site = site;
  const shared: SharedContent = {
    siteUrl: options.siteUrl,
    assets: built.assets,
    documents: [settings, ...priceLists],
    ...(options.sitemapUrlLimit ? { sitemapUrlLimit: options.sitemapUrlLimit } : {}),
    inputs: {
      code,
      previous: reusable,
      ...(options.earlier && reuse instanceof Map ? { earlier: options.earlier } : {}),
    },
  };
  const pool = await beginRenderPool(shared);
  // Listings need every page's route and dates, not its content.
  const pageStubs: PrismicDocument[] = [];
  const hashes = new Map(
    [settings, ...priceLists, ...redirectDocs].map((doc) => [doc.id, documentHash(doc)]),
  );
  try {
    // Price lists before the pages that embed and link them.
    await commit(await pool.render([], routesOf(priceLists, log)));
    const progress = options.progress ? createProgress("building pages", log) : undefined;
    // Each page of 100 goes to a render thread as the API's bytes: it parses them, renders every
    // document's route and answers what the build keeps of each (stub, hash, refused uid).
    const listed = await forEachPageAnswer(
      client,
      ref,
      [filter.at("document.type", "page")],
      pool.threads + 1,
      async (answer) => {
        const result = await pool.renderOwn([answer]);
        for (const { stub: page, hash, refused, notices } of result.listed ?? []) {
          pageStubs.push(page);
          hashes.set(page.id, hash);
          // What editors should fix (content-notices.ts), said once per build, as for every document.
          if (notices) reportNotices(notices, log);
          if (refused) logRefused(page, refused, log);
        }
        await commit(result, progress);
      },
      (total) => progress?.setTotal(total),
    );
    if (pageStubs.length !== listed) {
      // Content at a ref never changes, so a mismatch means a broken API answer, not a race.
      throw new Error(`Listed ${pageStubs.length} pages at ref ${ref}, but the API counts ${listed}`);
    }
    progress?.done();
    const listings = await pool.render(pageStubs, LISTING_ROUTES);
    await commit(listings);
    // A sitemap above the URL limit is an index: its parts; a part no longer needed is an orphan below.
    const parts = listings.rendered.flatMap((result) => result.parts ?? []);
    if (parts.length > 0) await commit(await pool.render(pageStubs, parts));
  } finally {
    await pool.close();
  }

  // Redirects: the stored history replayed against every route now, renames no publish saw (from the
  // previous manifest's routes, so an old URL answers 301), and the editors' redirects.
  await options.guard?.ensureCurrent();
  const before = previousRoutes(previous);
  const redirects = await buildRedirects(store, {
    siteUrl: options.siteUrl,
    documents: [settings, ...priceLists, ...pageStubs].map((doc) => ({
      id: doc.id,
      route: routeForDocument(doc),
      from: before.get(doc.id),
    })),
    rules: redirectDocs.map(redirectRuleOf),
    isPage: (route) => Object.hasOwn(manifest.routes, route),
    isStored: (key, hash) => {
      const stored = isStored(key, hash);
      if (!stored) changedKeys.add(key); // written by buildRedirects
      return stored;
    },
  });
  setServed(manifest, redirects.served);
  reportRedirectNotices(redirects.notices, log);
  counts.written += redirects.written;

  // Only now that every route is written: remove what no route produces any more.
  const keep = new Set([
    ...Object.values(manifest.routes).map((r) => r.key),
    ...failed.map((f) => keyForRoute(f.route)), // stored without a manifest entry: still its last page
    ...Object.keys(manifest.assets),
    ...redirects.keys,
  ]);
  const orphans = [...existing.keys()].filter((key) => !keep.has(key));
  await options.guard?.ensureCurrent();
  await mapLimit(orphans, UPLOADS_IN_FLIGHT, async (key) => {
    await store.delete(key);
    counts.deleted++;
    changedKeys.add(key);
  });

  await writePageInputs(store, pageInputs, site);
  const body = serializeManifest(manifest);
  await options.guard?.ensureCurrent();
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
  return {
    summary,
    manifest,
    // Redirect documents whole: the index keeps their rule (diff-build.ts, `indexed`).
    documents: [stub(settings), ...priceLists.map(stub), ...pageStubs, ...redirectDocs],
    hashes,
    changedRoutes: routesOfKeys(changedKeys, routesByKey([previous, manifest])),
    site: { ...parts, modules },
  };
}

/** Storage key → route, from manifests' routes and redirects (the later manifest wins). */
function routesByKey(manifests: readonly (BuildManifest | undefined)[]): Map<string, string> {
  const routes = new Map<string, string>();
  for (const manifest of manifests) {
    for (const [route, entry] of Object.entries(manifest?.routes ?? {})) routes.set(entry.key, route);
    for (const route of Object.keys(manifest?.redirects ?? {})) {
      const key = keyOrUndefined(route);
      if (key) routes.set(key, route);
    }
  }
  return routes;
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

/**
 * The routes of routable documents; a uid that cannot be a route is refused, loudly, never written.
 * What editors should fix in them (content-notices.ts) is said here too, once per build.
 */
function routesOf(documents: readonly PrismicDocument[], logger: Logger): string[] {
  reportContentNotices(documents, logger);
  const routes: string[] = [];
  for (const doc of documents) {
    const route = routeForDocument(doc);
    if (route === null) logRefused(doc, routeProblem(doc) ?? "it has no route", logger);
    else routes.push(route);
  }
  return routes;
}

function logRefused(doc: PrismicDocument, problem: string, logger: Logger): void {
  logger.error(
    { documentId: doc.id, type: doc.type, uid: doc.uid },
    `${doc.type} ${doc.id} gets no page: ${problem} (see pressroom status)`,
  );
}

/** The bytes a render thread handed over, as a Buffer over the same memory (no copy). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
