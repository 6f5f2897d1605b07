/**
 * A writer killed between writing its temp file and renaming it into place
 * leaves `.pressroom-tmp-*` behind for good. The worker removes those older than 10 minutes at
 * start and from reconcile rounds (at most once an hour), and leaves younger ones (another process's
 * write in flight). The walk reads every folder of the site, so it runs beside publishing: never
 * under the publish lock.
 */
import { existsSync } from "node:fs";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
import { redisKeys } from "#jobs/catalog.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PREFIX = `test-temp-${process.pid}-${Date.now()}`;
const logger = pino({ level: "silent" });

let content: LocalPrismic;
let worker: RunningWorker;
let site: { path: string; remove: () => Promise<void> };
let redis: Redis;
let config: PublisherConfig;

/** A temp file as a killed writer leaves it, `ageMs` old. */
async function leftover(path: string, ageMs: number): Promise<string> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, "<!doctype html><p>half");
  const when = new Date(Date.now() - ageMs);
  await utimes(path, when, when);
  return path;
}

beforeAll(async () => {
  site = await tempDir("temp-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  content = await startLocalPrismic();
  config = {
    logLevel: "silent",
    prismic: contentConfig(content.endpoint),
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    storage: { url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" },
    siteUrl: "https://www.example.com",
  };
});

afterAll(async () => {
  await worker?.close();
  await content?.stop();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await site?.remove();
});

describe("temp files left by a killed writer", () => {
  it("are removed at worker start and from reconcile, younger ones kept, while a publish holds the lock", async () => {
    const hour = 3_600_000;
    const old = await leftover(join(site.path, "about", ".pressroom-tmp-1b2c"), hour);
    const fresh = await leftover(join(site.path, ".pressroom-tmp-in-flight"), 0);
    worker = await startWorker(config, logger, {
      rootDir: ROOT,
      reconcileEveryMs: 3_600_000,
      tempSweepEveryMs: 0,
    });
    // The walk at start runs beside the worker's start, not before it.
    await expect.poll(() => existsSync(old), { timeout: 10_000 }).toBe(false);
    expect(existsSync(fresh)).toBe(true);

    // Another process's publish holds the lock (once the worker's first round let go of it): a
    // reconcile round waits for it, its walk does not.
    const lock = redisKeys(PREFIX).publishLock;
    await expect
      .poll(() => redis.set(lock, "another publish", "PX", 60_000, "NX"), { timeout: 30_000 })
      .toBe("OK");
    const later = await leftover(join(site.path, "price-list", ".pressroom-tmp-9f8e"), hour);
    const round = worker.reconcileNow();
    await expect.poll(() => existsSync(later), { timeout: 10_000 }).toBe(false);
    expect(await redis.get(lock)).toBe("another publish");
    expect(existsSync(fresh)).toBe(true);
    await redis.del(lock);
    // Once the lock is free the round goes on: the site is as the first round left it.
    expect(await round).toMatchObject({ action: "none" });
  }, 90_000);
});
