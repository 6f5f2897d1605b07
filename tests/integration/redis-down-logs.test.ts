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
const opsUrls: string[] = [];

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
  const webhook = start("webhook", {
    WEBHOOK_SECRET: "redis-down-logs-secret",
    QUEUES_USER: "operator",
    QUEUES_PASSWORD: "dashboard-password-1",
  });
  const server = start("site", { STORAGE_URL: `file://${site.path}`, SITE_URL: "https://www.example.com" });
  await Promise.all([
    worker.waitFor(/worker started/, 90_000),
    webhook.waitFor(/listening on/, 90_000),
    server.waitFor(/site listening on/, 90_000),
  ]);
  for (const [, running] of processes)
    opsUrls.push((await running.waitFor(/ops listener on (http:\/\/\S+) /, 30_000))[1] as string);
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
    // Probed and scraped as a load balancer and Prometheus would, only faster: each probe that fails
    // must not be a line of its own either.
    const until = Date.now() + OUTAGE_MS;
    await Promise.all(
      opsUrls.map(async (url) => {
        while (Date.now() < until) {
          for (const path of ["readyz", "metrics"])
            await (await fetch(`${url}/_pressroom/${path}`)).arrayBuffer();
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }),
    );

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
      const during = running.lines.slice(before.get(role) ?? 0).filter(({ text }) => isJson(text));
      // One line per kind (message and error) while it lasts: none said again at each probe or retry.
      const kinds = new Map<string, number>();
      for (const { text } of during) {
        const { msg, err } = JSON.parse(text) as { msg?: string; err?: { code?: string; message?: string } };
        const kind = `${msg} (${err?.code ?? err?.message ?? ""})`;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      const repeated = [...kinds]
        .filter(([, count]) => count > 1)
        .map(([kind, count]) => `${count}× ${kind}`);
      report.push(`${role}: ${during.length} lines during the outage, ${notJson.length} not JSON`);
      for (const { stream, text } of notJson.slice(0, 5)) report.push(`  ${stream}: ${text.slice(0, 160)}`);
      for (const line of repeated) report.push(`  repeated: ${line}`);
      return [
        role,
        running.child.exitCode,
        notJson.length,
        repeated,
        during.length <= MAX_LINES_DURING_OUTAGE,
      ];
    });
    expect(outcome, report.join("\n")).toEqual(processes.map(([role]) => [role, null, 0, [], true]));
  }, 60_000);
});
