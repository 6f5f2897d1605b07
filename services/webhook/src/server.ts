import type { IncomingMessage, ServerResponse } from "node:http";
import Fastify, { type FastifyInstance, type RawServerDefault } from "fastify";
import type { WebhookConfig } from "#config";
import { closeServer } from "#http/close-server.ts";
import { BARE_SECURITY_HEADERS, edgeErrorOptions } from "#http/edge-errors.ts";
// Request ids unique across restarts and replicas: an error page shows one to find its log line.
import { newRequestId } from "#http/error-pages.ts";
import { refuseInvalidHost } from "#http/host-header.ts";
import { listeningUrl } from "#http/listening-url.ts";
import { quietRequests } from "#http/request-log.ts";
import { type Logger, REDACTED_PATHS } from "#logger";
import { WEBHOOK_AJV_OPTIONS, WEBHOOK_REDACT_PATHS, webhookApp } from "./app.ts";
import { createPublishEnqueuer, type PublishEnqueuer } from "./enqueue.ts";
import { startWebhookOps, type WebhookOps } from "./webhook-ops.ts";

export interface RunningWebhook {
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>;
  url: string;
  /** The operations listener (metrics, health, queue dashboard), when configured. */
  opsUrl?: string;
  close(): Promise<void>;
}

/**
 * The logger with the body's secret redacted too. Fastify never logs bodies, but a request or
 * body object handed to a log call must not carry the secret either. A child's `redact` replaces
 * the parent's, hence the shared paths again.
 */
export function webhookLogger(logger: Logger): Logger {
  return logger.child(
    {},
    { redact: { paths: [...REDACTED_PATHS, ...WEBHOOK_REDACT_PATHS], censor: "[redacted]" } },
  );
}

/** `pressroom serve webhook`: listens on HOST:PORT (default 4102) and queues publishes in Redis. */
export async function startWebhook(
  config: WebhookConfig,
  logger: Logger,
  enqueuer: PublishEnqueuer = createPublishEnqueuer({
    redisUrl: config.redisUrl,
    queuePrefix: config.queuePrefix,
    logger,
  }),
): Promise<RunningWebhook> {
  const log = webhookLogger(logger);
  // Fastify's "incoming request" and "request completed" lines are replaced by one line per
  // request, written by the app with what happened (app.ts).
  const app = Fastify({
    loggerInstance: log,
    trustProxy: true,
    ajv: WEBHOOK_AJV_OPTIONS,
    genReqId: newRequestId,
    ...quietRequests(),
    ...edgeErrorOptions(BARE_SECURITY_HEADERS),
  });
  app.addHook("onSend", async (_request, reply) => {
    reply.headers(BARE_SECURITY_HEADERS);
  });
  app.addHook("onRequest", refuseInvalidHost(BARE_SECURITY_HEADERS));
  try {
    await app.register(webhookApp, {
      secret: config.webhookSecret,
      repository: config.repository,
      enqueue: enqueuer,
    });
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app.close().catch(() => {});
    await enqueuer.close().catch(() => {});
    throw error;
  }
  const url = listeningUrl(app.server, config.host, config.port);
  log.info({ url, repository: config.repository }, `webhook receiver listening on ${url}`);
  let ops: WebhookOps | undefined;
  if (config.ops) {
    try {
      ops = await startWebhookOps(config, config.ops, log, enqueuer);
    } catch (error) {
      await app.close();
      await enqueuer.close().catch(() => {});
      throw error;
    }
  }
  return {
    app,
    url,
    ...(ops ? { opsUrl: ops.url } : {}),
    // HTTP first, so in-flight deliveries finish enqueueing; then the queue and its Redis connection.
    close: async () => {
      await ops?.close();
      await closeServer(app);
      await enqueuer.close();
    },
  };
}
