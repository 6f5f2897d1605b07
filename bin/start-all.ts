import { startContentService } from "../services/local-prismic/src/server.ts";
import type { StartConfig } from "../services/shared/src/config/index.ts";
import type { Logger } from "../services/shared/src/logger.ts";
import { startSite } from "../services/site/src/server.ts";
import { runBuild } from "./run-build.ts";

export interface StartAllOptions {
  rootDir: string;
  logger: Logger;
  /** When SITE_URL is not set, the site's own address (known once it listens) is the canonical origin. */
  siteUrlFromEnv: boolean;
}

/**
 * The newcomer's one command: the local content service with the demo
 * repository, the site server, and a full build between them. Later issues
 * add the webhook receiver, the worker and the preview server here.
 */
export interface RunningAll {
  siteUrl: string;
  contentUrl: string;
  close: () => Promise<void>;
}

export async function startAll(config: StartConfig, options: StartAllOptions): Promise<RunningAll> {
  const { logger } = options;
  const content = await startContentService(config.content, logger.child({ process: "content" }));
  const site = await startSite(config.site, logger.child({ process: "site" })).catch(
    async (error: unknown) => {
      await content.close();
      throw error;
    },
  );
  const close = async () => {
    await site.close();
    await content.close();
  };
  try {
    const siteUrl = options.siteUrlFromEnv ? config.site.siteUrl : site.url;
    const summary = await runBuild({
      prismic: { ...config.prismic, endpoint: `${content.url}/api/v2` },
      storage: config.site.storage,
      siteUrl,
      rootDir: options.rootDir,
      logger: logger.child({ process: "build" }),
    });
    logger.info(
      { routes: summary.routes, written: summary.written, durationMs: summary.durationMs },
      `Pressroom is running. Open ${site.url} (content API: ${content.url}/api/v2)`,
    );
  } catch (error) {
    await close();
    throw error;
  }
  return { siteUrl: site.url, contentUrl: content.url, close };
}
