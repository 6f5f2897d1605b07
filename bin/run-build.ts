import type { PublisherConfig } from "#config";
import { createContentClient, loadContentSchema } from "#content";
import type { Logger } from "#logger";
import { createSiteStore } from "#storage";
import { type BuildSummary, buildSite } from "#worker/build/full-build.ts";
import { purgeAfterBuild } from "#worker/edge-commands.ts";
import { masterRefOrUnreachable } from "#worker/reachable.ts";

export interface RunBuildOptions
  extends Pick<PublisherConfig, "prismic" | "storage" | "siteUrl" | "renderThreads">,
    Partial<Pick<PublisherConfig, "edge" | "redisUrl" | "queuePrefix">> {
  rootDir: string;
  logger: Logger;
}

/**
 * Builds the clients a full build needs from configuration, runs it, and closes them; then purges
 * what it changed at the edge (CDN_PURGE_URL): `edge` is the line to print, `edgeFailed` when the
 * purge was neither acknowledged nor recorded as owed.
 */
export async function runBuild(
  options: RunBuildOptions,
): Promise<BuildSummary & { edge?: string; edgeFailed?: boolean }> {
  const client = createContentClient(options.prismic, {
    schema: loadContentSchema(options.rootDir),
    logger: options.logger,
  });
  const store = createSiteStore(options.storage, { logger: options.logger });
  try {
    const built = await buildSite({
      client,
      store,
      siteUrl: options.siteUrl,
      logger: options.logger,
      ref: await masterRefOrUnreachable(client, options.prismic.endpoint),
      progress: true,
      // A page whose inputs are unchanged keeps its stored bytes (docs/how-publishing-works.md,
      // "Rebuilds reuse what is unchanged"). Its dependencies are not needed here: no index is fed.
      reuse: true,
      ...(options.renderThreads === undefined ? {} : { renderThreads: options.renderThreads }),
    });
    const edge = await purgeAfterBuild(
      {
        edge: options.edge,
        redisUrl: options.redisUrl ?? "redis://127.0.0.1:6379",
        queuePrefix: options.queuePrefix ?? "pressroom",
      },
      { routes: built.changedRoutes, siteRoutes: Object.keys(built.manifest.routes).length },
      options.logger,
    );
    return { ...built.summary, ...(edge ? { edge: edge.line, edgeFailed: edge.failed } : {}) };
  } finally {
    await store.close();
  }
}
