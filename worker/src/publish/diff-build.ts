import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { PrismicDocument } from "@prismicio/client";
import { redisKeys } from "#jobs/catalog.ts";
import { chunksOf } from "#jobs/chunks.ts";
import type { ManifestRoute } from "#manifest/manifest.ts";
import { website } from "#website";
import type { CanonicalTarget } from "#website/contract.ts";
import { documentHash } from "../build/document-hash.ts";
import { type BuiltRoutes, buildSite } from "../build/full-build.ts";
import { currentSiteParts, currentSiteVersion, renderCodeOf } from "../build/render-code.ts";
import { renderThreadModules } from "../build/render-thread-bundle.ts";
import type { KnownRoute } from "../build/route-entries.ts";
import type { PublishContext } from "./context.ts";
import { DependencyIndex, type IndexedDocument, type IndexedRoute } from "./dependency-index.ts";
import { purgeRoutes } from "./edge-purge.ts";
import { buildGuard, generationGuard, nextGeneration } from "./generation.ts";
import { builtRefsCommands } from "./pending-refs.ts";
import { recordRouteFailures, routeFailures } from "./route-failures.ts";

/**
 * Renders everything at `ref` (writing only changed bytes, deleting orphans) and rebuilds the index
 * from it. A route whose render throws keeps its last good page and is recorded as failed, as in an
 * incremental publish (route-failures.ts); the rest of the build commits.
 */
export async function diffBuild(
  ctx: PublishContext,
  ref: string,
  index = new DependencyIndex(ctx.redis, ctx.queuePrefix),
  /** The publish's generation when a publish runs it (taken under the lock); otherwise a new one. */
  generation?: number,
) {
  return (await rebuild(ctx, ref, index, undefined, generation)).summary;
}

/**
 * diffBuild, also handing back the manifest it wrote. `storedHashes` (key → sha256 of the bytes
 * stored, read by `pressroom verify`) is trusted over every recorded hash.
 */
export async function rebuild(
  ctx: PublishContext,
  ref: string,
  index: DependencyIndex,
  storedHashes?: ReadonlyMap<string, string>,
  generation?: number,
) {
  // A new generation: any child job of an earlier publish still queued is dropped, not written; and
  // every write of this build carries it (a worker paused mid-build writes nothing once superseded).
  const mine = generation ?? (await nextGeneration(ctx.redis, ctx.queuePrefix));
  // Written by a publish that did not commit: the manifest's hashes are not what is stored there.
  const [unsettled, reuse, earlier] = await Promise.all([
    ctx.redis.smembers(redisKeys(ctx.queuePrefix).unsettledRoutes),
    indexedInputs(index),
    slicesOnly(ctx, index),
  ]);
  const outcome = await buildSite({
    unsettledKeys: new Set(unsettled.flatMap((route) => keyOf(route) ?? [])),
    guard: buildGuard(ctx.redis, ctx.queuePrefix, mine),
    reuse,
    ...(earlier ? { earlier } : {}),
    client: ctx.client,
    store: ctx.store,
    siteUrl: ctx.siteUrl,
    logger: ctx.logger,
    ref,
    ...(storedHashes ? { storedHashes } : {}),
    ...(ctx.sitemapUrlLimit ? { sitemapUrlLimit: ctx.sitemapUrlLimit } : {}),
    ...(ctx.renderThreads === undefined ? {} : { renderThreads: ctx.renderThreads }),
  });
  const { failed } = outcome.summary;
  const failedRoutes = new Set(failed.map((f) => f.route));
  try {
    // Each route and each document made what the index keeps as the commands are sent, never all
    // at once.
    const routes = indexedRoutes(outcome.routes, index, failedRoutes);
    const documents = mapIterable(outcome.documents, ([doc, hash]): [string, IndexedDocument] => [
      doc.id,
      indexed(doc, hash),
    ]);
    await index.replace(ref, routes, documents, outcome.site, generationGuard(ctx.queuePrefix, mine));
  } finally {
    outcome.routes.close();
    outcome.documents.close();
  }
  // A delivery announcing this ref with no ids (pending-refs.ts) now needs no diff build of its own.
  await ctx.redis.multi(builtRefsCommands(ctx.queuePrefix, [ref])).exec();
  // This build's failures recorded (attempts counted on), every other recorded failure forgotten.
  const recovered = (await routeFailures(ctx.redis, ctx.queuePrefix))
    .map((f) => f.route)
    .filter((route) => !failedRoutes.has(route));
  const at = new Date().toISOString();
  await recordRouteFailures(
    ctx.redis,
    ctx.queuePrefix,
    failed.map((f) => ({ ...f, ref, at })),
    recovered,
  );
  // The edge forgets what the build changed, once its manifest and index are written.
  const edge = ctx.edge
    ? await purgeRoutes(ctx, outcome.changedRoutes, {
        reference: `${ctx.queuePrefix}-${mine}-build-${Date.now()}`,
        siteRoutes: outcome.summary.routes,
      })
    : undefined;
  const { summary } = outcome;
  return {
    manifest: outcome.manifest,
    summary: {
      ref,
      rendered: summary.rendered,
      reused: summary.reused,
      written: summary.written,
      unchanged: summary.unchanged,
      deleted: summary.deleted,
      failed: failed.length,
      mode: "diff-build" as const,
      ...(edge
        ? {
            edge: {
              ...(edge.acknowledgedAt === undefined ? {} : { liveAt: edge.acknowledgedAt }),
              deferred: edge.acknowledgedAt === undefined,
              purged: edge.routes,
              everything: edge.everything,
            },
          }
        : {}),
    },
  };
}

/**
 * The site's version this process renders (render-code.ts): what a publish and reconcile compare
 * with the one the index was built with. Computed once per process (the render thread's bundle).
 */
export function siteVersionOf(ctx: Pick<PublishContext, "assets" | "siteUrl" | "sitemapUrlLimit">) {
  return currentSiteVersion({
    assets: ctx.assets,
    siteUrl: ctx.siteUrl,
    ...(ctx.sitemapUrlLimit ? { sitemapUrlLimit: ctx.sitemapUrlLimit } : {}),
  });
}

/** The checkout's root (the render bundle's module paths are relative to it). */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** Maps slice types to their components: a slice's module imported by it alone concerns that slice only. */
const SLICE_REGISTRY = "web/slices/index.ts";

/** `web/slices/<folder>/…` → the folder; undefined for anything else. */
const sliceFolder = (path: string) => /^web\/slices\/([^/]+)\//.exec(path)?.[1];

/**
 * After a deploy whose code differs from the index's only in slice components: the earlier code's
 * `renderCode` and the slice types whose pages must render again (a page showing none of them is
 * kept when nothing else it is rendered from changed). Only when sure: the versions' frames are
 * equal (packages, Node, assets, site URL), and every module that changed, was added or is
 * imported by one that changed lies in one slice's folder (`web/slices/<Slice>/`), up to the slice
 * registry. Anything else (a shared component, a model, a module gone, no record): undefined, and
 * every page renders.
 */
async function slicesOnly(
  ctx: PublishContext,
  index: DependencyIndex,
): Promise<{ code: string; unless: string[] } | undefined> {
  const [before, now, modules] = await Promise.all([
    index.builtWith(),
    currentSiteParts({
      assets: ctx.assets,
      siteUrl: ctx.siteUrl,
      ...(ctx.sitemapUrlLimit ? { sitemapUrlLimit: ctx.sitemapUrlLimit } : {}),
    }),
    renderThreadModules(),
  ]);
  if (!before || before.version === now.version || before.frame !== now.frame) return undefined;
  const importers = new Map<string, string[]>();
  for (const [from, imported] of Object.entries(modules.imports))
    for (const path of imported) importers.set(path, [...(importers.get(path) ?? []), from]);
  const paths = new Set([...Object.keys(before.modules.hashes), ...Object.keys(modules.hashes)]);
  const folders = new Set<string>();
  for (const path of paths) {
    if (before.modules.hashes[path] === modules.hashes[path]) continue;
    const folder = sliceFolder(path);
    if (!folder || !(path in modules.hashes)) return undefined;
    const seen = new Set([path]);
    const queue = [path];
    for (let next = queue.pop(); next !== undefined; next = queue.pop())
      for (const from of importers.get(next) ?? []) {
        if (from === SLICE_REGISTRY || seen.has(from)) continue;
        if (sliceFolder(from) !== folder) return undefined;
        seen.add(from);
        queue.push(from);
      }
    folders.add(folder);
  }
  const unless: string[] = [];
  for (const folder of folders) {
    const model = await readFile(`${ROOT}web/slices/${folder}/model.json`, "utf8").catch(() => undefined);
    const id = model ? (JSON.parse(model) as { id?: unknown }).id : undefined;
    if (typeof id !== "string") return undefined;
    unless.push(id);
  }
  ctx.logger.info(
    { slices: unless },
    "the site's code changed only in these slices: pages showing none of them are kept",
  );
  return { code: renderCodeOf(before.version), unless };
}

/**
 * The inputs of each route's last render, where the index recorded them, so the build may keep a
 * page whose inputs are those and unchanged (its dependencies are then the index's too:
 * `indexedRoutes`; a route a publish or another build rendered since has other inputs, or none,
 * and renders); none when the index is missing or of another version (its dependencies may not
 * mean what this version's do): every page renders. Read READ_GROUP routes at a time: only the
 * inputs are held, not each route's dependencies.
 */
async function indexedInputs(index: DependencyIndex): Promise<Map<string, string> | false> {
  if ((await index.ref()) === undefined) return false;
  const known = new Map<string, string>();
  for (const routes of chunksOf(await index.routeNames(), READ_GROUP))
    for (const [route, entry] of await index.routes(routes))
      if (Array.isArray(entry.dependencies) && entry.inputs) known.set(route, entry.inputs);
  return known;
}

/**
 * Each built route as the index keeps it (`indexedRoute`). A page kept as stored keeps the
 * dependencies the index recorded of its render; a failed route keeps them beside its own document,
 * so that a change to any of them renders it again. Both read from the index being replaced (its
 * transaction's commands wait for EXEC), READ_GROUP routes at a time.
 */
async function* indexedRoutes(
  routes: BuiltRoutes,
  index: DependencyIndex,
  failed: ReadonlySet<string>,
): AsyncGenerator<[string, IndexedRoute]> {
  let waiting: [string, ManifestRoute, KnownRoute][] = [];
  async function* recorded(): AsyncGenerator<[string, IndexedRoute]> {
    const before = await index.routes(waiting.map(([route]) => route));
    for (const [route, entry, known] of waiting) {
      const dependencies = before.get(route)?.dependencies;
      const earlier = Array.isArray(dependencies) ? dependencies : [];
      yield [
        route,
        indexedRoute(entry, [...new Set([...earlier, ...(known.dependencies ?? [])])], known.inputs),
      ];
    }
    waiting = [];
  }
  for (const [route, entry, known] of routes) {
    if (known.dependencies && !failed.has(route)) {
      yield [route, indexedRoute(entry, known.dependencies, known.inputs)];
      continue;
    }
    waiting.push([route, entry, known]);
    if (waiting.length >= READ_GROUP) yield* recorded();
  }
  yield* recorded();
}

/** Routes whose index entries a diff build reads at a time: their JSON, not every route's at once. */
const READ_GROUP = 500;

/** A route as the index keeps it, built field by field: its manifest entry, what its render read, its inputs. */
function indexedRoute(
  entry: ManifestRoute,
  dependencies: string[],
  inputs: string | undefined,
): IndexedRoute {
  const { key, hash, status, documentId } = entry;
  const built: IndexedRoute =
    documentId === undefined
      ? { key, hash, status, dependencies }
      : { key, hash, status, documentId, dependencies };
  if (inputs !== undefined) built.inputs = inputs;
  return built;
}

/** `items` each made into `make(item)` as it is read (once). */
function* mapIterable<T, U>(items: Iterable<T>, make: (item: T) => U): Generator<U> {
  for (const item of items) yield make(item);
}

/** What the index keeps of a document: its route, type, uid, dates and content hash (a redirect's rule). */
export function indexed(doc: PrismicDocument, hash = documentHash(doc)): IndexedDocument {
  const { redirects } = website;
  return {
    route: website.routes.ofDocument(doc),
    type: doc.type,
    uid: doc.uid ?? null,
    lang: doc.lang,
    first_publication_date: doc.first_publication_date,
    last_publication_date: doc.last_publication_date,
    hash,
    ...(website.seo.noindexOf(doc) ? { noindex: true } : {}),
    ...withCanonical(doc),
    ...(doc.type === redirects?.type ? { redirect: redirects.ruleOf(doc) } : {}),
  };
}

/** A page's canonical override as the index keeps it (`canonical`), when it has one. */
export function withCanonical(doc: PrismicDocument): { canonical?: CanonicalTarget } {
  const canonical = website.seo.canonicalTargetOf(doc);
  return canonical ? { canonical } : {};
}

/** A route's key, or undefined for one no key can hold (recorded by older code, or by hand). */
function keyOf(route: string): string | undefined {
  try {
    return website.routes.key(route);
  } catch {
    return undefined;
  }
}
