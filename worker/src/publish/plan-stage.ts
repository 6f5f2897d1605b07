import type { PrismicDocument } from "@prismicio/client";
import { type ContentSource, createClientSource } from "#content/source.ts";
import { website } from "#website";
import { reportContentNotices } from "../content-notices.ts";
import { isListingRoute, type PublishContext } from "./context.ts";
import { DependencyIndex, type IndexedDocument, type PriorState } from "./dependency-index.ts";
import { indexed } from "./diff-build.ts";
import { layeredSource } from "./layered-source.ts";
import { type PlannedPublish, planIds } from "./plan-ids.ts";
import { idsToFetch } from "./planner.ts";
import type { Opened } from "./ref-stage.ts";
import type { PublishRun } from "./run.ts";
import type { Taken } from "./take.ts";

export interface Planned extends PlannedPublish {
  /** The changed ids. */
  ids: readonly string[];
  /** What the index knew of them before this publish. */
  prior: PriorState;
  /** The routes to render, in order: the changed documents' own routes, then what links to them, listings last. */
  routes: string[];
  /** The changed documents' own routes (now). */
  own: ReadonlySet<string | null>;
  /** What this publish changed, by id (null: gone), laid over the index (the sitemap, the commit). */
  overlay: Map<string, IndexedDocument | null>;
  /** Routes written again whatever the index says (ref-stage.ts `rewrite`). */
  rewrite: ReadonlySet<string>;
  /**
   * What the renders read: the documents fetched answer first, gone ids answer nothing, anything
   * else is asked of the content API at the publish's ref (once per publish: the answers are kept).
   */
  source: ContentSource;
}

/**
 * The fetch and plan stages (plan-ids.ts; `fetch` and `plan` in the timings): the changed ids at
 * the master ref, with settings and the documents the routes to re-render read last time, in ONE
 * request per 100 ids (the index names them before anything is fetched); then the pure planner. Only
 * a dependency that is genuinely new (a price list the edit just embedded) costs a request of its own.
 * What the plan says, and what an editor should fix in what it publishes, goes to the log.
 */
export async function planStage(
  ctx: PublishContext,
  run: PublishRun,
  taken: Taken,
  opened: Opened,
): Promise<Planned> {
  const { ids, meta } = taken;
  const { prior } = opened;
  if (!prior) throw new Error("no index read to plan from: whyDiffBuild makes such a publish a diff build");
  const planned = await planIds(ctx.client, new DependencyIndex(ctx.redis, ctx.queuePrefix), run.ref, ids, {
    prior,
    alsoFetch: idsToFetch(ids, meta.frameIds, prior.entries.values()),
    timer: run.timer,
    ...(opened.fetched ? { fetchedAlready: opened.fetched } : {}),
  });
  const { plan, fetchedDocs, fetched } = planned;
  for (const route of opened.rewrite)
    if (!plan.render.has(route) && !plan.delete.has(route))
      plan.render.set(route, "written by a publish that did not commit");
  reportPlan(run, planned, ids);
  const own = new Set([...fetched.values()].map((d) => d.route));
  const routes = [...plan.render.keys()].sort((a, b) => rank(a, own) - rank(b, own) || a.localeCompare(b));
  const overlay = new Map<string, IndexedDocument | null>(
    ids.map((id) => [id, fetchedDocs.has(id) ? indexed(fetchedDocs.get(id) as PrismicDocument) : null]),
  );
  const source = layeredSource(planned.documents, planned.gone, createClientSource(ctx.client, run.ref));
  return { ...planned, ids, prior, routes, own, overlay, rewrite: opened.rewrite, source };
}

/** The plan, route by route (debug); a uid the site cannot route; fields a page needed and lacks. */
function reportPlan(run: PublishRun, { plan, fetchedDocs }: PlannedPublish, ids: readonly string[]) {
  const { log } = run;
  for (const [route, why] of plan.render) log.debug({ route, why }, "render");
  for (const [route, why] of plan.delete) log.debug({ route, why }, "delete");
  for (const [from, why] of plan.redirects) log.debug({ from, why }, "answered with a redirect");
  // A uid Prismic accepted but the site cannot route (reserved, too long): said where it happens.
  for (const doc of fetchedDocs.values()) {
    const problem = website.routes.problem(doc);
    if (problem)
      log.error({ documentId: doc.id, uid: doc.uid }, `${doc.type} ${doc.id} gets no page: ${problem}`);
  }
  // Fields a page needed and lacks (a model change), slices left out: said once, for what this publishes.
  reportContentNotices(
    ids.map((id) => fetchedDocs.get(id)),
    log,
  );
}

function rank(route: string, own: ReadonlySet<string | null>): number {
  if (own.has(route)) return 0;
  return isListingRoute(route) ? 2 : 1;
}
