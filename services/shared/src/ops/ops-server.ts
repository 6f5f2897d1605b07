import type { IncomingMessage, ServerResponse } from "node:http";
import Fastify, { type FastifyInstance, type RawServerDefault } from "fastify";
import type { OpsConfig } from "../config/index.ts";
import { closeServer } from "../http/close-server.ts";
import { listeningUrl } from "../http/listening-url.ts";
import type { Logger } from "../logger.ts";
import { collectProcessMetrics, registry } from "../metrics/registry.ts";
import { healthRoutes, OPS_PREFIX } from "./health-routes.ts";
import type { ReadinessChecks } from "./readiness.ts";

export interface OpsServerOptions {
  ops: OpsConfig;
  logger: Logger;
  /** The process's role (`site`, `webhook`, `worker`, `preview`), in the ops listener's log lines. */
  role: string;
  checks: ReadinessChecks;
  /** More routes on the same listener (the queue dashboard). */
  extend?: (app: FastifyInstance) => Promise<void>;
}

export interface RunningOps {
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>;
  url: string;
  close(): Promise<void>;
}

/**
 * The operations listener of a long-running process (OPS_HOST:OPS_PORT, 127.0.0.1 by default):
 * health, readiness and `/_pressroom/metrics`. Metrics stay off the public port: they tell an
 * outsider how busy the site is and what fails. In compose the ops port is not published, so only
 * the compose network (Prometheus) reaches it.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<RunningOps | undefined> {
  collectProcessMetrics();
  const log = options.logger.child({ listener: "ops", role: options.role });
  // Probes and scrapes every few seconds would drown the log: the listener logs warnings only.
  const quiet = log.level === "silent" ? log : log.child({}, { level: "warn" });
  const app = Fastify({ loggerInstance: quiet });
  await app.register(async (scope) => {
    healthRoutes(scope, options.checks);
    scope.get(`${OPS_PREFIX}/metrics`, async (_request, reply) =>
      reply
        .header("content-type", registry.contentType)
        .header("cache-control", "no-store")
        .send(await registry.metrics()),
    );
    if (options.extend) await options.extend(scope);
  });
  try {
    await app.listen({ host: options.ops.host, port: options.ops.port });
  } catch (error) {
    await app.close().catch(() => {});
    // A taken ops port must not stop the process from doing its work (two workers on one host
    // with the default port): it runs without metrics, saying so loudly.
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    log.error(
      { host: options.ops.host, port: options.ops.port },
      "ops listener not started: the port is taken; set OPS_PORT to a free port (0: any) or off",
    );
    return undefined;
  }
  const url = listeningUrl(app.server, options.ops.host, options.ops.port);
  log.info({ url }, `ops listener on ${url} (${OPS_PREFIX}/metrics, healthz, readyz)`);
  return { app, url, close: () => closeServer(app) };
}
