/**
 * The site server's readiness while the contact form's Redis is gone: a load balancer (or compose's
 * health check, infra/healthcheck.mjs) following `/_pressroom/readyz` must keep serving the static
 * site. A real `redis-server` on its own port is killed: readyz stays 200 and says `degraded`
 * with the contact queue `failed`, pages are served, the form answers 503, the metric
 * `pressroom_contact_queue_up{queue="pressroom-contact"}` is 0; Redis back, all is `ok` again.
 * Storage stays required: without it nothing can be served, and readyz answers 503.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { type RunningSite, startSite } from "#site/server.ts";
import { sha256 } from "#storage";
import { createMemoryStore } from "#storage/memory-store.ts";
import { type OwnRedis, startOwnRedis } from "../support/own-redis.ts";

const HEALTHCHECK = new URL("../../infra/healthcheck.mjs", import.meta.url).pathname;
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

let redis: OwnRedis;
let site: RunningSite;

beforeAll(async () => {
  redis = await startOwnRedis();
  const store = createMemoryStore();
  const page = "<h1>Home</h1>";
  await store.put("index.html", page, {
    contentType: "text/html; charset=utf-8",
    cacheControl: CACHE_CONTROL.html,
    contentHash: sha256(page),
  });
  site = await startSite(
    {
      host: "127.0.0.1",
      port: 0,
      logLevel: "silent",
      storage: { url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" },
      siteUrl: "https://www.example.com",
      redisUrl: redis.url,
      queuePrefix: `test-site-readiness-${process.pid}`,
      contactRateLimit: 5,
      trustProxy: false,
      ops: { host: "127.0.0.1", port: 0 },
    },
    logger,
    store,
  );
}, 30_000);

afterAll(async () => {
  await site?.close();
  await redis?.stop();
});

const readyz = async (base: string) => {
  const answer = await fetch(`${base}/_pressroom/readyz`);
  return { status: answer.status, body: await answer.json() };
};
/** Compose's and the image's HEALTHCHECK, as they run it: its exit code. */
const healthcheck = async (url: string) => {
  const child = spawn(process.execPath, [HEALTHCHECK, url], { stdio: "ignore" });
  const [code] = await once(child, "exit");
  return code as number;
};
const contactQueueUp = async () => {
  const text = await (await fetch(`${site.opsUrl}/_pressroom/metrics`)).text();
  return /^pressroom_contact_queue_up\{queue="pressroom-contact"\} (\d+)$/m.exec(text)?.[1];
};
const post = () =>
  fetch(`${site.url}/api/contact`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      name: "Ada Lovelace",
      email: "ada@example.com",
      message: "Hello,\nplease send me a quote.",
      consent: true,
    }),
  });

describe("the site server's readiness without the contact form's Redis", () => {
  it("is ok with Redis", async () => {
    for (const base of [site.url, site.opsUrl as string])
      expect(await readyz(base)).toEqual({
        status: 200,
        body: { status: "ok", checks: { storage: "ok", "contact-queue": "ok" } },
      });
    expect(await contactQueueUp()).toBe("1");
  });

  it("stays ready (degraded) with Redis killed: pages served, the form 503, the metric 0", async () => {
    await redis.kill();
    for (const base of [site.url, site.opsUrl as string])
      expect(await readyz(base)).toEqual({
        status: 200,
        body: { status: "degraded", checks: { storage: "ok", "contact-queue": "failed" } },
      });
    expect(await healthcheck(`${site.opsUrl}/_pressroom/readyz`)).toBe(0);
    const home = await fetch(`${site.url}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toBe("<h1>Home</h1>");
    expect((await post()).status).toBe(503);
    expect(await contactQueueUp()).toBe("0");
  }, 30_000);

  it("is ok again once Redis is back, without a restart", async () => {
    await redis.restart();
    await vi.waitFor(async () => expect((await readyz(site.url)).body.checks["contact-queue"]).toBe("ok"), {
      timeout: 10_000,
      interval: 200,
    });
    expect((await readyz(site.opsUrl as string)).body.status).toBe("ok");
    expect(await contactQueueUp()).toBe("1");
  }, 30_000);

  it("is unavailable (503) when storage fails, whatever Redis does", async () => {
    const broken = Object.assign(createMemoryStore(), {
      head: async () => {
        throw new Error("storage unreachable");
      },
    });
    const other = await startSite(
      {
        host: "127.0.0.1",
        port: 0,
        logLevel: "silent",
        storage: { url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" },
        siteUrl: "https://www.example.com",
        redisUrl: redis.url,
        queuePrefix: `test-site-readiness-${process.pid}`,
        contactRateLimit: 5,
        trustProxy: false,
      },
      logger,
      broken,
    );
    try {
      expect(await readyz(other.url)).toEqual({
        status: 503,
        body: { status: "unavailable", checks: { storage: "failed", "contact-queue": "ok" } },
      });
    } finally {
      await other.close();
    }
  });
});
