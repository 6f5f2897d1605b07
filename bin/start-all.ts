import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import type { StartConfig } from "#config";
import { startContentService } from "#local-prismic/server.ts";
import type { Logger } from "#logger";
import { startPreview } from "#preview/server.ts";
import { startSite } from "#site/server.ts";
import { startWebhook } from "#webhook/server.ts";
import { startWorker } from "#worker/worker.ts";
import { redisForStart } from "./redis-for-start.ts";
import { runBuild } from "./run-build.ts";

export interface StartAllOptions {
  rootDir: string;
  logger: Logger;
  /** When SITE_URL is not set, the site's own address (known once it listens) is the canonical origin. */
  siteUrlFromEnv: boolean;
}

/** Where the contact form's messages end up, as the start line tells a newcomer. */
function contactDestination(config: StartConfig): string {
  if (config.contact.smtpUrl)
    return `mailed to ${config.contact.to ?? "CONTACT_TO (not set!)"} through SMTP_URL`;
  if (config.contact.outbox)
    return `written to ${resolve(config.contact.outbox)} as .eml files (no SMTP_URL)`;
  return "not delivered (set SMTP_URL and CONTACT_TO, or CONTACT_OUTBOX)";
}

export interface RunningAll {
  siteUrl: string;
  contentUrl: string;
  previewUrl: string;
  /** Undefined when no Redis could be had: the site was built once, edits are not published live. */
  webhookUrl: string | undefined;
  close: () => Promise<void>;
}

/**
 * The newcomer's one command: Redis (the configured one, or a private one), the webhook receiver,
 * the local content service delivering its webhooks there, the site server, the worker (whose
 * first reconcile builds the site) and the preview server. Everything is closed in reverse order.
 */
export async function startAll(config: StartConfig, options: StartAllOptions): Promise<RunningAll> {
  const { logger } = options;
  const closers: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    const redis = await redisForStart(config.webhook.redisUrl, logger);
    if (redis?.stop) closers.push(redis.stop);
    // The content service and the receiver share a secret made for this session unless one is set.
    const secret = config.webhook.webhookSecret ?? randomBytes(24).toString("hex");
    const webhook = redis
      ? await startWebhook(
          { ...config.webhook, redisUrl: redis.url, webhookSecret: secret },
          logger.child({ process: "webhook" }),
        )
      : undefined;
    if (webhook) closers.push(webhook.close);
    const content = await startContentService(
      {
        ...config.content,
        webhookUrl: webhook ? `${webhook.url}/webhooks/prismic` : undefined,
        webhookSecret: secret,
      },
      logger.child({ process: "content" }),
    );
    closers.push(content.close);
    // The site queues contact messages on the same Redis the worker reads (the private one, if started).
    const site = await startSite(
      { ...config.site, redisUrl: redis?.url ?? config.site.redisUrl },
      logger.child({ process: "site" }),
    );
    closers.push(site.close);
    const siteUrl = options.siteUrlFromEnv ? config.site.siteUrl : site.url;
    const prismic = { ...config.prismic, endpoint: `${content.url}/api/v2` };

    if (redis) {
      const worker = await startWorker(
        {
          logLevel: config.logLevel,
          prismic,
          redisUrl: redis.url,
          queuePrefix: config.webhook.queuePrefix,
          storage: config.storage,
          siteUrl,
          contact: config.contact,
        },
        logger.child({ process: "worker" }),
        { rootDir: options.rootDir },
      );
      closers.push(worker.close);
      await worker.reconcileNow();
    } else {
      logger.warn(
        { redisUrl: config.webhook.redisUrl },
        "no Redis answered and redis-server is not installed: the site is built once and edits are not published live. Start Redis (or install redis-server, or set REDIS_URL) and run again.",
      );
      await runBuild({
        prismic,
        storage: config.storage,
        siteUrl,
        rootDir: options.rootDir,
        logger: logger.child({ process: "build" }),
      });
    }
    const preview = await startPreview(
      { ...config.preview, siteUrl, prismic },
      logger.child({ process: "preview" }),
    );
    closers.push(preview.close);
    const mail = contactDestination(config);
    logger.info(
      {
        site: site.url,
        preview: preview.url,
        content: `${content.url}/api/v2`,
        webhook: webhook?.url ?? "off",
        contact: mail,
      },
      `Pressroom is running. Open ${site.url} (preview: ${preview.url}, content API: ${content.url}/api/v2). Contact form messages: ${mail}`,
    );
    return {
      siteUrl: site.url,
      contentUrl: content.url,
      previewUrl: preview.url,
      webhookUrl: webhook?.url,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
