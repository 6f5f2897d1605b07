import type { PrismicDocument } from "@prismicio/client";
import { noindexOf } from "#web/lib/page-seo.ts";
import { routeForDocument } from "#web/routes.ts";
import { buildSite, documentHash } from "../build/full-build.ts";
import type { PublishContext } from "./context.ts";
import { DependencyIndex, type IndexedDocument, type IndexedRoute } from "./dependency-index.ts";
import { nextGeneration } from "./generation.ts";
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
) {
  return (await rebuild(ctx, ref, index)).summary;
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
) {
  // A new generation: any child job of an earlier publish still queued is dropped, not written.
  await nextGeneration(ctx.redis, ctx.queuePrefix);
  const outcome = await buildSite({
    client: ctx.client,
    store: ctx.store,
    siteUrl: ctx.siteUrl,
    logger: ctx.logger,
    ref,
    ...(storedHashes ? { storedHashes } : {}),
    ...(ctx.sitemapUrlLimit ? { sitemapUrlLimit: ctx.sitemapUrlLimit } : {}),
    ...(ctx.renderThreads === undefined ? {} : { renderThreads: ctx.renderThreads }),
  });
  const routes = new Map<string, IndexedRoute>(Object.entries(outcome.manifest.routes));
  const { failed } = outcome.summary;
  if (failed.length > 0) {
    // A failed route stays in the index with what it depended on before (where the index still
    // knows it), so a change to any of those renders it again.
    for (const [route, before] of await index.routes(failed.map((f) => f.route))) {
      const kept = routes.get(route); // in the manifest only if it had a page before
      if (!kept || !Array.isArray(before.dependencies)) continue;
      routes.set(route, {
        ...kept,
        dependencies: [...new Set([...before.dependencies, ...kept.dependencies])],
      });
    }
  }
  const documents = new Map(
    outcome.documents.map((doc) => [doc.id, indexed(doc, outcome.hashes.get(doc.id))]),
  );
  await index.replace(ref, routes, documents);
  // This build's failures recorded (attempts counted on), every other recorded failure forgotten.
  const failedRoutes = new Set(failed.map((f) => f.route));
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
  const { summary } = outcome;
  return {
    manifest: outcome.manifest,
    summary: {
      ref,
      rendered: summary.rendered,
      written: summary.written,
      unchanged: summary.unchanged,
      deleted: summary.deleted,
      failed: failed.length,
      mode: "diff-build" as const,
    },
  };
}

/** What the index keeps of a document: its route, type, uid, dates and content hash. */
export function indexed(doc: PrismicDocument, hash = documentHash(doc)): IndexedDocument {
  return {
    route: routeForDocument(doc),
    type: doc.type,
    uid: doc.uid ?? null,
    lang: doc.lang,
    first_publication_date: doc.first_publication_date,
    last_publication_date: doc.last_publication_date,
    hash,
    ...(noindexOf(doc) ? { noindex: true } : {}),
  };
}
