import type { IncomingMessage, ServerResponse } from "node:http";
import Fastify, { type FastifyInstance, LogController, type RawServerDefault } from "fastify";
import type { Logger } from "pino";
import { website } from "#website";
import { type ApiRootSwitch, contentApp } from "./app.ts";
import { DEMO_DIR, DEMO_IMAGES_DIR, readDocuments } from "./demo.ts";
import { modelsFromFiles } from "./models.ts";
import { ContentStore } from "./store.ts";

/** What the service is started with (the `content` config of services/shared has this shape). */
export interface ContentServiceOptions {
  host: string;
  port: number;
  repository: string;
  dataDir: string;
  seedDir: string | undefined;
  webhookUrl: string | undefined;
  webhookSecret: string | undefined;
  publicUrl: string | undefined;
  refHistory: number;
  previewTtlMs: number;
  /** How the API root looks (tests: a root without a form, with bookmarks). */
  apiRoot?: ApiRootSwitch;
  /**
   * The Slice Machine project whose models are served (customtypes/ and the slice libraries), read
   * as files and again when they change: the website's (`website.projectDir`) by default; tests
   * pass a copy to add models to.
   */
  modelsDir?: string;
  /** The most documents held (store.ts MAX_DOCUMENTS); tests lower it. */
  maxDocuments?: number;
}

export interface RunningContentService {
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>;
  store: ContentStore;
  /** Base URL, e.g. http://127.0.0.1:4100; the API is at `${url}/api/v2`. */
  url: string;
  close(): Promise<void>;
}

/** Opens the repository (seeding it on first start), then listens on HOST:PORT. */
export async function startContentService(
  config: ContentServiceOptions,
  logger: Logger,
): Promise<RunningContentService> {
  const modelsDir = config.modelsDir ?? website.projectDir;
  const models = modelsFromFiles(modelsDir, {
    onReload: (read) =>
      logger.info(
        { customTypes: read.customTypes.length, slices: read.slices.length },
        "models changed on disk: read again",
      ),
    onError: (error) =>
      logger.warn(
        { err: error },
        "models changed on disk but cannot be read; the last good ones stay in force",
      ),
  });
  let publicUrl = config.publicUrl?.replace(/\/+$/, "") ?? "";
  const store = await ContentStore.open({
    dataDir: config.dataDir,
    models,
    seed: () => readDocuments(config.seedDir ?? DEMO_DIR),
    refHistory: config.refHistory,
    previewTtlMs: config.previewTtlMs,
    previewToken: (session) => `${publicUrl}/previews/${session}?websitePreviewId=${session}`,
    ...(config.maxDocuments === undefined ? {} : { maxDocuments: config.maxDocuments }),
  });
  // Per-request lines would drown the log during a full build (thousands of searches); edits log themselves.
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: 50 * 1024 * 1024,
    logController: new LogController({ disableRequestLogging: true }),
  });
  await app.register(contentApp, {
    store,
    models,
    repository: config.repository,
    publicUrl: () => publicUrl,
    webhook: config.webhookUrl ? { url: config.webhookUrl, secret: config.webhookSecret } : undefined,
    imagesDir: DEMO_IMAGES_DIR,
    ...(config.apiRoot ? { apiRoot: config.apiRoot } : {}),
  });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (!publicUrl) publicUrl = url;
  logger.info(
    {
      url,
      api: `${publicUrl}/api/v2`,
      masterRef: store.masterRef,
      documents: store.masterCount,
      dataDir: config.dataDir,
    },
    `local content service listening on ${url}`,
  );
  return {
    app,
    store,
    url,
    // As the other servers close (services/shared/src/http/close-server.ts, which this service may
    // not import): requests in flight get 2 s, then a client that never ends its request is cut.
    close: async () => {
      const cut = setTimeout(() => app.server.closeAllConnections(), 2_000);
      cut.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(cut);
      }
    },
  };
}
