import type { ManifestHead } from "#manifest/manifest-store.ts";
import { readManifest } from "./commit.ts";
import type { PublishContext } from "./context.ts";
import { DependencyIndex } from "./dependency-index.ts";
import { ensureCurrent } from "./generation.ts";
import type { Planned } from "./plan-stage.ts";
import { redirectsConcerned, reportRedirectNotices } from "./redirect-notices.ts";
import { type Served, servedOf } from "./redirect-objects.ts";
import { publishRedirects } from "./redirects-stage.ts";
import type { PublishRun } from "./run.ts";
import type { PublishWrites } from "./writes.ts";

export interface Redirected {
  /** What the site serves as redirects after this publish (the manifest's `redirects`). */
  served: Served;
  /** Paths whose redirect object was written or dropped (the edge purges them). */
  touched: Set<string>;
  /** The manifest's root as read before the redirects were written (the commit updates it). */
  manifest: ManifestHead | undefined;
}

/**
 * The redirects stage of a publish (redirects-stage.ts): old routes of renamed documents and the
 * editors' redirects, after the pages are written and before the deletes, so that a renamed page's
 * old route becomes its redirect in one write over the page (never a 404 between a delete and the
 * redirect), and never a redirect before the page it leads to is written (the site server serves a
 * page the manifest does not name yet: the manifest is written last and may not fit). What editors
 * should know of the redirects this publish concerns goes to the log.
 */
export async function redirectsStage(
  ctx: PublishContext,
  run: PublishRun,
  planned: Planned,
  writes: PublishWrites,
): Promise<Redirected> {
  // A publish whose lock expired while it ran (a paused process) must not write over its successor.
  await ensureCurrent(ctx.redis, ctx.queuePrefix, run.generation);
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  const touched = new Set<string>();
  const manifest = await readManifest(ctx.store);
  const { ids, prior, fetched, rules } = planned;
  const redirects = await publishRedirects(ctx.store, {
    ...{ siteUrl: ctx.siteUrl, ids, known: prior.known, fetched, rules },
    ...{ written: { has: (route: string) => writes.isWritten(route) }, deleted: writes.deleted },
    served: servedOf(manifest),
    indexedRoutes: (candidates) => index.routes(candidates),
    indexedDocuments: (targets) => index.documents(targets),
    touched,
  });
  reportRedirectNotices(redirects.notices, run.log, redirectsConcerned(ids, rules.values()));
  run.timer.lap("redirects");
  return { served: redirects.served, touched, manifest };
}
