import { UnrecoverableError } from "bullmq";
import { createTransport } from "nodemailer";
import { contactArchiveKey } from "#contact/contact-archive.ts";
import { type JobPayload, jobCatalog } from "#jobs/catalog.ts";
import type { Logger } from "#logger";
import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { type SiteStore, sha256 } from "#storage";
import { writeToOutbox } from "./outbox.ts";

export type ContactPayload = JobPayload<"contact">;

export interface DeliverContactContext {
  store: SiteStore;
  /** SMTP_URL; unset (and no outbox) fails the job as unrecoverable (the archive keeps the message). */
  smtpUrl: string | undefined;
  /** CONTACT_OUTBOX: a folder of `.eml` files, used when SMTP_URL is unset (outbox.ts). */
  outbox?: string | undefined;
  /** CONTACT_TO. */
  to: string | undefined;
  /** CONTACT_FROM, e.g. `Pressroom <no-reply@example.com>`. */
  from: string;
  logger: Logger;
}

/** What is stored per message; `delivered` is added once the SMTP server accepted the mail (or the outbox has it). */
export interface ContactArchive extends ContactPayload {
  delivered?: { at: string; messageId: string; outbox?: string };
}

/** The recipient of an outbox message when CONTACT_TO is not set (nobody is mailed). */
const OUTBOX_TO = "contact@localhost";

export { contactArchiveKey };

/**
 * The `contact` job: archive, then mail. Archiving first means an SMTP outage (or no SMTP at all)
 * loses nothing; the key is the message id, so a retry finds its archive instead of writing a
 * second one, and a message the archive marks delivered is not mailed again. (A crash between the
 * SMTP server's "250 OK" and the archive's update can still send it twice: at-least-once.)
 */
export async function deliverContact(
  ctx: DeliverContactContext,
  input: unknown,
): Promise<{ id: string; messageId: string }> {
  const parsed = jobCatalog.contact.schema.safeParse(input);
  // A payload that fails its schema will fail it on every attempt too.
  if (!parsed.success)
    throw new UnrecoverableError(`contact job payload is invalid: ${parsed.error.message}`);
  const payload = parsed.data;
  const log = ctx.logger.child({ contactId: payload.id });
  const key = contactArchiveKey(payload);

  const existing = await readArchive(ctx.store, key);
  if (existing?.delivered) {
    log.info({ archive: key }, "contact message was already delivered; not sending it again");
    return { id: payload.id, messageId: existing.delivered.messageId };
  }
  if (!existing) await writeArchive(ctx.store, key, payload);

  if (!ctx.smtpUrl && !ctx.outbox)
    throw new UnrecoverableError(
      `SMTP_URL is not set: contact message ${payload.id} is archived at ${key} but was not mailed. Set SMTP_URL (e.g. smtp://user:pass@mail.example.com:587) and CONTACT_TO on the worker, or CONTACT_OUTBOX to a folder for the messages.`,
    );
  if (ctx.smtpUrl && !ctx.to)
    throw new UnrecoverableError(
      `CONTACT_TO is not set: contact message ${payload.id} is archived at ${key} but was not mailed. Set CONTACT_TO to the address that receives contact messages.`,
    );
  const mail = {
    from: ctx.from,
    to: ctx.to ?? OUTBOX_TO,
    // Structured, never a string we assembled: nodemailer encodes the name as a header word.
    replyTo: { name: payload.name, address: payload.email },
    subject: `Contact form: ${payload.name}`,
    text: mailText(payload),
    headers: { "X-Pressroom-Contact-Id": payload.id },
  };

  if (!ctx.smtpUrl) {
    const { file, messageId } = await writeToOutbox(ctx.outbox as string, payload, mail);
    await writeArchive(ctx.store, key, {
      ...payload,
      delivered: { at: new Date().toISOString(), messageId, outbox: file },
    });
    log.info({ archive: key, messageId, outbox: file }, "contact message written to the outbox");
    return { id: payload.id, messageId };
  }

  const transport = createTransport({
    url: ctx.smtpUrl,
    // Fail an attempt in seconds, not nodemailer's minutes: BullMQ's backoff does the waiting.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  try {
    const info = await transport.sendMail(mail);
    const messageId = String(info.messageId ?? "");
    await writeArchive(ctx.store, key, {
      ...payload,
      delivered: { at: new Date().toISOString(), messageId },
    });
    // Ids and the server's answer only: the message and the visitor's details stay out of logs.
    log.info({ archive: key, messageId, response: info.response }, "contact message delivered");
    return { id: payload.id, messageId };
  } finally {
    transport.close();
  }
}

export function mailText(payload: ContactPayload): string {
  return [
    `Name: ${payload.name}`,
    `Email: ${payload.email}`,
    `Phone: ${payload.phone ?? "(not given)"}`,
    `Received: ${payload.receivedAt}`,
    `Id: ${payload.id}`,
    "",
    payload.message,
    "",
  ].join("\n");
}

export async function readArchive(store: SiteStore, key: string): Promise<ContactArchive | undefined> {
  const object = await store.get(key);
  if (!object) return undefined;
  try {
    return JSON.parse(object.body.toString("utf8")) as ContactArchive;
  } catch {
    // Unreadable (a torn write on a folder store): rewrite it from the job's payload.
    return undefined;
  }
}

async function writeArchive(store: SiteStore, key: string, archive: ContactArchive): Promise<void> {
  const body = `${JSON.stringify(archive, null, 2)}\n`;
  await store.put(key, body, {
    contentType: "application/json",
    cacheControl: CACHE_CONTROL.metadata,
    contentHash: sha256(body),
  });
}
