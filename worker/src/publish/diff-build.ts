import type { PrismicDocument } from "@prismicio/client";
import { routeForDocument } from "../../../web/src/routes.ts";
import { buildSite, documentHash } from "../build/full-build.ts";
import type { PublishContext } from "./context.ts";
import { DependencyIndex, type IndexedDocument, type IndexedRoute } from "./dependency-index.ts";

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
