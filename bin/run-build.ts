import type { PublisherConfig } from "../services/shared/src/config/index.ts";
import { createContentClient, loadContentSchema } from "../services/shared/src/content/index.ts";
import type { Logger } from "../services/shared/src/logger.ts";
import { createSiteStore } from "../services/shared/src/storage/index.ts";
import { type BuildSummary, fullBuild } from "../worker/src/build/full-build.ts";

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
