import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { readUndelivered } from "#contact/undelivered.ts";
import { CONTACT_QUEUE_NAME, jobCatalog } from "#jobs/catalog.ts";
import { createLogger } from "#logger";
import { watchContactDelivery } from "#metrics/contact-metrics.ts";
import { registry } from "#metrics/registry.ts";
import { createSiteStore, type SiteStore } from "#storage";
import {
  contactArchiveKey,
  type DeliverContactContext,
  deliverContact,
  readArchive,
} from "#worker/contact/deliver.ts";
import { recordingDelivery } from "#worker/contact/record-delivery.ts";
import { statusCommand } from "#worker/inspect.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";

/**
 * Where a contact message goes when there is no mail server: the embedded default
 * (`pressroom start`) writes it to a local outbox an operator can open, and a message that could
 * not be delivered is never silent: `pressroom status` lists it, and the worker's metrics count it
 * (pressroom_contact_undelivered_messages, the alert in docs/operations.md). Real Redis and BullMQ,
 * a real SMTP server, the worker's own delivery path (recordingDelivery around deliverContact).
 */
const REDIS_URL = "redis://127.0.0.1:6379";
const prefix = `test-contact-delivery-${process.pid}-${Date.now()}`;
const logger = createLogger({ name: "contact-delivery-test", level: "silent", pretty: false });

let redis: Redis;
let queue: Queue;
let store: SiteStore;
let smtp: SmtpSink;
let outbox: { path: string; remove: () => Promise<void> };
/** What the test's worker delivers with; each test sets it (as a worker's configuration would be). */
let ctx: DeliverContactContext;
let worker: Worker;

const message = () => ({
  id: randomUUID(),
  name: "Grace Hopper",
  email: "grace@example.com",
  phone: "+15035550142",
  message: "Could we talk about a new site?\nThanks.",
  receivedAt: new Date().toISOString(),
});

/** Queues a message as the site server does (the catalog's attempts and backoff, unless told). */
async function send(payload = message(), options: { attempts?: number; backoffMs?: number } = {}) {
  const spec = jobCatalog.contact;
  await queue.add("contact", payload, {
    jobId: spec.jobId(payload),
    attempts: options.attempts ?? spec.attempts,
    backoff: options.backoffMs ? { type: "fixed", delay: options.backoffMs } : { ...spec.backoff },
  });
  return payload;
}

const undelivered = () => readUndelivered(redis, prefix);
const metricsText = () => registry.metrics();

beforeAll(async () => {
  redis = new Redis(REDIS_URL);
  queue = new Queue(CONTACT_QUEUE_NAME, { connection: redis, prefix });
  store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
  smtp = await startSmtpSink();
  outbox = await tempDir("outbox");
  ctx = { store, smtpUrl: undefined, to: undefined, from: "Pressroom <no-reply@localhost>", logger };
  // The worker's composition (worker/src/worker.ts): the delivery, recorded.
  worker = new Worker(
    CONTACT_QUEUE_NAME,
    (job) => recordingDelivery(redis, prefix, job, logger, () => deliverContact(ctx, job.data)),
    { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix },
  );
});

afterAll(async () => {
  await worker?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await removeKeysUnder(redis, prefix);
  await redis?.quit();
  await smtp?.close();
  await outbox?.remove();
});

describe("contact messages without a mail server", () => {
  it("the embedded default writes each message to the outbox as an .eml file and archives it as delivered", async () => {
    ctx = { ...ctx, smtpUrl: undefined, outbox: outbox.path, to: undefined };
    const sent = await send();
    const archive = await until("the message to be archived as delivered", async () => {
      const found = await readArchive(store, contactArchiveKey(sent));
      return found?.delivered !== undefined ? found : undefined;
    });
    const files = (await readdir(outbox.path)).filter((name) => name.endsWith(".eml"));
    expect(files).toEqual([expect.stringMatching(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT.*-${sent.id}\\.eml$`))]);
    const eml = await readFile(join(outbox.path, files[0] as string), "utf8");
    // The mail the SMTP server would have had: sender, reply to the visitor, subject, id, the message.
    expect(eml).toMatch(/^From: Pressroom <no-reply@localhost>$/m);
    expect(eml).toMatch(/^To: contact@localhost$/m);
    expect(eml).toMatch(/^Reply-To: Grace Hopper <grace@example\.com>$/m);
    expect(eml).toMatch(/^Subject: Contact form: Grace Hopper$/m);
    expect(eml).toMatch(new RegExp(`^X-Pressroom-Contact-Id: ${sent.id}$`, "im"));
    expect(eml).toContain("Phone: +15035550142");
    expect(eml).toContain("Could we talk about a new site?");
    expect(archive?.delivered?.outbox).toBe(join(outbox.path, files[0] as string));
    expect(await undelivered()).toEqual([]);
  });

  it("with neither a mail server nor an outbox: undelivered, given up, shown by pressroom status and the metrics", async () => {
    ctx = { ...ctx, smtpUrl: undefined, outbox: undefined };
    const sent = await send();
    const [stuck] = await until("the message in the undelivered list", async () => {
      const list = await undelivered();
      return list.some((m) => m.id === sent.id) ? list : undefined;
    });
    expect(stuck).toMatchObject({ id: sent.id, receivedAt: sent.receivedAt, attempts: 1, givenUp: true });
    expect(stuck?.error).toMatch(/SMTP_URL is not set/);
    // Still archived: nothing accepted is lost.
    expect(await store.head(contactArchiveKey(sent))).toBeDefined();

    const config = {
      ...loadConfig("publisher", {
        PRISMIC_ENDPOINT: "http://127.0.0.1:1/api/v2",
        PRISMIC_TIMEOUT_MS: "500",
      }),
      redisUrl: REDIS_URL,
      queuePrefix: prefix,
    };
    const status = await statusCommand(config);
    expect(status).toMatch(
      /^undelivered contact: 1 \(each is archived under \.pressroom\/contact\/ in storage\):$/m,
    );
    expect(status).toContain(
      `  ${sent.id}  received ${sent.receivedAt}, 1 attempt, given up: SMTP_URL is not set`,
    );

    const unwatch = watchContactDelivery(redis, prefix);
    try {
      const text = await metricsText();
      expect(text).toMatch(/^pressroom_contact_undelivered_messages\{state="given_up"\} 1$/m);
      expect(text).toMatch(/^pressroom_contact_undelivered_messages\{state="retrying"\} 0$/m);
      const oldest = Number(/^pressroom_contact_oldest_undelivered_seconds (\S+)$/m.exec(text)?.[1]);
      expect(oldest).toBeGreaterThan(0);
    } finally {
      unwatch();
    }
    await redis.hdel(`${prefix}:contact-undelivered`, sent.id);
  });

  it("a mail server that refuses: retrying while it does, off the list once the mail is accepted", async () => {
    ctx = { ...ctx, smtpUrl: "smtp://127.0.0.1:1", to: "sales@example.com", outbox: outbox.path };
    const sent = await send(message(), { attempts: 5, backoffMs: 300 });
    const [retrying] = await until("the message in the undelivered list", async () => {
      const list = await undelivered();
      return list.some((m) => m.id === sent.id) ? list : undefined;
    });
    expect(retrying).toMatchObject({ id: sent.id, attempts: 1, givenUp: false });
    // The SMTP server comes back (the outbox is not used while SMTP_URL is set).
    ctx = { ...ctx, smtpUrl: smtp.url };
    await smtp.waitFor(`x-pressroom-contact-id: ${sent.id}`, 10_000);
    await until("the message gone from the undelivered list", async () =>
      (await undelivered()).every((m) => m.id !== sent.id),
    );
    expect((await readdir(outbox.path)).filter((name) => name.includes(sent.id))).toEqual([]);
  });
});
