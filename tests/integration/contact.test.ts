import { randomUUID } from "node:crypto";
import { Queue, UnrecoverableError, Worker } from "bullmq";
import Fastify, { type FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { CONTACT_QUEUE_NAME } from "#jobs/catalog.ts";
import { createLogger } from "#logger";
import { siteApp } from "#site/app.ts";
import { type ContactQueue, createContactQueue } from "#site/contact-queue.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { contactArchiveKey, deliverContact } from "#worker/contact/deliver.ts";
import { freePort } from "../support/free-port.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
const prefix = `test-contact-${process.pid}-${Date.now()}`;
const RATE_LIMIT = 3;
const TO = "sales@example.com";
const logger = createLogger({ name: "contact-test", level: "silent", pretty: false });

let smtp: SmtpSink;
let store: SiteStore;
let contactQueue: ContactQueue;
let app: FastifyInstance;
let worker: Worker;
let redis: Redis;
let queue: Queue;

const good = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  phone: "",
  message: "Hello,\nplease send me a quote.",
  consent: true,
  website: "",
  default_country: "GB",
};

let ipCounter = 1;
/** Each test posts from its own address, so that only the rate-limit test meets the limit. */
const nextIp = () => `192.0.2.${ipCounter++}`;

function postJson(body: unknown, ip = nextIp()) {
  return app.inject({
    method: "POST",
    url: "/api/contact",
    remoteAddress: ip,
    headers: { "content-type": "application/json" },
    payload: JSON.stringify(body),
  });
}

function postForm(fields: Record<string, string>, ip = nextIp()) {
  return app.inject({
    method: "POST",
    url: "/api/contact",
    remoteAddress: ip,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      host: "www.example.com",
      referer: "http://www.example.com/contact",
    },
    payload: new URLSearchParams(fields).toString(),
  });
}

async function jobCount(): Promise<number> {
  const counts = await queue.getJobCounts();
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

const mailFor = (id: string, timeoutMs = 10_000) => smtp.waitFor(`x-pressroom-contact-id: ${id}`, timeoutMs);

beforeAll(async () => {
  smtp = await startSmtpSink();

  store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
  contactQueue = createContactQueue({
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    rateLimit: RATE_LIMIT,
    logger,
  });
  // The site server's proxy trust as a deployment behind a proxy on the private network sets it
  // (TRUST_PROXY=loopback,10.0.0.0/8), so the rate limit sees what production sees.
  app = Fastify({ trustProxy: loadConfig("site", { TRUST_PROXY: "loopback,10.0.0.0/8" }).trustProxy });
  await app.register(siteApp, { store, contact: contactQueue, manifestRefreshMs: 0 });
  await app.ready();

  redis = new Redis(REDIS_URL);
  queue = new Queue(CONTACT_QUEUE_NAME, { connection: redis, prefix });
  const ctx = {
    store,
    smtpUrl: smtp.url,
    to: TO,
    from: "Pressroom <no-reply@localhost>",
    logger,
  };
  worker = new Worker(CONTACT_QUEUE_NAME, (job) => deliverContact(ctx, job.data), {
    connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }),
    prefix,
  });
});

afterAll(async () => {
  await worker?.close();
  await app?.close();
  await contactQueue?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await removeKeysUnder(redis, prefix);
  await redis?.quit();
  await smtp?.close();
});

describe("POST /api/contact", () => {
  it("queues a JSON message (202), mails it with To/Reply-To/body, and archives it", async () => {
    const response = await postJson(good);
    expect(response.statusCode).toBe(202);
    const { id } = response.json() as { id: string };
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const mail = await mailFor(id);
    expect(mail.to).toEqual([TO]);
    expect(mail.raw).toMatch(/^Reply-To: Ada Lovelace <ada@example\.com>$/m);
    expect(mail.raw).toMatch(/^To: sales@example\.com$/m);
    expect(mail.raw).toContain("Name: Ada Lovelace");
    expect(mail.raw).toContain("please send me a quote.");
    expect(mail.raw).toContain("Phone: (not given)");

    const now = new Date().toISOString();
    const key = contactArchiveKey({ id, receivedAt: now });
    expect(key).toBe(`.pressroom/contact/${now.slice(0, 4)}/${now.slice(5, 7)}/${id}.json`);
    await expect
      .poll(async () => JSON.parse((await store.get(key))?.body.toString() ?? "{}").delivered)
      .toBeTruthy();
    const archive = JSON.parse((await store.get(key))?.body.toString() ?? "{}");
    expect(archive).toMatchObject({
      id,
      name: "Ada Lovelace",
      email: "ada@example.com",
      message: good.message,
    });

    // The site server never serves the archive.
    const served = await app.inject({ method: "GET", url: `/${key}` });
    expect(served.statusCode).toBe(404);
    expect(served.body).not.toContain("Ada");
    const encoded = await app.inject({
      method: "GET",
      url: `/%2Epressroom/contact/${key.split("/").slice(2).join("/")}`,
    });
    expect(encoded.statusCode).toBe(404);
  });

  it("normalizes a good phone to E.164 in the mail", async () => {
    const response = await postJson({ ...good, phone: "020 7946 0958" });
    expect(response.statusCode).toBe(202);
    const mail = await mailFor((response.json() as { id: string }).id);
    expect(mail.raw).toContain("Phone: +442079460958");
  });

  it("refuses a bad phone for the country with 400 naming phone", async () => {
    const response = await postJson({ ...good, phone: "12345" });
    expect(response.statusCode).toBe(400);
    const { errors } = response.json() as { errors: Record<string, string> };
    expect(Object.keys(errors)).toEqual(["phone"]);
    expect(errors.phone).toMatch(/United Kingdom/);
  });

  it("refuses CR/LF in the name with 400 and queues nothing", async () => {
    const before = await jobCount();
    const response = await postJson({ ...good, name: "Ada\r\nBcc: victim@example.com" });
    expect(response.statusCode).toBe(400);
    expect(Object.keys((response.json() as { errors: object }).errors)).toEqual(["name"]);
    expect(await jobCount()).toBe(before);
  });

  it("answers a filled honeypot with 202 and delivers nothing", async () => {
    const before = await jobCount();
    const response = await postJson({ ...good, website: "http://spam.example" });
    expect(response.statusCode).toBe(202);
    const { id } = response.json() as { id: string };
    expect(await jobCount()).toBe(before);
    await expect(mailFor(id, 500)).rejects.toThrow();
  });

  it("takes a plain form post: 303 to a thank-you page that links back", async () => {
    const response = await postForm({ ...good, consent: "on", phone: "+1 201 555 0123" });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe("/api/contact/sent?back=%2Fcontact");
    const page = await app.inject({ method: "GET", url: response.headers.location as string });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.body).toContain("Thank you");
    expect(page.body).toContain('href="/contact"');
    expect(page.body).not.toContain("<script");
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    await expect
      .poll(() => smtp.mail.some((m) => m.raw.includes("Phone: +12015550123")), { timeout: 10_000 })
      .toBe(true);
  });

  it("answers a form post with errors by an HTML page listing them", async () => {
    const response = await postForm({ ...good, consent: "", email: "nope" });
    expect(response.statusCode).toBe(400);
    expect(response.headers["content-type"]).toContain("text/html");
    expect(response.body).toContain("<strong>Email:</strong>");
    expect(response.body).toContain("<strong>Consent:</strong>");
    expect(response.body).toContain('href="/contact"');
  });

  it("rate-limits per client IP: 429 with Retry-After after the limit", async () => {
    const ip = "198.51.100.7";
    for (let i = 0; i < RATE_LIMIT; i++) expect((await postJson(good, ip)).statusCode).toBe(202);
    const limited = await postJson(good, ip);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(600);
    expect(await redis.ttl(`${prefix}:contact-rate:${ip}`)).toBeGreaterThan(0);
    expect((await postJson(good)).statusCode).toBe(202);
  });

  it("counts a direct client by its own address, whatever X-Forwarded-For it sends", async () => {
    const direct = "203.0.113.77";
    const post = (forwardedFor: string) =>
      app.inject({
        method: "POST",
        url: "/api/contact",
        remoteAddress: direct,
        headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
        payload: JSON.stringify(good),
      });
    for (let i = 0; i < RATE_LIMIT; i++) expect((await post(`192.0.2.${200 + i}`)).statusCode).toBe(202);
    expect((await post("192.0.2.250")).statusCode).toBe(429);
    expect(await redis.exists(`${prefix}:contact-rate:${direct}`)).toBe(1);
    // Behind a proxy on the private network, the forwarded address is the client's.
    const viaProxy = await app.inject({
      method: "POST",
      url: "/api/contact",
      remoteAddress: "10.0.0.5",
      headers: { "content-type": "application/json", "x-forwarded-for": "198.51.100.99" },
      payload: JSON.stringify(good),
    });
    expect(viaProxy.statusCode).toBe(202);
    expect(await redis.exists(`${prefix}:contact-rate:198.51.100.99`)).toBe(1);
  });

  it("by default believes no proxy but this machine's: Docker's bridge gateway cannot name its visitors", async () => {
    // TRUST_PROXY unset, as `docker compose up` runs the site server: a visitor reaching the published
    // port appears from the bridge gateway (172.17.0.1), a private address, and sends what it likes.
    const fresh = Fastify({ trustProxy: loadConfig("site", {}).trustProxy });
    await fresh.register(siteApp, { store, contact: contactQueue, manifestRefreshMs: 0 });
    try {
      const gateway = "172.17.0.1";
      const post = (forwardedFor: string, remoteAddress = gateway) =>
        fresh.inject({
          method: "POST",
          url: "/api/contact",
          remoteAddress,
          headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
          payload: JSON.stringify(good),
        });
      for (let i = 0; i < RATE_LIMIT; i++) expect((await post(`198.51.100.${10 + i}`)).statusCode).toBe(202);
      // A new address each time changes nothing: the limit counts the gateway.
      expect((await post("198.51.100.60")).statusCode).toBe(429);
      expect(await redis.exists(`${prefix}:contact-rate:${gateway}`)).toBe(1);
      expect(await redis.exists(`${prefix}:contact-rate:198.51.100.10`)).toBe(0);
      // A proxy on this machine (a TLS proxy beside the server) is believed.
      expect((await post("198.51.100.61", "127.0.0.1")).statusCode).toBe(202);
      expect(await redis.exists(`${prefix}:contact-rate:198.51.100.61`)).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it("counts one client under one key however its address is spelled, and IPv6 per /64", async () => {
    const via = (forwardedFor: string) =>
      app.inject({
        method: "POST",
        url: "/api/contact",
        remoteAddress: "10.0.0.5",
        headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
        payload: JSON.stringify(good),
      });
    const spellings = [
      "198.51.100.44",
      "::ffff:198.51.100.44",
      "[::ffff:198.51.100.44]:443",
      "198.51.100.44:9",
    ];
    for (let i = 0; i < RATE_LIMIT; i++) expect((await via(spellings[i % 4] as string)).statusCode).toBe(202);
    for (const spelling of spellings) expect((await via(spelling)).statusCode).toBe(429);
    for (let i = 0; i < RATE_LIMIT; i++) expect((await via(`2001:db8:7:7::${i + 1}`)).statusCode).toBe(202);
    expect((await via("2001:db8:7:7:ffff::99")).statusCode).toBe(429);
    expect((await via("2001:db8:7:8::1")).statusCode).toBe(202);
    const keys = await redis.keys(`${prefix}:contact-rate:*`);
    expect(keys).toContain(`${prefix}:contact-rate:198.51.100.44`);
    expect(keys).toContain(`${prefix}:contact-rate:2001:db8:7:7::/64`);
    expect(keys.filter((key) => key.includes("ffff") || key.includes("["))).toEqual([]);
  });

  it("refuses a forwarded value that is no IP address instead of making it a Redis key", async () => {
    const before = new Set(await redis.keys(`${prefix}:contact-rate:*`));
    for (const forwardedFor of ["hello", "x".repeat(300), "*", "unknown"]) {
      const response = await app.inject({
        method: "POST",
        url: "/api/contact",
        remoteAddress: "10.0.0.5",
        headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
        payload: JSON.stringify(good),
      });
      expect(response.statusCode, forwardedFor.slice(0, 20)).toBe(400);
      expect(response.body).not.toContain(forwardedFor.slice(0, 20));
    }
    const after = await redis.keys(`${prefix}:contact-rate:*`);
    expect(after.filter((key) => !before.has(key))).toEqual([]);
  });

  it("refuses a body over 32 KiB with 413", async () => {
    const response = await postJson({ ...good, message: "x".repeat(40 * 1024) });
    expect(response.statusCode).toBe(413);
    const form = await postForm({ ...good, consent: "on", message: "x".repeat(40 * 1024) });
    expect(form.statusCode).toBe(413);
    expect(form.headers["content-type"]).toContain("text/html");
  });

  it("answers 503 when Redis is down", async () => {
    const down = createContactQueue({
      redisUrl: `redis://127.0.0.1:${await freePort()}`,
      queuePrefix: prefix,
      rateLimit: RATE_LIMIT,
      logger,
    });
    const other = Fastify();
    await other.register(siteApp, { store, contact: down });
    try {
      const started = Date.now();
      const response = await other.inject({
        method: "POST",
        url: "/api/contact",
        headers: { "content-type": "application/json" },
        payload: JSON.stringify(good),
      });
      expect(response.statusCode).toBe(503);
      expect(response.headers["retry-after"]).toBe("30");
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await other.close();
      await down.close();
    }
  });
});

describe("deliverContact", () => {
  const payload = () => ({
    id: randomUUID(),
    name: "Grace Hopper",
    email: "grace@example.com",
    phone: null,
    message: "Hi",
    receivedAt: new Date().toISOString(),
  });

  it("archives, then fails unrecoverably naming SMTP_URL when SMTP is not configured", async () => {
    const job = payload();
    const ctx = { store, smtpUrl: undefined, to: TO, from: "x@example.com", logger };
    const failure = deliverContact(ctx, job);
    await expect(failure).rejects.toBeInstanceOf(UnrecoverableError);
    await expect(failure).rejects.toThrow(/SMTP_URL/);
    expect(await store.head(contactArchiveKey(job))).toBeDefined();
  });

  it("does not mail a message twice when a retry finds it delivered", async () => {
    const job = payload();
    const ctx = { store, smtpUrl: smtp.url, to: TO, from: "x@example.com", logger };
    const first = await deliverContact(ctx, job);
    const again = await deliverContact(ctx, job);
    expect(again).toEqual(first);
    expect(smtp.mail.filter((m) => m.raw.toLowerCase().includes(job.id)).length).toBe(1);
  });

  it("refuses a payload with a line break in the name as unrecoverable", async () => {
    const ctx = { store, smtpUrl: "smtp://127.0.0.1:1", to: TO, from: "x@example.com", logger };
    await expect(deliverContact(ctx, { ...payload(), name: "a\nBcc: b@c.de" })).rejects.toBeInstanceOf(
      UnrecoverableError,
    );
  });
});
