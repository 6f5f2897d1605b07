import { website } from "#website";
import type { PublishContext } from "./context.ts";
import { DependencyIndex } from "./dependency-index.ts";
import { documentsByUid, fetchByUid } from "./fetch-documents.ts";
import { layeredSource } from "./layered-source.ts";
import type { Planned } from "./plan-stage.ts";
import { renderRoutes } from "./render-routes.ts";
import type { PublishRun } from "./run.ts";
import type { PublishWrites } from "./writes.ts";

/**
 * The render stage's first half: the changed documents' own routes, rendered and their changed
 * bytes written on their own, so that what the editor waits for is live before the pages that link
 * to them and the listings are re-rendered (`ownRender`, `ownWrite`; `ownDone`: since the start).
 */
export async function renderOwnStage(
  ctx: PublishContext,
  run: PublishRun,
  planned: Planned,
  writes: PublishWrites,
): Promise<void> {
  const routes = planned.routes.filter((route) => planned.own.has(route));
  await writes.readPrevious(routes);
  writes.add(
    await renderRoutes(ctx, {
      ...routesJob(ctx, run, planned, writes),
      routes,
      source: planned.source,
      timings: { render: "ownRender", write: "ownWrite", timer: run.timer },
    }),
  );
  run.timer.sinceStart("ownDone");
}

/**
 * The render stage's second half (`rest`): the pages that link to or show the changed documents,
 * listings last (the sitemap's parts read by listing slot: render-routes.ts). The documents of those
 * routes that were not fetched with the changed ids (normally none) are asked for in one request for
 * all of them rather than one each.
 */
export async function renderRestStage(
  ctx: PublishContext,
  run: PublishRun,
  planned: Planned,
  writes: PublishWrites,
): Promise<void> {
  const routes = planned.routes.filter((route) => !planned.own.has(route));
  await writes.readPrevious([...routes, ...planned.plan.delete.keys()]);
  const fetchedAt = new Set(planned.documents.map((doc) => website.routes.ofDocument(doc)));
  const unfetched = routes.filter((route) => website.routes.documentAt(route) && !fetchedAt.has(route));
  const extra = await fetchByUid(ctx.client, run.ref, documentsByUid(unfetched));
  writes.add(
    await renderRoutes(ctx, {
      ...routesJob(ctx, run, planned, writes),
      routes,
      // Over the publish's source: what it fetched, then these, then the content API.
      source: extra.length > 0 ? layeredSource(extra, new Set(), planned.source) : planned.source,
    }),
  );
  run.timer.lap("rest");
}

/** What every render of the publish shares: its ref, generation, overlay, previous entries. */
function routesJob(ctx: PublishContext, run: PublishRun, planned: Planned, writes: PublishWrites) {
  return {
    ref: run.ref,
    overlay: planned.overlay,
    previous: writes.previous,
    index: new DependencyIndex(ctx.redis, ctx.queuePrefix),
    log: run.log,
    generation: run.generation,
    rewrite: planned.rewrite,
  };
}
