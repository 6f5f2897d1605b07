import type { IncomingMessage, ServerResponse } from "node:http";
import Fastify, { type FastifyInstance, type RawServerDefault } from "fastify";
import type { SiteConfig } from "../../shared/src/config/index.ts";
import type { Logger } from "../../shared/src/logger.ts";
import { createSiteStore, type SiteStore } from "../../shared/src/storage/index.ts";
import { siteApp } from "./app.ts";

export interface RunningSite {
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>;
  url: string;
  close(): Promise<void>;
}

/** `pressroom serve site`: listens on HOST:PORT and serves the site from STORAGE_URL. */
export async function startSite(
  config: SiteConfig,
  logger: Logger,
  store: SiteStore = createSiteStore(config.storage, { logger }),
): Promise<RunningSite> {
  const app = Fastify({ loggerInstance: logger, trustProxy: true });
  await app.register(siteApp, { store });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const url = `http://${host}:${port}`;
  logger.info({ url, storage: store.description }, `site listening on ${url}`);
  return {
    app,
    url,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}
