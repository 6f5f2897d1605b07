import type { PrismicDocument } from "@prismicio/client";
import { routeForDocument } from "../../../web/src/routes.ts";
import { buildSite, documentHash } from "../build/full-build.ts";
import type { PublishContext } from "./context.ts";
import { DependencyIndex, type IndexedDocument, type IndexedRoute } from "./dependency-index.ts";
import { nextGeneration } from "./generation.ts";
import { clearRouteFailures } from "./route-failures.ts";

/** Renders everything at `ref` (writing only changed bytes, deleting orphans) and rebuilds the index from it. */
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
  });
  const routes = new Map<string, IndexedRoute>(Object.entries(outcome.manifest.routes));
  const documents = new Map(
    outcome.documents.map((doc) => [doc.id, indexed(doc, outcome.hashes.get(doc.id))]),
  );
  await index.replace(ref, routes, documents);
  await clearRouteFailures(ctx.redis, ctx.queuePrefix);
  const { summary } = outcome;
  return {
    manifest: outcome.manifest,
    summary: {
      ref,
      rendered: summary.rendered,
      written: summary.written,
      unchanged: summary.unchanged,
      deleted: summary.deleted,
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
  };
}
