import { resolve } from "node:path";
import type { Job } from "bullmq";
import type { Redis } from "ioredis";
import type { PublisherConfig } from "#config";
import type { Logger } from "#logger";
import type { SiteStore } from "#storage";
import { deliverContact } from "../contact/deliver.ts";
import { recordingDelivery } from "../contact/record-delivery.ts";

/**
 * A `contact` job: one visitor's message archived, then mailed (or written to the outbox), its
 * undelivered record kept in step. Not under the publish lock, and on its own queue: a message never
 * waits for a publish.
 */
export function deliverContactJob(
  deps: { config: PublisherConfig; redis: Redis; store: SiteStore },
  job: Job,
  log: Logger,
): Promise<unknown> {
  const contact = deps.config.contact;
  return recordingDelivery(deps.redis, deps.config.queuePrefix, job, log, () =>
    deliverContact(
      {
        store: deps.store,
        smtpUrl: contact?.smtpUrl,
        outbox: contact?.outbox,
        to: contact?.to,
        from: contact?.from ?? "Pressroom <no-reply@localhost>",
        logger: log,
      },
      job.data,
    ),
  );
}

/** Says once, at start, where contact messages go: a mail server, the outbox folder, or nowhere yet. */
export function logContactDelivery(config: PublisherConfig, logger: Logger): void {
  const contact = config.contact;
  if (contact?.smtpUrl) logger.info({ to: contact.to }, "contact messages are mailed through SMTP_URL");
  else if (contact?.outbox)
    logger.info(
      { outbox: resolve(contact.outbox) },
      `contact messages are written to ${resolve(contact.outbox)} (no SMTP_URL)`,
    );
  else
    logger.warn(
      "contact messages cannot be delivered: set SMTP_URL and CONTACT_TO (or CONTACT_OUTBOX); they are archived and listed by pressroom status",
    );
}
