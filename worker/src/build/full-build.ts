import { filter, type PrismicDocument } from "@prismicio/client";
import type { ContentClient } from "#content/content-client.ts";
import type { SlotRange } from "#content/dependencies.ts";
import { lowerHeapGrowth } from "#heap-growth";
import { chunksOf } from "#jobs/chunks.ts";
import type { Logger } from "#logger";
import {
  type BuildManifest,
  CACHE_CONTROL,
  MANIFEST_VERSION,
  type ManifestRoute,
} from "#manifest/manifest.ts";
import { readManifest, writeManifest as writeStoredManifest } from "#manifest/manifest-store.ts";
import { type SiteStore, sha256 } from "#storage";
import { website } from "#website";
import type { BuiltAssets, JavaScriptMeter, JavaScriptReport } from "#website/contract.ts";
import { reportContentNotices, reportNotices } from "../content-notices.ts";
import { routesOfKeys } from "../publish/purge-plan.ts";
import { reportRedirectNotices } from "../publish/redirect-notices.ts";
import { keyOrUndefined, setServed } from "../publish/redirect-objects.ts";
import { buildRedirects, movedSince, redirectHashes } from "../publish/redirects-stage.ts";
import { documentHash, stub, stubOf } from "./document-hash.ts";
import { newestDate, olderThan, unchangedSince, versionOf } from "./document-records.ts";
import {
  forEachPageAnswer,
  forEachVersionPage,
  listDocuments,
  readSharedDocuments,
} from "./list-documents.ts";
import { ListedStubs } from "./listed-stubs.ts";
import { mapLimit } from "./map-limit.ts";
import {
  type BuildRecords,
  type DocumentRecord,
  EntryLog,
  NO_RECORDS,
  openPageInputs,
  type PageInputs,
  type PageInputsFile,
  parseEntry,
  type StoredRecords,
  shortHash,
  versionInRecord,
  writePageInputs,
} from "./page-inputs.ts";
import { createProgress, type Progress } from "./progress.ts";
import {
  type BatchResult,
  type FailedRender,
  type ListedDocument,
  renderBatch,
  type SharedContent,
} from "./render-batch.ts";
import { renderCode, siteParts } from "./render-code.ts";
import { sharedInputs } from "./render-inputs.ts";
import {
  defaultRenderThreads,
  inThreadPool,
  type RenderPool,
  type StartingRenderPool,
  startRenderPool,
} from "./render-pool.ts";
import { type BundleModules, renderThreadBundle, renderThreadModules } from "./render-thread-bundle.ts";
import { type KnownRoute, RouteEntries } from "./route-entries.ts";
import { SlottedStubs } from "./slotted-stubs.ts";

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
  /** Documents before the sitemap is divided into parts (default SITEMAP_PART_SIZE, 2,000; tests lower it). */
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
   * build that rendered it (render-inputs.ts). `true`: no route's dependencies are kept, rendered
   * or kept (`fullBuild` and `pressroom build` feed no index); a map (route → the inputs of its
   * render the worker's index recorded): only routes whose indexed render is the one the page
   * inputs describe (the same inputs) are reused, with the dependencies that render recorded
   * (`BuildOutcome.routes`). The build takes the map over: it keeps in it only the routes that may
   * be kept (what the pages' renders compare with) and empties it once every page is rendered or
   * kept, so that 100,000 routes' inputs are held once, and not to the build's end. Default: `true`
   * for `fullBuild`, off for `buildSite`.
   */
  reuse?: boolean | Map<string, string>;
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
  /**
   * Milliseconds by stage, in order: `read` (manifest, page inputs, storage's keys, shared documents,
   * redirects), `assets`, `prepare` (render code, reusable pages), `pages` (the shared types' and
   * every streamed document's), `listings` (with the sitemap's parts), `redirects`, `orphans`,
   * `manifest` (page inputs, then the manifest).
   */
  stages: Record<string, number>;
  pagesPerSecond: number;
  /** Render threads the build started: 0 when it rendered nothing (or rendered on its own thread). */
  renderThreads: number;
  /** The JavaScript budget: what the heaviest pages load (gzip). */
  javascript: JavaScriptReport;
  /**
   * Routes whose render threw: each kept its stored page (and its previous manifest entry), the
   * rest of the site was built. `pressroom build` exits non-zero when there is one.
   */
  failed: FailedRender[];
}

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

export interface BuildOutcome {
  summary: BuildSummary;
  /** What was written last to `.pressroom/manifest.json`. */
  manifest: BuildManifest;
  /**
   * Each route of the manifest with what its render read and was rendered from, for the worker's
   * index: read again a chunk at a time from the build's temporary file; none when the build feeds
   * no index. The caller closes it.
   */
  routes: BuiltRoutes;
  /**
   * Every document at the ref, without its data: what the dependency index keeps of them. Read
   * again a chunk at a time each time it is iterated; the caller closes it.
   */
  documents: BuiltDocuments;
  /** Routes whose stored object the build wrote or deleted, assets aside: what the edge purges. */
  changedRoutes: string[];
  /** The site's version the build rendered with (render-code.ts `siteVersion`), its frame and modules. */
  site: { version: string; frame: string; modules: BundleModules };
}

/**
 * A build's documents (stubs), each with its `documentHash` (made from the whole document; none for
 * a document kept from a record that has none of ours), held by the caller until it closes them:
 * the shared documents and the redirects in memory, every other one in the build's temporary file
 * (listed-stubs.ts) with its hash beside it, parsed a chunk at a time when iterated: never every
 * stub as an object at once, beside every route's entry (docs/benchmarks.md, the worker's diff
 * build at start).
 */
export interface BuiltDocuments extends Iterable<[doc: PrismicDocument, hash: string | undefined]> {
  close(): void;
}

const NO_DOCUMENTS: BuiltDocuments = { [Symbol.iterator]: () => [][Symbol.iterator](), close: () => {} };

/**
 * A build's routes for the worker's index (`BuildOutcome.routes`): each with its manifest entry and
 * what its render recorded (a page kept as stored: only its inputs, its dependencies being those
 * the index recorded). A route the build recorded twice comes twice.
 */
export interface BuiltRoutes extends Iterable<[route: string, entry: ManifestRoute, known: KnownRoute]> {
  close(): void;
}

const NO_ROUTES: BuiltRoutes = { [Symbol.iterator]: () => [][Symbol.iterator](), close: () => {} };

/** fullBuild, also handing back the manifest and the documents (the worker rebuilds its index from them). */
export async function buildSite(options: BuildOptions): Promise<BuildOutcome> {
  const threads = options.renderThreads ?? defaultRenderThreads();
  let starting: StartingRenderPool | undefined;
  let begun: Promise<RenderPool> | undefined;
  // Until render threads start, the heap grows by 10 % at most (heap-growth.ts): a rebuild that
  // renders nothing holds every route's records on this thread alone. The threads render with the
  // process's growth, which costs them less CPU.
  let raise: (() => void) | undefined = lowerHeapGrowth();
  const threadsStart = () => {
    raise?.();
    raise = undefined;
    starting ??= startRenderPool(options.logger, threads);
  };
  // The render threads load their code (200-250 ms and ~90 MB each) while the build reads what
  // they render from; a rebuild's only once it has a route to render or no previous build to keep
  // pages of (`build`), so a rebuild that finds nothing changed starts none.
  if ((options.reuse ?? false) === false) threadsStart();
  const start: PoolStart = {
    threadsStart,
    started: () => (starting ? threads : 0),
    pool: (shared) => {
      const ready = () => {
        threadsStart();
        begun ??= (starting as StartingRenderPool).begin(shared);
        return begun;
      };
      return {
        threads,
        render: async (documents, routes, answers) => (await ready()).render(documents, routes, answers),
        renderOwn: async (answers) => (await ready()).renderOwn(answers),
        here: inThreadPool(shared, options.logger),
        close: async () => {
          if (begun) await (await begun).close();
        },
      };
    },
  };
  try {
    return await build(options, start);
  } finally {
    raise?.();
    if (!begun) await starting?.abandon();
  }
}

/** How a build gets its render pool (`buildSite`): its threads start at `threadsStart` or at the first render. */
interface PoolStart {
  threadsStart(): void;
  /** How many render threads started: none when the build rendered nothing. */
  started(): number;
  pool(shared: SharedContent): BuildPool;
}

/** A build's render pool, and `here`: the same batches rendered on the build's own thread, starting no thread. */
interface BuildPool extends RenderPool {
  readonly here: RenderPool;
}

/**
 * A rebuild that finds this many documents changed or fewer renders them on its own thread: a render
 * thread would cost more to start (200-250 ms, ~90 MB, and the heap's usual growth on this thread)
 * than they take. Most of them are read again only to check what the API wrote into them (the
 * pages linking to an edited one), and are kept without a render.
 */
const RENDERED_HERE_AT_MOST = 1_000;

/** What a build reads before it renders: what storage holds and the content every render shares. */
interface BuildInputs {
  ref: string;
  log: Logger;
  previous: BuildManifest | undefined;
  /** The last build's page inputs file, its entries not yet read (`sharedContentOf` decides whether to). */
  stored: StoredRecords | undefined;
  /** Let go once every page is rendered or kept (`releasePrevious`): nothing reads it after. */
  previousInputs: PageInputsFile;
  /** What the last build knew of the documents and hashed its page inputs with (page-inputs.ts). */
  previousRecords: BuildRecords;
  built: BuiltAssets;
  /** The documents of the website's `frame` and `shared` types, as every render reads them. */
  shared: PrismicDocument[];
  /** Editors' redirects: no page shows them; the redirects step resolves them. */
  redirectDocs: PrismicDocument[];
  /** Every key of the site in storage → its hash, when storage (or the caller) said it. */
  existing: ReadonlyMap<string, string | undefined>;
  /** Whether storage holds these bytes at `key` already (a write would change nothing). */
  isStored(key: string, hash: string): boolean;
}

/** A build under way: its inputs and what it has written and counted so far. */
interface Build {
  options: BuildOptions;
  inputs: BuildInputs;
  log: Logger;
  manifest: BuildManifest;
  counts: { rendered: number; reused: number; written: number; unchanged: number; deleted: number };
  /** Each stage's milliseconds, as the summary gives them (`lap`), and when the last one ended. */
  stages: Record<string, number>;
  lapped: number;
  /** Keys written or deleted: what the edge purges (as routes). */
  changedKeys: Set<string>;
  javascript: JavaScriptMeter;
  failed: FailedRender[];
  /** What this build rendered each page from, or kept (page-inputs.ts): written before the manifest. */
  pageInputs: EntryLog;
  /** What this build knows of each document at its ref: written with the page inputs. */
  records: EntryLog;
  /** Its temporary files (spill-file.ts) and the heap's growth, let go when it ends (`closeAtEnd`). */
  atEnd: { close(): void }[];
  /** The newest publication date among `records` (document-records.ts `newestDate`). */
  newest?: string;
  /** The code and shared documents this build's page inputs are hashed with, once known. */
  hashedWith?: { code: string; shared: string };
  /**
   * Route → the inputs its stored page was rendered from, for each page that may be kept: the
   * caller's map when it gave one (`reuse`), emptied when it is let go (`releasePrevious`).
   */
  reusable: Map<string, string>;
  /**
   * Each route's dependencies and inputs, when the build feeds an index (`feedsIndex`): in a
   * temporary file until the caller writes the index, not beside the manifest's entries.
   */
  known: RouteEntries | undefined;
}

/**
 * Whether the caller rebuilds a dependency index from the outcome (the worker's diff build): only
 * then does it get every route's dependencies, every document and its hash back. `reuse: true`
 * feeds none (fullBuild, `pressroom build`), and a 100,000-page build would hold them to no end.
 */
const feedsIndex = (options: BuildOptions) => options.reuse !== true;

async function build(options: BuildOptions, start: PoolStart): Promise<BuildOutcome> {
  const started = performance.now();
  const inputs = await readInputs(options);
  const current = startBuild(options, inputs, started);
  try {
    return await buildAll(current, start, started);
  } finally {
    for (const held of current.atEnd) held.close();
  }
}

/** What the build holds until it ends, whatever its outcome (`build`): a temporary file, a setting. */
function closeAtEnd<T extends { close(): void }>(current: Build, held: T): T {
  current.atEnd.push(held);
  return held;
}

async function buildAll(current: Build, start: PoolStart, started: number): Promise<BuildOutcome> {
  const { options, inputs } = current;
  // Nothing to keep: every route renders, the threads load while the assets and the code are made.
  if (!inputs.previous) start.threadsStart();
  // Assets first: pages refer to them by their hashed names.
  await writeAssets(current);
  lap(current, "assets");
  const { shared, site } = await sharedContentOf(current);
  lap(current, "prepare");
  if (asLastBuilt(current)) return keepWholeSite(current, site, start, started);
  const pool = start.pool(shared);
  let pages: ListedStubs;
  try {
    pages = await renderPages(current, pool);
  } finally {
    // Its threads end before the listings parse every stub: their memory is back by then.
    await pool.close();
  }
  // From here the main thread holds every route at once: collected before it doubles.
  closeAtEnd(current, { close: lowerHeapGrowth() });
  lap(current, "pages");
  await renderListings(current, shared, pages);
  lap(current, "listings");
  // Every document's route (100,000 at 100,000 routes): let go once the redirects are written.
  const redirectKeys = await writeRedirects(current, routesNow(current, pages));
  lap(current, "redirects");
  // Only now that every route is written: remove what no route produces any more.
  await deleteOrphans(current, redirectKeys);
  lap(current, "orphans");
  const changedRoutes = routesOfKeys(current.changedKeys, routesByKey([inputs.previous, current.manifest]));
  const shards = current.options.verify ? undefined : inputs.previous?.shards;
  releaseStorage(current);
  await writeManifest(current, site.version, shards);
  lap(current, "manifest");
  const summary = summarize(current, started, start.started());
  return {
    summary,
    manifest: current.manifest,
    routes: handOverRoutes(current),
    documents: feedsIndex(options) ? handOver(current, pages) : NO_DOCUMENTS,
    changedRoutes,
    site,
  };
}

/**
 * The build's routes for its caller's index: each manifest entry with the dependencies and inputs
 * its render recorded. Their file outlives the build (it is taken off what the build closes at its
 * end), and the caller closes it.
 */
function handOverRoutes(current: Build): BuiltRoutes {
  const { known, manifest } = current;
  if (!known) return NO_ROUTES;
  current.atEnd = current.atEnd.filter((held) => held !== known);
  return {
    *[Symbol.iterator]() {
      for (const [route, recorded] of known) {
        const entry = manifest.routes[route];
        if (entry) yield [route, entry, recorded];
      }
    },
    close: () => known.close(),
  };
}

/**
 * The build's documents for its caller's index: the stubs' file outlives the build (it is taken off
 * what the build closes at its end), and the caller closes it.
 */
function handOver(current: Build, pages: ListedStubs): BuiltDocuments {
  current.atEnd = current.atEnd.filter((held) => held !== pages);
  // Redirect documents whole: the index keeps their rule (diff-build.ts, `indexed`).
  const { shared, redirectDocs } = current.inputs;
  const held: [PrismicDocument, string][] = [
    ...shared.map((doc): [PrismicDocument, string] => [stub(doc), documentHash(doc)]),
    ...redirectDocs.map((doc): [PrismicDocument, string] => [doc, documentHash(doc)]),
  ];
  return {
    *[Symbol.iterator]() {
      yield* held;
      yield* pages.withDocumentHashes();
    },
    close: () => pages.close(),
  };
}

/**
 * Reads the previous manifest and page inputs, builds the assets, reads the shared documents and
 * the redirects at the ref, and what storage holds. What must be written is decided by which keys
 * exist and each one's hash: from the previous manifest (cheap) or, when verifying or without one,
 * from storage itself; where storage reports no hash (S3 listings), the manifest's stands in.
 */
async function readInputs(options: BuildOptions): Promise<BuildInputs> {
  const { client, store } = options;
  // Never the client's cached repository (kept for seconds): a build must see the newest ref.
  const ref = options.ref ?? (await client.fetchMasterRef());
  const log = options.logger.child({ ref });
  const redirectType = website.redirects?.type;
  const [previous, stored, built, shared, redirectDocs] = await Promise.all([
    readManifest(store),
    options.reuse ? openPageInputs(store) : undefined,
    website.assets.build(),
    readSharedDocuments(client, ref),
    redirectType ? listDocuments(client, ref, [filter.at("document.type", redirectType)]) : [],
  ]);
  for (const type of website.frame)
    if (!shared.some((doc) => doc?.type === type)) throw new Error(`no ${type} document at ref ${ref}`);
  const frame = shared.filter((doc) => website.frame.includes(doc.type));
  reportContentNotices(frame, log);
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
  return {
    ref,
    log,
    previous,
    stored,
    previousInputs: NO_RECORDS.pages,
    previousRecords: NO_RECORDS,
    built,
    shared,
    redirectDocs,
    existing,
    isStored,
  };
}

function startBuild(options: BuildOptions, inputs: BuildInputs, started: number): Build {
  const now = performance.now();
  const pageInputs = new EntryLog();
  const records = new EntryLog();
  const known = feedsIndex(options) ? new RouteEntries() : undefined;
  return {
    options,
    inputs,
    log: inputs.log,
    manifest: {
      version: MANIFEST_VERSION,
      ref: inputs.ref,
      builtAt: new Date().toISOString(),
      routes: {},
      assets: {},
    },
    counts: { rendered: 0, reused: 0, written: 0, unchanged: 0, deleted: 0 },
    stages: { read: Math.round(now - started) },
    lapped: now,
    changedKeys: new Set(),
    javascript: website.assets.javascriptMeter(inputs.built.assets.browser),
    failed: [],
    pageInputs,
    records,
    atEnd: known ? [pageInputs, records, known] : [pageInputs, records],
    reusable: new Map(),
    known,
  };
}

/** Writes `body` at `key` unless storage holds these bytes there already. */
async function write(
  current: Build,
  key: string,
  body: string | Buffer,
  hash: string,
  contentType: string,
  cacheControl: string,
): Promise<void> {
  if (current.inputs.isStored(key, hash)) {
    current.counts.unchanged++;
    return;
  }
  await current.options.store.put(key, body, { contentType, cacheControl, contentHash: hash });
  current.counts.written++;
  current.changedKeys.add(key);
}

async function writeAssets(current: Build): Promise<void> {
  for (const file of current.inputs.built.files) {
    const hash = sha256(file.body);
    current.manifest.assets[file.key] = hash;
    await write(current, file.key, file.body, hash, file.contentType, CACHE_CONTROL.immutable);
  }
}

/**
 * What every render thread is handed (the shared documents, the assets, the page inputs to compare
 * with) and the site's version they render: its parts, the code its page inputs are hashed with and
 * the render bundle's modules.
 */
async function sharedContentOf(
  current: Build,
): Promise<{ shared: SharedContent; site: BuildOutcome["site"] }> {
  const { options, inputs } = current;
  const siteCode = {
    bundle: await renderThreadBundle(),
    assets: inputs.built.assets,
    siteUrl: options.siteUrl,
    ...(options.sitemapUrlLimit ? { sitemapUrlLimit: options.sitemapUrlLimit } : {}),
  };
  const [parts, code, modules] = await Promise.all([
    siteParts(siteCode),
    renderCode(siteCode),
    renderThreadModules(),
  ]);
  current.manifest.site = parts.version;
  current.hashedWith = { code, shared: sharedInputs(inputs.shared) };
  // Under other code or other shared documents, no page's inputs can be the ones recorded, nor can a
  // document's record vouch for it (`versionsSuffice`): their entries are never read (tens of MB at
  // 100,000 routes), unless pages may be kept on their inputs under the earlier code.
  const { stored } = inputs;
  inputs.stored = undefined;
  const header = stored?.header ?? {};
  if (stored && (options.earlier || (header.code === code && header.shared === current.hashedWith.shared))) {
    inputs.previousRecords = await stored.read();
    inputs.previousInputs = inputs.previousRecords.pages;
    current.reusable = reusablePages(current);
  } else if (options.reuse instanceof Map) {
    // No page can be kept: the index's inputs are let go now, not at the build's end.
    options.reuse.clear();
  }
  const reuse = options.reuse ?? false;
  const shared: SharedContent = {
    siteUrl: options.siteUrl,
    assets: inputs.built.assets,
    documents: inputs.shared,
    ...(options.sitemapUrlLimit ? { sitemapUrlLimit: options.sitemapUrlLimit } : {}),
    inputs: {
      code,
      previous: current.reusable,
      ...(options.earlier && reuse instanceof Map ? { earlier: options.earlier } : {}),
    },
  };
  return { shared, site: { ...parts, modules } };
}

/**
 * The pages that may be kept: the bytes the last build rendered from their inputs are still the
 * route's (no publish rewrote it since) and stored as the manifest says; the render threads keep
 * those whose inputs are unchanged (render-inputs.ts). With the index's routes, only when the
 * index recorded the render those page inputs describe (its dependencies are that render's).
 */
function reusablePages({ options, inputs }: Build): Map<string, string> {
  const reuse = options.reuse ?? false;
  const previous = inputs.previous?.routes ?? {};
  /** The inputs the route's stored page was rendered from, if it may be kept (and they are `indexed`). */
  const mayKeep = (route: string, indexed?: string): string | undefined => {
    const entry = previous[route];
    if (!entry) return undefined;
    const last = parseEntry<PageInputs>(inputs.previousInputs.get(route));
    const kept =
      last?.hash === shortHash(entry.hash) &&
      inputs.isStored(entry.key, entry.hash) &&
      (indexed === undefined || indexed === last.inputs);
    return kept ? last.inputs : undefined;
  };
  if (reuse === false) return new Map();
  if (reuse === true) {
    const reusable = new Map<string, string>();
    for (const route of Object.keys(previous)) {
      const last = mayKeep(route);
      if (last !== undefined) reusable.set(route, last);
    }
    return reusable;
  }
  // The index's inputs, kept where they are the stored page's: the same strings, no second map.
  for (const [route, indexed] of reuse) if (mayKeep(route, indexed) === undefined) reuse.delete(route);
  return reuse;
}

/**
 * Whether the site is exactly as the last build left it, which a rebuild then finds out without
 * listing a document: that build ran at this ref (content at a ref never changes) with this code and
 * these shared documents, rendered every route (none failed), no publish rewrote a page since (each
 * route's page inputs describe its stored bytes: `reusable`), and storage holds exactly the keys it
 * left: its pages, its assets (as this build makes them) and its redirects. Only for a build that
 * feeds no index (`pressroom build`), trusting the manifest's hashes (not `verify`).
 */
function asLastBuilt(current: Build): boolean {
  const { options, inputs, hashedWith, manifest } = current;
  const { previous, previousRecords: records } = inputs;
  if (options.reuse !== true || options.verify || options.earlier || options.storedHashes) return false;
  if ((options.unsettledKeys?.size ?? 0) > 0 || current.counts.written > 0) return false;
  if (!previous || previous.ref !== inputs.ref || previous.site !== manifest.site) return false;
  if (records.ref !== inputs.ref || records.failed !== 0) return false;
  if (records.code !== hashedWith?.code || records.shared !== hashedWith?.shared) return false;
  const assets = Object.keys(manifest.assets);
  if (assets.length !== Object.keys(previous.assets).length) return false;
  if (!assets.every((key) => previous.assets[key] === manifest.assets[key])) return false;
  const expected = new Set(assets);
  for (const [route, entry] of Object.entries(previous.routes)) {
    if (!current.reusable.has(route)) return false;
    expected.add(entry.key);
  }
  for (const [key, hash] of redirectHashes(previous)) {
    if (!inputs.isStored(key, hash)) return false;
    expected.add(key);
  }
  if (expected.size !== inputs.existing.size) return false;
  for (const key of inputs.existing.keys()) if (!expected.has(key)) return false;
  return true;
}

/**
 * A rebuild of a site as the last build left it (`asLastBuilt`): every route kept as stored,
 * nothing written, the manifest and page inputs left as they are. What editors should fix is said
 * again, as every build says it: from the shared documents it read, and from that build's records.
 */
function keepWholeSite(
  current: Build,
  site: BuildOutcome["site"],
  start: PoolStart,
  started: number,
): BuildOutcome {
  const { inputs, log } = current;
  const previous = inputs.previous as BuildManifest;
  for (const route of Object.keys(previous.routes)) {
    const json = inputs.previousInputs.get(route) as string;
    if (json.includes('"islands"')) {
      const islands = parseEntry<PageInputs>(json)?.islands;
      if (islands) current.javascript.add(route, islands);
    }
    current.counts.reused++;
    current.counts.unchanged++;
  }
  // The shared types' documents are read whole by every build: said from them, as a render says it.
  sharedTypesRoutes(inputs, log);
  for (const [id, json] of inputs.previousRecords.documents) {
    if (!json.includes('"n":') && !json.includes('"r":')) continue;
    const record = parseEntry<DocumentRecord>(json) as DocumentRecord;
    if (record.n) reportNotices(record.n, log);
    if (record.r !== undefined)
      log.error({ documentId: id }, `document ${id} gets no page: ${record.r} (see pressroom status)`);
  }
  current.manifest = previous;
  releasePrevious(current);
  lap(current, "kept");
  log.info({ builtAt: previous.builtAt }, "nothing changed since the last build: every page kept as stored");
  return {
    summary: summarize(current, started, start.started()),
    manifest: current.manifest,
    routes: NO_ROUTES,
    documents: NO_DOCUMENTS,
    changedRoutes: [],
    site,
  };
}

/**
 * Renders the shared types' routes (before the pages that embed and link them), then every other
 * routed document streamed from the content API. Answers their stubs, for the listings.
 */
async function renderPages(current: Build, pool: BuildPool): Promise<ListedStubs> {
  const { inputs, log } = current;
  // Read whole by every build: only their versions are recorded, for the documents that show them.
  for (const doc of [...inputs.shared, ...inputs.redirectDocs])
    keepRecord(current, doc.id, { v: versionOf(doc) ?? "" });
  const own = sharedTypesRoutes(inputs, log);
  const shown = inputsOf(current, "shared");
  if (!keepAll(current, own, shown)) await commit(current, withInputs(await pool.render([], own), shown));
  return await renderStreamed(current, pool);
}

/**
 * Renders the listings (which need every page's route and dates, not its content) and the sitemap's
 * parts, on this thread once the render threads have ended, from the shared documents in memory and
 * the stubs read again from the build's temporary file whenever a listing iterates them: never all
 * of them as objects at once (100,000 at 100,000 pages). Kept as stored when what they read is
 * unchanged.
 */
async function renderListings(current: Build, shared: SharedContent, stubs: ListedStubs): Promise<void> {
  const listed = inputsOf(current, `listings ${stubs.digest()}`);
  const kept = keepAll(current, [...website.routes.listings, ...previousParts(current)], listed);
  releasePrevious(current);
  if (kept) return;
  // A divided sitemap is an index: its parts too, each reading its listing slots' stubs, ordered
  // so when the first part asks; a part no longer needed is an orphan (deleteOrphans).
  let slotted: SlottedStubs | undefined;
  const streamed = {
    types: new Set(streamedTypes()),
    [Symbol.iterator]: () => stubs[Symbol.iterator](),
    inSlots: (slots: SlotRange) => {
      slotted ??= new SlottedStubs(stubs);
      return slotted.inSlots(slots);
    },
  };
  try {
    const listings = await renderBatch(shared, [], website.routes.listings, current.log, {
      parts: true,
      streamed,
    });
    await commit(current, withInputs(listings, listed));
  } finally {
    slotted?.close();
  }
}

/** Every document's route now, by id, each stub parsed a chunk at a time. */
function routesNow(current: Build, stubs: ListedStubs): Map<string, string | null> {
  const routes = new Map<string, string | null>();
  for (const docs of [current.inputs.shared, stubs])
    for (const doc of docs) routes.set(doc.id, website.routes.ofDocument(doc));
  return routes;
}

/**
 * What the shared types' routes or the listings read, as one hash (a page's inputs,
 * render-inputs.ts): the code, the shared documents and `what` (the listings: every streamed
 * document's stub). Recorded by every build, as pages' are, so that the next one may keep them.
 */
function inputsOf(current: Build, what: string): string | undefined {
  const { hashedWith } = current;
  return hashedWith && sha256(`${hashedWith.code}\n${hashedWith.shared}\n${what}`).slice(0, 32);
}

/** The sitemap's parts the last build stored: the listings' routes it had besides `website.routes.listings`. */
function previousParts(current: Build): string[] {
  return Object.keys(current.inputs.previous?.routes ?? {}).filter(
    (route) => website.routes.isListing(route) && !website.routes.listings.includes(route),
  );
}

/**
 * Keeps every one of `routes` as stored when each one's stored page was rendered from `inputs` (a
 * rebuild that found nothing changed renders none of them): all or none, as one render of the
 * sitemap names its parts. Answers whether they were kept.
 */
function keepAll(current: Build, routes: readonly string[], inputs: string | undefined): boolean {
  if (inputs === undefined || !routes.every((route) => current.reusable.get(route) === inputs)) return false;
  keepReused(current, routes, {});
  return true;
}

/**
 * Routes rendered from `inputs`: recorded so, so that the next build may keep them. Whatever their
 * status: the error pages are listings that answer 404, 500 and 503.
 */
function withInputs(batch: BatchResult, inputs: string | undefined): BatchResult {
  if (inputs !== undefined) for (const result of batch.rendered) result.inputs = inputs;
  return batch;
}

/** Ends the stage `name` of the build (its milliseconds in the summary's `stages`). */
function lap(current: Build, name: string): void {
  const now = performance.now();
  current.stages[name] = Math.round(now - current.lapped);
  current.lapped = now;
}

/**
 * What the last build recorded is read only while pages are rendered or kept: let go before the
 * listings render and the manifest is written, when the build holds most.
 */
function releasePrevious(current: Build): void {
  current.inputs.previousInputs = NO_RECORDS.pages;
  current.inputs.previousRecords = NO_RECORDS;
  // The caller's map too (`reuse`), which its caller may still hold.
  current.reusable.clear();
  current.reusable = new Map();
}

/**
 * The last build's manifest and what storage holds are read no more once the orphans are deleted:
 * let go before the manifest and the page inputs are put together, when the build holds most.
 */
function releaseStorage(current: Build): void {
  current.inputs.previous = undefined;
  current.inputs.existing = new Map();
  current.inputs.isStored = () => false;
}

/** Records what the build knows of a document, as the JSON the page inputs file holds. */
function keepRecord(current: Build, id: string, record: DocumentRecord): void {
  current.records.add(id, JSON.stringify(record));
  current.newest = newestDate(current.newest ? [record.v, current.newest] : [record.v]);
}

/**
 * The routed types a build streams: every published type but the frame's, the shared ones (held
 * whole by every render) and the redirects (which no page shows).
 */
function streamedTypes(): string[] {
  return website.types.filter(
    (type) =>
      !website.frame.includes(type) && !website.shared.includes(type) && type !== website.redirects?.type,
  );
}

/**
 * Each page of 100 goes to a render thread as the API's bytes: it parses them, renders every
 * document's route and answers what the build keeps of each (stub, hash, refused uid). A rebuild
 * that may keep pages reads only the documents changed since the last build (`renderChanged`).
 * Answers the stubs, each with its document's hash when the build feeds an index.
 */
async function renderStreamed(current: Build, pool: BuildPool): Promise<ListedStubs> {
  const { options, inputs, log } = current;
  const types = streamedTypes();
  // Their digest is the listings' inputs, when pages may be kept (`renderListings`).
  const stubs = closeAtEnd(current, new ListedStubs({ digest: true, documentHashes: feedsIndex(options) }));
  if (types.length === 0) return stubs;
  const progress = options.progress ? createProgress("building pages", log) : undefined;
  const onListed = (item: ListedDocument) => {
    const { stub: page, hash, refused, notices } = item;
    stubs.add(page, hash);
    keepRecord(current, page.id, recordOf(item));
    // What editors should fix (content-notices.ts), said once per build, as for every document.
    if (notices) reportNotices(notices, log);
    if (refused) logRefused(page, refused, log);
  };
  const onAnswer = async (answer: ArrayBuffer, here = false, seen?: (item: ListedDocument) => void) => {
    const result = await (here ? pool.here : pool).renderOwn([answer]);
    for (const item of result.listed ?? []) {
      onListed(item);
      seen?.(item);
    }
    await commit(current, result, progress);
  };
  const listed = versionsSuffice(current)
    ? await renderChanged(current, types, pool.threads + 1, onListed, onAnswer, progress)
    : await forEachPageAnswer(
        options.client,
        inputs.ref,
        [typeFilter(types)],
        pool.threads + 1,
        onAnswer,
        (total) => progress?.setTotal(total),
      );
  if (stubs.length !== listed) {
    // Content at a ref never changes, so a mismatch means a broken API answer, not a race.
    throw new Error(`Listed ${stubs.length} pages at ref ${inputs.ref}, but the API counts ${listed}`);
  }
  progress?.done();
  return stubs;
}

const typeFilter = (types: readonly string[]) =>
  types.length === 1
    ? filter.at("document.type", types[0] as string)
    : filter.any("document.type", [...types]);

/**
 * Whether the last build's records tell which documents changed: it recorded them, and hashed its
 * page inputs with this code and these shared documents (otherwise every page's inputs differ, and
 * every document is read to hash them). Not after a deploy of slices only (`earlier`): a page is
 * then kept on its inputs under the earlier code, which only its content tells.
 */
function versionsSuffice({ options, inputs, hashedWith }: Build): boolean {
  const before = inputs.previousRecords;
  return (
    (options.reuse ?? false) !== false &&
    !options.earlier &&
    before.newest !== undefined &&
    before.code === hashedWith?.code &&
    before.shared === hashedWith?.shared
  );
}

/**
 * Lists every document's version without its content (the floor of a rebuild that finds nothing
 * changed), keeps each document unchanged since the last build as recorded (document-records.ts)
 * with its page as stored, and reads and renders only the others, 100 at a time by id. Answers how
 * many documents of the streamed types there are.
 *
 * A document published within the second of the last build's newest publication, with the version
 * that build recorded, may have been published again since: it is read first, and when its hash is
 * the one recorded, it is `settled`, and the documents holding its facts are judged by their own
 * versions. So are the shared documents, read whole by every build: `versionsSuffice` found them as
 * the last build hashed them. Otherwise every page linking to the site's newest document (a price
 * list shown on thousands of pages) would be read again by every rebuild until a newer publication.
 */
async function renderChanged(
  current: Build,
  types: readonly string[],
  concurrency: number,
  onListed: (item: ListedDocument) => void,
  onAnswer: (answer: ArrayBuffer, here: boolean, seen?: (item: ListedDocument) => void) => Promise<void>,
  progress: Progress | undefined,
): Promise<number> {
  const { options, inputs } = current;
  const before = inputs.previousRecords.documents;
  const versionBefore = (id: string) => versionInRecord(before.get(id));
  // At the ref the last build read, nothing was published since: no date is ambiguous.
  const newest =
    inputs.previousRecords.ref === inputs.ref
      ? Number.POSITIVE_INFINITY
      : Date.parse(inputs.previousRecords.newest ?? "");
  const streamed = new Set(types);
  // As bytes until every version is known (ListedStubs): 100,000 of them as objects held ~70 MB.
  const listed = closeAtEnd(current, new ListedStubs());
  const now = new Map<string, string>();
  const readFirst = new Set<string>();
  await forEachVersionPage(options.client, inputs.ref, website.types, concurrency, async (page) => {
    for (const doc of page) {
      const version = versionOf(doc);
      if (version !== undefined) now.set(doc.id, version);
      if (!streamed.has(doc.type)) continue;
      // Without its href (the query that fetches it, ~200 bytes): keptAsRecorded makes the stub without it.
      listed.add({ ...doc, href: "" });
      if (version !== undefined && !olderThan(version, newest) && versionBefore(doc.id) === version)
        readFirst.add(doc.id);
    }
  });
  progress?.setTotal(listed.length);
  const readWhole = async (ids: readonly string[], seen?: (item: ListedDocument) => void) => {
    const here = ids.length <= RENDERED_HERE_AT_MOST;
    await mapLimit([...chunksOf(ids, 100)], concurrency, async (batch) => {
      await forEachPageAnswer(options.client, inputs.ref, [filter.in("document.id", batch)], 1, (answer) =>
        onAnswer(answer, here, seen),
      );
    });
  };
  const settled = new Set(inputs.shared.map((doc) => doc.id));
  await readWhole([...readFirst], (item) => {
    if (item.hash === parseEntry<DocumentRecord>(before.get(item.stub.id))?.h) settled.add(item.stub.id);
  });
  const changed: string[] = [];
  const count = listed.length;
  // Each chunk of the listing let go once read: the kept documents' stubs go on in `onListed`.
  for (const doc of listed.drain()) {
    if (readFirst.has(doc.id)) continue;
    const record = parseEntry<DocumentRecord>(before.get(doc.id));
    const kept =
      record && unchangedSince(record, now.get(doc.id), now, versionBefore, newest, settled)
        ? keptAsRecorded(doc, record)
        : undefined;
    const route = kept && !kept.refused ? website.routes.ofDocument(kept.stub) : null;
    if (!kept || (route !== null && !current.reusable.has(route))) {
      changed.push(doc.id);
      continue;
    }
    onListed(kept);
    if (route !== null) keepReused(current, [route], {}, progress);
  }
  await readWhole(changed);
  return count;
}

/** A document unchanged since the last build, as that build listed it: its stub from its version's listing. */
function keptAsRecorded(doc: PrismicDocument, record: DocumentRecord): ListedDocument | undefined {
  if (record.h === undefined) return undefined;
  return {
    stub: stubOf(doc, record.d ?? {}),
    hash: record.h,
    ...(record.r !== undefined ? { refused: record.r } : {}),
    ...(record.n ? { notices: record.n } : {}),
    version: record.v,
    ...(record.t ? { targets: record.t } : {}),
  };
}

/** What the page inputs file keeps of a listed document. */
function recordOf(item: ListedDocument): DocumentRecord {
  const data = item.stub.data as Record<string, unknown>;
  return {
    v: item.version ?? "",
    ...(item.targets ? { t: item.targets } : {}),
    h: item.hash,
    ...(Object.keys(data).length > 0 ? { d: data } : {}),
    ...(item.notices ? { n: item.notices } : {}),
    ...(item.refused !== undefined ? { r: item.refused } : {}),
  };
}

/** Records a batch's routes in the manifest and writes the rendered ones whose bytes changed. */
async function commit(current: Build, batch: BatchResult, progress?: Progress): Promise<void> {
  keepReused(current, batch.reused ?? [], batch.renewed ?? {}, progress);
  for (const failure of batch.failed) keepFailed(current, failure, progress);
  // One round trip per batch: a route refused is one a newer publish owns (this build is superseded).
  const { guard } = current.options;
  const granted = guard ? await guard.claim(batch.rendered.map((r) => r.route)) : undefined;
  await mapLimit(batch.rendered, UPLOADS_IN_FLIGHT, async (result) => {
    const { route, body, contentType, islands, inputs } = result;
    current.manifest.routes[route] = manifestEntry(result, current.inputs.previous?.routes[route]);
    current.known?.add(route, { dependencies: result.dependencies, inputs });
    if (inputs)
      keepInputs(current, route, { hash: shortHash(result.hash), inputs, ...(islands ? { islands } : {}) });
    current.counts.rendered++;
    if (islands) current.javascript.add(route, islands);
    if (!granted || granted.has(route))
      await write(current, result.key, asBuffer(body), result.hash, contentType, CACHE_CONTROL.html);
    progress?.tick();
  });
}

/** Pages kept as stored: offered to the render threads only when stored as the previous manifest says. */
function keepReused(
  current: Build,
  reused: readonly string[],
  renewed: Readonly<Record<string, string>>,
  progress?: Progress,
): void {
  const { inputs } = current;
  for (const route of reused) {
    // The last manifest's entry is this one (no other holds it on).
    current.manifest.routes[route] = inputs.previous?.routes[route] as ManifestRoute;
    // Kept under the earlier code: recorded with its inputs under this code, for the next build.
    const json = inputs.previousInputs.get(route) as string;
    const last = parseEntry<PageInputs>(json) as PageInputs;
    const kept = renewed[route] ? { ...last, inputs: renewed[route] } : last;
    // Its render is the one the index recorded (`reusablePages`): so are its dependencies.
    current.known?.add(route, { inputs: kept.inputs });
    // Unchanged, its entry is the last build's bytes as they were read.
    if (kept === last) current.pageInputs.add(route, json);
    else keepInputs(current, route, kept);
    if (kept.islands) current.javascript.add(route, kept.islands);
    current.counts.reused++;
    current.counts.unchanged++;
    progress?.tick();
  }
}

/**
 * A manifest entry, always built field by field: an entry spread from a render thread's answer got
 * a hidden class of its own (~250 bytes a route). Its key and document id are the last manifest's
 * strings when equal (`before`): the last manifest is held while pages render, and a render
 * thread's answer brings copies of its own (7 MB at 100,000 routes). What the page was rendered
 * from and what it read are not kept here: the page inputs file and, for an index, `known`.
 */
function manifestEntry(entry: ManifestRoute, before?: ManifestRoute): ManifestRoute {
  const { hash, status } = entry;
  const key = before?.key === entry.key ? before.key : entry.key;
  const documentId = before?.documentId === entry.documentId ? before?.documentId : entry.documentId;
  return documentId === undefined ? { key, hash, status } : { key, hash, status, documentId };
}

/** Records what a page was rendered from, as the JSON the page inputs file holds. */
function keepInputs(current: Build, route: string, inputs: PageInputs): void {
  current.pageInputs.add(route, JSON.stringify(inputs));
}

/** A route whose render threw: its last good page stays, not written, not an orphan, listed as before. */
function keepFailed(current: Build, failure: FailedRender, progress?: Progress): void {
  current.failed.push(failure);
  const before = current.inputs.previous?.routes[failure.route];
  // What it depends on is not known without a render: at least its own document (the diff
  // build adds what the dependency index still knew), so it is rendered when that changes.
  const dependencies = failure.documentId ? [`doc:${failure.documentId}`] : [];
  if (before) {
    current.manifest.routes[failure.route] = before;
    current.known?.add(failure.route, { dependencies });
  }
  current.log.error(
    { route: failure.route, documentId: failure.documentId, err: failure.error },
    "render failed: the route keeps its last good page",
  );
  progress?.tick();
}

/**
 * Redirects: the stored history replayed against every route now, renames no publish saw (from the
 * previous manifest's routes, so an old URL answers 301), and the editors' redirects. Answers the
 * keys of the redirect objects the site keeps.
 */
async function writeRedirects(
  current: Build,
  routes: ReadonlyMap<string, string | null>,
): Promise<Iterable<string>> {
  const { options, inputs, manifest } = current;
  await options.guard?.ensureCurrent();
  const redirects = await buildRedirects(options.store, {
    siteUrl: options.siteUrl,
    routes,
    // Renames no publish saw: the last build's manifest has the page at another route.
    moves: movedSince(inputs.previous, routes),
    rules: website.redirects ? inputs.redirectDocs.map(website.redirects.ruleOf) : [],
    isPage: (route) => Object.hasOwn(manifest.routes, route),
    isStored: (key, hash) => {
      const stored = inputs.isStored(key, hash);
      if (!stored) current.changedKeys.add(key); // written by buildRedirects
      return stored;
    },
  });
  setServed(manifest, redirects.served);
  reportRedirectNotices(redirects.notices, current.log);
  current.counts.written += redirects.written;
  return redirects.keys;
}

/** Deletes every stored object no route, asset or redirect produces any more. */
async function deleteOrphans(current: Build, redirectKeys: Iterable<string>): Promise<void> {
  const { manifest, failed, options } = current;
  const keep = new Set([
    ...Object.values(manifest.routes).map((r) => r.key),
    ...failed.map((f) => website.routes.key(f.route)), // stored without a manifest entry: still its last page
    ...Object.keys(manifest.assets),
    ...redirectKeys,
  ]);
  const orphans = [...current.inputs.existing.keys()].filter((key) => !keep.has(key));
  await options.guard?.ensureCurrent();
  await mapLimit(orphans, UPLOADS_IN_FLIGHT, async (key) => {
    await options.store.delete(key);
    current.counts.deleted++;
    current.changedKeys.add(key);
  });
}

/** The page inputs, then the manifest: written last, so it only ever describes a complete site. */
async function writeManifest(
  current: Build,
  site: string,
  /** The last manifest's shards: those it names hold their bytes already. */
  shards: BuildManifest["shards"] | undefined,
): Promise<void> {
  const { store, guard } = current.options;
  const { newest } = current;
  await writePageInputs(
    store,
    {
      ...current.hashedWith,
      ref: current.inputs.ref,
      ...(newest ? { newest } : {}),
      failed: current.failed.length,
    },
    current.pageInputs,
    current.records,
    site,
  );
  // The site server answers the website's aliases (`/home` → `/`) from here: it never loads the website.
  current.manifest.aliases = { ...website.routes.aliases };
  await writeStoredManifest(store, current.manifest, {
    ...(shards ? { previous: { shards } } : {}),
    beforeCommit: async () => await guard?.ensureCurrent(),
  });
}

/** The build's summary, logged. */
function summarize(current: Build, started: number, renderThreads: number): BuildSummary {
  const { counts, failed, log } = current;
  const durationMs = Math.round(performance.now() - started);
  const summary: BuildSummary = {
    ref: current.inputs.ref,
    routes: Object.keys(current.manifest.routes).length,
    ...counts,
    durationMs,
    stages: current.stages,
    pagesPerSecond: Math.round((counts.rendered / Math.max(1, durationMs)) * 1000),
    renderThreads,
    javascript: current.javascript.report(),
    failed,
  };
  const { ref: _ref, ...figures } = summary; // the child logger carries the ref already
  const { failed: _failed, ...counted } = figures;
  log.info({ ...counted, failed: failed.length }, "build finished");
  for (const line of summary.javascript.overBudget) log.warn(line);
  return summary;
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
 * The routes of routable documents; a uid that cannot be a route is refused, loudly, never written
 * (a document of a type without routes has none, and no problem). What editors should fix in them
 * (content-notices.ts) is said here too, once per build.
 */
function routesOf(documents: readonly PrismicDocument[], logger: Logger): string[] {
  reportContentNotices(documents, logger);
  const routes: string[] = [];
  for (const doc of documents) {
    const route = website.routes.ofDocument(doc);
    if (route !== null) routes.push(route);
    else {
      const problem = website.routes.problem(doc);
      if (problem) logRefused(doc, problem, logger);
    }
  }
  return routes;
}

/** The routes of the website's shared types' documents (routesOf: what editors should fix is said). */
function sharedTypesRoutes(inputs: BuildInputs, logger: Logger): string[] {
  return routesOf(
    inputs.shared.filter((doc) => website.shared.includes(doc.type)),
    logger,
  );
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
