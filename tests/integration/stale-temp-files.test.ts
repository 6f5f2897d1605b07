/**
 * A writer killed between writing its temp file and renaming it into place
 * leaves `.pressroom-tmp-*` behind for good. The worker removes those older than 10 minutes at
 * start and in every reconcile round, and leaves younger ones (another process's write in flight).
 */
import { existsSync } from "node:fs";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
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
  it("are removed at worker start and by reconcile, younger ones kept", async () => {
    const hour = 3_600_000;
    const old = await leftover(join(site.path, "about", ".pressroom-tmp-1b2c"), hour);
    const fresh = await leftover(join(site.path, ".pressroom-tmp-in-flight"), 0);
    worker = await startWorker(config, logger, { rootDir: ROOT, reconcileEveryMs: 3_600_000 });
    expect(existsSync(old)).toBe(false);
    expect(existsSync(fresh)).toBe(true);

    const later = await leftover(join(site.path, "price-list", ".pressroom-tmp-9f8e"), hour);
    await worker.reconcileNow();
    expect(existsSync(later)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  }, 90_000);
});
