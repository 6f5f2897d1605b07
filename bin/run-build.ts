import { Redis } from "ioredis";
import type { PublisherConfig } from "#config";
import { createContentClient, loadContentSchema } from "#content";
import type { Logger } from "#logger";
import { createSiteStore } from "#storage";
import { website } from "#website";
import { type BuildSummary, buildSite } from "#worker/build/full-build.ts";
import { purgeAfterBuild } from "#worker/edge-commands.ts";
import { DependencyIndex } from "#worker/publish/dependency-index.ts";
import { masterRefOrUnreachable } from "#worker/reachable.ts";

export interface RunBuildOptions
  extends Pick<PublisherConfig, "prismic" | "storage" | "siteUrl" | "renderThreads">,
    Partial<Pick<PublisherConfig, "edge" | "redisUrl" | "queuePrefix">> {
  rootDir: string;
  logger: Logger;
}

/**
 * Builds the clients a full build needs from configuration, runs it, and closes them; then marks the
 * worker's dependency index stale and purges what it changed at the edge (CDN_PURGE_URL): `index`
 * and `edge` are the lines to print, `edgeFailed` when the purge was neither acknowledged nor
 * recorded as owed.
 */
export async function runBuild(
  options: RunBuildOptions,
): Promise<BuildSummary & { index: string; edge?: string; edgeFailed?: boolean }> {
  const client = createContentClient(options.prismic, {
    routes: website.routes.resolver,
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
    const index = await markIndexStale(
      options.redisUrl ?? "redis://127.0.0.1:6379",
      options.queuePrefix ?? "pressroom",
    );
    const edge = await purgeAfterBuild(
      {
        edge: options.edge,
        redisUrl: options.redisUrl ?? "redis://127.0.0.1:6379",
        queuePrefix: options.queuePrefix ?? "pressroom",
      },
      { routes: built.changedRoutes, siteRoutes: Object.keys(built.manifest.routes).length },
      options.logger,
    );
    return { ...built.summary, index, ...(edge ? { edge: edge.line, edgeFailed: edge.failed } : {}) };
  } finally {
    await store.close();
  }
}

/**
 * The worker's index describes what its publishes and diff builds rendered, not this build: a page
 * this build rendered (other content, other code) may read other documents than the index says, and
 * a route it added is not in it. Marked stale, it is rebuilt by the next publish or reconcile round
 * (a diff build, which reuses every page whose render the index recorded). Without Redis, reconcile
 * still sees the version this build recorded in the manifest when it differs from the workers'.
 */
async function markIndexStale(redisUrl: string, queuePrefix: string): Promise<string> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2_000, lazyConnect: true });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    await new DependencyIndex(redis, queuePrefix).markStale();
    return "Worker index: marked stale; the next publish or reconcile round rebuilds it (a diff build)";
  } catch (error) {
    return `Worker index: not marked, Redis did not answer (${(error as Error).message}); reconcile rebuilds it if this build's code differs from the workers'`;
  } finally {
    redis.disconnect();
  }
}
