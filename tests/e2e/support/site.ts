import { Queue, Worker } from "bullmq";
import Fastify, { type FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { pino } from "pino";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { CONTACT_QUEUE_NAME } from "#jobs/catalog.ts";
import { siteApp } from "#site/app.ts";
import { type ContactQueue, createContactQueue } from "#site/contact-queue.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { type BuildSummary, fullBuild } from "#worker/build/full-build.ts";
import { deliverContact } from "#worker/contact/deliver.ts";
import { localContentClient } from "../../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../../support/local-prismic.ts";
import { removeKeysUnder } from "../../support/redis-keys.ts";
import { type Mail, startSmtpSink } from "../../support/smtp-sink.ts";
import { tempDir } from "../../support/temp-dir.ts";
import { releaseChromium, sharedChromium } from "./browser.ts";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export type { Mail };

/**
 * The demo site as a visitor meets it: the local content service, a full build into a folder, the
 * real site server on a free port with the contact API, a BullMQ worker delivering contact jobs,
 * and a real SMTP server catching the mail. Everything is torn down by `stop()`.
 */
export interface SiteFixture {
  /** e.g. `http://127.0.0.1:41234` */
  url: string;
  content: LocalPrismic;
  store: SiteStore;
  build: BuildSummary;
  /** Mail the SMTP server received, in order. */
  mail: Mail[];
  /** Waits until a received mail contains `text` (case-insensitive). */
  waitForMail(text: string, timeoutMs?: number): Promise<Mail>;
  /**
   * Another site server over the same storage, its contact queue on `contactRedisUrl` (e.g. a port
   * nothing listens on, to meet the contact API with Redis down). Closed by `stop()` too.
   */
  serveAgain(options: { contactRedisUrl: string }): Promise<string>;
  /** Upserts `documents` through the local service's edit API (`POST /admin/publish`) and rebuilds the site. */
  publishAndRebuild(documents: unknown[]): Promise<void>;
  stop(): Promise<void>;
}

export const CONTACT_TO = "sales@example.com";

export async function startSite(options: { rateLimit?: number } = {}): Promise<SiteFixture> {
  const content = await startLocalPrismic();
  const dir = await tempDir("site");
  const store = createSiteStore({ url: `file://${dir.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
  const client = localContentClient(content.endpoint);

  const siteUrl = "http://127.0.0.1";
  const rebuild = () => fullBuild({ client, store, siteUrl, logger, renderThreads: 0 });
  const build = await rebuild();

  const smtp = await startSmtpSink();

  const prefix = `test-e2e-${process.pid}-${Date.now()}`;
  const contact: ContactQueue = createContactQueue({
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    rateLimit: options.rateLimit ?? 100,
    logger,
  });
  const worker = new Worker(
    CONTACT_QUEUE_NAME,
    (job) =>
      deliverContact(
        {
          store,
          smtpUrl: smtp.url,
          to: CONTACT_TO,
          from: "Pressroom <no-reply@localhost>",
          logger,
        },
        job.data,
      ),
    { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix },
  );
  const others: { app: FastifyInstance; contact: ContactQueue }[] = [];
  const serve = async (queue: ContactQueue) => {
    const server = Fastify();
    await server.register(siteApp, { store, contact: queue, manifestRefreshMs: 0 });
    return { server, url: await server.listen({ host: "127.0.0.1", port: 0 }) };
  };
  const { server: app, url } = await serve(contact);

  return {
    url,
    content,
    store,
    build,
    mail: smtp.mail,
    waitForMail: (text, timeoutMs) => smtp.waitFor(text, timeoutMs),
    async serveAgain({ contactRedisUrl }) {
      const queue = createContactQueue({
        redisUrl: contactRedisUrl,
        queuePrefix: prefix,
        rateLimit: 100,
        logger,
      });
      const other = await serve(queue);
      others.push({ app: other.server, contact: queue });
      return other.url;
    },
    async publishAndRebuild(documents) {
      const response = await fetch(`${content.url}/admin/publish`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ upsert: documents }),
      });
      if (!response.ok) throw new Error(`publish failed: ${response.status} ${await response.text()}`);
      await rebuild();
    },
    async stop() {
      for (const other of others) {
        await other.app.close();
        await other.contact.close();
      }
      await app.close();
      await worker.close();
      await contact.close();
      const redis = new Redis(REDIS_URL);
      const queue = new Queue(CONTACT_QUEUE_NAME, { connection: redis, prefix });
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await removeKeysUnder(redis, prefix);
      await redis.quit();
      await smtp.close();
      await content.stop();
      await dir.remove();
    },
  };
}

/**
 * The suite's hooks: before its tests, starts the site (`startSite(options)`), takes the shared
 * Chromium (`sharedChromium()`) and hands both to `started`; after them, closes every browser
 * context the suite left open and stops the site.
 */
export function siteInBrowser(
  options: Parameters<typeof startSite>[0],
  started: (fixture: { site: SiteFixture; browser: Browser }) => void | Promise<void>,
): void {
  let site: SiteFixture | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    site = await startSite(options);
    browser = await sharedChromium();
    await started({ site, browser });
  }, 120_000);
  afterAll(async () => {
    if (browser) await releaseChromium(browser);
    await site?.stop();
  }, 60_000);
}
