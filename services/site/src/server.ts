import type { IncomingMessage, ServerResponse } from "node:http";
import Fastify, { type FastifyInstance, type RawServerDefault } from "fastify";
import type { SiteConfig } from "#config";
import { closeServer } from "#http/close-server.ts";
import { edgeErrorOptions } from "#http/edge-errors.ts";
// Request ids unique across restarts and replicas: an error page shows one to find its log line.
import { newRequestId } from "#http/error-pages.ts";
import { refuseInvalidHost } from "#http/host-header.ts";
import { listeningUrl } from "#http/listening-url.ts";
import { logOneLinePerRequest, quietRequests } from "#http/request-log.ts";
import type { Logger } from "#logger";
import { type RunningOps, startOpsServer } from "#ops/ops-server.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { SECURITY_HEADERS, siteApp, siteReadiness } from "./app.ts";
import { type ContactQueue, createContactQueue } from "./contact-queue.ts";

export interface RunningSite {
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>;
  url: string;
  /** The operations listener (metrics, health), when configured. */
  opsUrl?: string;
  close(): Promise<void>;
}

/** `pressroom serve site`: listens on HOST:PORT and serves the site from STORAGE_URL. */
export async function startSite(
  config: SiteConfig,
  logger: Logger,
  store: SiteStore = createSiteStore(config.storage, { logger }),
  contact: ContactQueue = createContactQueue({
    redisUrl: config.redisUrl,
    queuePrefix: config.queuePrefix,
    rateLimit: config.contactRateLimit,
    logger,
  }),
): Promise<RunningSite> {
  const app = Fastify({
    loggerInstance: logger,
    genReqId: newRequestId,
    trustProxy: config.trustProxy,
    ...edgeErrorOptions(SECURITY_HEADERS, { pages: true }),
    ...quietRequests(),
  });
  logOneLinePerRequest(app);
  app.addHook("onRequest", refuseInvalidHost(SECURITY_HEADERS));
  try {
    await app.register(siteApp, { store, contact });
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await contact.close().catch(() => {});
    throw error;
  }
  const url = listeningUrl(app.server, config.host, config.port);
  logger.info({ url, storage: store.description }, `site listening on ${url}`);
  let ops: RunningOps | undefined;
  if (config.ops) {
    try {
      ops = await startOpsServer({
        ops: config.ops,
        logger,
        role: "site",
        checks: siteReadiness(store, contact),
      });
    } catch (error) {
      await app.close();
      await contact.close().catch(() => {});
      throw error;
    }
  }
  return {
    app,
    url,
    ...(ops ? { opsUrl: ops.url } : {}),
    close: async () => {
      // HTTP first, so in-flight contact posts finish queueing; then the queue's Redis connection.
      await ops?.close();
      await closeServer(app);
      await contact.close();
      await store.close();
    },
  };
}
