import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningAll, startAll } from "#bin/start-all.ts";
import { loadConfig } from "#config";
import type { Logger } from "#logger";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";

/**
 * `npm start` (pressroom start) as a newcomer runs it, with no mail server: every process in one,
 * on free ports, Redis with a prefix of its own. The contact form's message must end up somewhere
 * an operator can read, and the start line must say where: a visitor reads "on its way", so a
 * failing delivery must not go unnoticed.
 */
const ROOT = new URL("../../", import.meta.url).pathname;
const REDIS_URL = "redis://127.0.0.1:6379";
const PREFIX = `test-start-outbox-${process.pid}-${Date.now()}`;

let dir: { path: string; remove: () => Promise<void> };
let running: RunningAll | undefined;
const lines: { msg?: string; contact?: string }[] = [];

beforeAll(async () => {
  dir = await tempDir("start");
  const config = loadConfig("start", {
    HOST: "127.0.0.1",
    CONTENT_PORT: "0",
    SITE_PORT: "0",
    WEBHOOK_PORT: "0",
    PREVIEW_PORT: "0",
    REDIS_URL,
    QUEUE_PREFIX: PREFIX,
    STORAGE_URL: `file://${dir.path}/site`,
    CONTENT_DATA_DIR: `${dir.path}/content`,
    LOG_LEVEL: "info",
  });
  // The embedded default, ./data/outbox under the working folder, moved into this test's folder.
  expect(config.contact.outbox).toBe("./data/outbox");
  config.contact.outbox = `${dir.path}/outbox`;
  const logger = pino(
    { level: "info" },
    { write: (line: string) => void lines.push(JSON.parse(line)) },
  ) as unknown as Logger;
  running = await startAll(config, { rootDir: ROOT, logger, siteUrlFromEnv: false });
}, 120_000);

afterAll(async () => {
  await running?.close();
  const redis = new Redis(REDIS_URL);
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await dir?.remove();
}, 60_000);

describe("pressroom start without a mail server", () => {
  it("says where contact messages go, and a message sent from the site lands there as an .eml file", async () => {
    const started = lines.find((line) => line.msg?.startsWith("Pressroom is running"));
    expect(started?.msg).toContain(
      `Contact form messages: written to ${dir.path}/outbox as .eml files (no SMTP_URL)`,
    );

    const response = await fetch(`${running?.siteUrl}/api/contact`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "Ada Lovelace",
        email: "ada@example.com",
        phone: "",
        message: "Hello from the start test",
        consent: true,
        website: "",
        default_country: "GB",
      }),
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    const outbox = `${dir.path}/outbox`;
    const file = await until(
      "the message in the outbox",
      async () => (await readdir(outbox).catch(() => [])).find((name) => name.endsWith(`${id}.eml`)),
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(await readFile(join(outbox, file), "utf8")).toContain("Hello from the start test");
  }, 60_000);
});
