import type { IncomingMessage, ServerResponse } from "node:http";
import Fastify, { type FastifyInstance, type RawServerDefault } from "fastify";
import type { LogLevel, OpsConfig, PrismicConfig } from "#config";
import { createContentClient, loadContentSchema } from "#content";
import { ShuttingDownError } from "#errors";
import { closeServer } from "#http/close-server.ts";
import { edgeErrorOptions } from "#http/edge-errors.ts";
// Request ids unique across restarts and replicas: an error page shows one to find its log line.
import { newRequestId } from "#http/error-pages.ts";
import { refuseInvalidHost } from "#http/host-header.ts";
import { listeningUrl } from "#http/listening-url.ts";
import { logOneLinePerRequest, quietRequests } from "#http/request-log.ts";
import type { Logger } from "#logger";
import { type RunningOps, startOpsServer } from "#ops/ops-server.ts";
import { website } from "#website";
import { previewApp, previewReadiness } from "./app.ts";
import { buildPreviewAssets } from "./preview-assets.ts";
import { tokenRuleFor } from "./preview-token.ts";
import { securityHeaders } from "./security-headers.ts";

/** `pressroom serve preview`; the lead's `loadConfig("preview", env)` produces this. */
export interface PreviewOptions {
  host: string;
  port: number;
  logLevel: LogLevel;
  prismic: PrismicConfig;
  /** The public site's origin (canonical urls, "see the published page" links). */
  siteUrl: string;
  repository: string;
  /** The operations listener (metrics, health); none when undefined. */
  ops?: OpsConfig;
  /** The folder holding `customtypes/` and the slice models; the website's (`website.projectDir`) by default. */
  rootDir?: string;
}

export interface RunningPreview {
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>;
  url: string;
  /** The operations listener, when configured. */
  opsUrl?: string;
  close(): Promise<void>;
}

/**
 * Bundles the browser code, probes the content API (a down API is logged and
 * the server starts anyway: pages answer 503 until it is back), then listens.
 */
export async function startPreview(options: PreviewOptions, logger: Logger): Promise<RunningPreview> {
  const schema = loadContentSchema(options.rootDir ?? website.projectDir);
  // Aborted at shutdown: a request waiting on the content API (a 429's wait) ends at once.
  const shutdown = new AbortController();
  const client = createContentClient(options.prismic, {
    routes: website.routes.resolver,
    schema,
    logger,
    signal: shutdown.signal,
  });
  const [assets] = await Promise.all([buildPreviewAssets(), client.probe()]);
  const app = Fastify({
    loggerInstance: logger,
    genReqId: newRequestId,
    trustProxy: true,
    ...edgeErrorOptions(securityHeaders({ toolbar: false, simulator: false }), { pages: true }),
    ...quietRequests(),
  });
  logOneLinePerRequest(app);
  app.addHook("onRequest", refuseInvalidHost(securityHeaders({ toolbar: false, simulator: false })));
  await app.register(previewApp, {
    client,
    repository: options.repository,
    tokenRule: tokenRuleFor(options.prismic.endpoint, options.repository),
    siteUrl: options.siteUrl,
    assets,
  });
  await app.listen({ host: options.host, port: options.port });
  const url = listeningUrl(app.server, options.host, options.port);
  logger.info({ url, endpoint: options.prismic.endpoint }, `preview server listening on ${url}`);
  let ops: RunningOps | undefined;
  if (options.ops) {
    try {
      ops = await startOpsServer({
        ops: options.ops,
        logger,
        role: "preview",
        checks: previewReadiness(client),
      });
    } catch (error) {
      await app.close();
      throw error;
    }
  }
  return {
    app,
    url,
    ...(ops ? { opsUrl: ops.url } : {}),
    close: async () => {
      shutdown.abort(new ShuttingDownError("the preview server"));
      await ops?.close();
      await closeServer(app);
    },
  };
}
