/**
 * Every line the long-running processes write is JSON, Redis or not: a log shipper that parses
 * lines must not get ioredis' `[ioredis] Unhandled error event` stack traces, BullMQ's console
 * warnings or Node's own warnings while Redis is away, and the outage must not flood the log.
 * The real processes (`pressroom serve worker|webhook|site`, their own OS processes, stdout and
 * stderr read) run against a `redis-server` of their own on a free port, which is killed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { type OwnRedis, startOwnRedis } from "../support/own-redis.ts";
import { type PressroomProcess, startPressroom } from "../support/pressroom-process.ts";
import { tempDir } from "../support/temp-dir.ts";

const PREFIX = `test-redis-down-logs-${process.pid}-${Date.now()}`;
/** How long Redis stays away: ioredis retries every 50-2000 ms, BullMQ's loops as often. */
const OUTAGE_MS = 6_000;
/**
 * Lines a process may write while Redis is away for OUTAGE_MS: the first warning of each kind.
 * Without a limit the worker wrote 323 in 6 s (a warning and a raw stack trace per queue and
 * reconnect attempt).
 */
const MAX_LINES_DURING_OUTAGE = 12;

let redis: OwnRedis;
let content: LocalPrismic;
let site: Awaited<ReturnType<typeof tempDir>>;
const processes: [string, PressroomProcess][] = [];

beforeAll(async () => {
  redis = await startOwnRedis();
  content = await startLocalPrismic();
  site = await tempDir("redis-down-logs-site");
  const common = { REDIS_URL: redis.url, QUEUE_PREFIX: PREFIX, OPS_PORT: "0", PORT: "0", NO_COLOR: "1" };
  const start = (role: string, env: Record<string, string>) => {
    const running = startPressroom(["serve", role], { ...common, ...env }, { captureStderr: true });
    processes.push([role, running]);
    return running;
  };
  const worker = start("worker", {
    PRISMIC_ENDPOINT: content.endpoint,
    STORAGE_URL: `file://${site.path}`,
    SITE_URL: "https://www.example.com",
  });
  const webhook = start("webhook", { WEBHOOK_SECRET: "redis-down-logs-secret" });
  const server = start("site", { STORAGE_URL: `file://${site.path}`, SITE_URL: "https://www.example.com" });
  await Promise.all([
    worker.waitFor(/worker started|waiting for (publishes|jobs)/i, 90_000),
    webhook.waitFor(/listening on/, 90_000),
    server.waitFor(/site listening on/, 90_000),
  ]);
}, 120_000);

afterAll(async () => {
  for (const [, running] of processes) await running.stop("SIGKILL").catch(() => undefined);
  await redis?.stop();
  await content?.stop();
  await site?.remove();
});

describe("logs while Redis is down", () => {
  it("every line of the worker, the webhook receiver and the site server is JSON, and few", async () => {
    // Let each settle into its idle loop with Redis there.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = new Map(processes.map(([role, running]) => [role, running.lines.length]));
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));

    const isJson = (text: string) => {
      try {
        return typeof JSON.parse(text) === "object";
      } catch {
        return false;
      }
    };
    const report: string[] = [];
    const outcome = processes.map(([role, running]) => {
      const notJson = running.lines.filter(({ text }) => !isJson(text));
      const during = running.lines.length - (before.get(role) ?? 0);
      report.push(`${role}: ${during} lines during the outage, ${notJson.length} not JSON`);
      for (const { stream, text } of notJson.slice(0, 5)) report.push(`  ${stream}: ${text.slice(0, 160)}`);
      return [role, running.child.exitCode, notJson.length, during <= MAX_LINES_DURING_OUTAGE];
    });
    expect(outcome, report.join("\n")).toEqual(processes.map(([role]) => [role, null, 0, true]));
  }, 60_000);
});
