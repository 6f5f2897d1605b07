import type { PublisherConfig } from "#config";
import { createContentClient, loadContentSchema } from "#content";
import type { Logger } from "#logger";
import { createSiteStore } from "#storage";
import { type BuildSummary, fullBuild } from "#worker/build/full-build.ts";

export interface RunBuildOptions
  extends Pick<PublisherConfig, "prismic" | "storage" | "siteUrl" | "renderThreads"> {
  rootDir: string;
  logger: Logger;
}

/** Builds the clients a full build needs from configuration, runs it, and closes them. */
export async function runBuild(options: RunBuildOptions): Promise<BuildSummary> {
  const client = createContentClient(options.prismic, {
    schema: loadContentSchema(options.rootDir),
    logger: options.logger,
  });
  const store = createSiteStore(options.storage, { logger: options.logger });
  try {
    return await fullBuild({
      client,
      store,
      siteUrl: options.siteUrl,
      logger: options.logger,
      ref: await client.fetchMasterRef(),
      progress: true,
      ...(options.renderThreads === undefined ? {} : { renderThreads: options.renderThreads }),
    });
  } finally {
    await store.close();
  }
}
