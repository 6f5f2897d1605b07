import type { OpsConfig, WebhookConfig } from "#config";
import type { Logger } from "#logger";
import { watchQueues } from "#metrics/queue-metrics.ts";
import { openOpsQueues } from "#ops/ops-queues.ts";
import { startOpsServer } from "#ops/ops-server.ts";
import { QUEUES_PATH, queuesDashboard } from "#ops/queues-dashboard.ts";
import type { PublishEnqueuer } from "./enqueue.ts";

export interface WebhookOps {
  url: string;
  close(): Promise<void>;
}

/**
 * The receiver's ops listener: health, metrics (with the queues' depth and age), and Bull Board
 * at `/_pressroom/queues` when QUEUES_PASSWORD is set. The receiver hosts the dashboard because it
 * is the one process every deployment runs once, next to the queues.
 */
export async function startWebhookOps(
  config: Pick<WebhookConfig, "redisUrl" | "queuePrefix" | "queues">,
  ops: OpsConfig,
  logger: Logger,
  enqueuer: PublishEnqueuer,
): Promise<WebhookOps | undefined> {
  const opened = openOpsQueues(config.redisUrl, config.queuePrefix);
  const unwatch = watchQueues(opened.queues);
  const { queues: auth } = config;
  try {
    const server = await startOpsServer({
      ops,
      logger,
      role: "webhook",
      checks: { redis: () => enqueuer.ping() },
      ...(auth ? { extend: (app) => queuesDashboard(app, { queues: opened.queues, auth }) } : {}),
    });
    if (!server) {
      unwatch();
      await opened.close();
      return undefined;
    }
    if (auth) logger.info({ url: `${server.url}${QUEUES_PATH}` }, "queue dashboard on the ops listener");
    return {
      url: server.url,
      async close() {
        await server.close();
        unwatch();
        await opened.close();
      },
    };
  } catch (error) {
    unwatch();
    await opened.close();
    throw error;
  }
}
