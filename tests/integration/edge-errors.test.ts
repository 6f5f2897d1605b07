import { connect } from "node:net";
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { createLogger } from "#logger";
import { SECURITY_HEADERS } from "#site/app.ts";
import { type RunningSite, startSite } from "#site/server.ts";
import { type RunningWebhook, startWebhook } from "#webhook/server.ts";
import { tempDir } from "../support/temp-dir.ts";

/** A raw HTTP exchange: what Node's parser and Fastify's router answer before any route runs. */
function raw(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    // Written, not ended: a client that half-closes gets no answer that takes a moment (a stored
    // page read from storage); every request here says `Connection: close`, so the server ends it.
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", (error) => (answer ? resolve(answer) : reject(error)));
  });
}

const hostile = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
const HUGE_HEADER = `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"h".repeat(20_000)}\r\nConnection: close\r\n\r\n`;
const MALFORMED = "GET / HTTP/1.1\r\nHost: x\r\nBad Header Without Colon\r\n\r\n";
const ECHO = "evil<script>alert(1)</script>";

const silent = pino({ level: "silent" });
let site: RunningSite;
let webhook: RunningWebhook;
let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  dir = await tempDir("edge-errors");
  const prefix = `edge-errors-${process.pid}-${Date.now()}`;
  site = await startSite(
    loadConfig("site", {
      PORT: "0",
      HOST: "127.0.0.1",
      STORAGE_URL: `file://${dir.path}`,
      REDIS_URL: "redis://127.0.0.1:6379",
      QUEUE_PREFIX: prefix,
    }),
    silent,
  );
  webhook = await startWebhook(
    loadConfig("webhook", {
      PORT: "0",
      HOST: "127.0.0.1",
      PRISMIC_REPOSITORY: "demo",
      WEBHOOK_SECRET: "a-secret-long-enough-for-the-rule",
      REDIS_URL: "redis://127.0.0.1:6379",
      QUEUE_PREFIX: prefix,
    }),
    silent,
  );
});
afterAll(async () => {
  await site?.close();
  await webhook?.close();
  await dir?.remove();
});

describe("answers Fastify and Node write themselves carry the security headers and echo nothing", () => {
  // [name, request, the site server's status, the webhook receiver's]. A URL that cannot be decoded
  // names no page: the site answers its 404 page (malformed-urls.test.ts); the receiver, an API, 400.
  const cases = [
    ["a URL the router cannot decode", hostile(`/%${ECHO}`), 404, 400],
    ["a lone percent sign", hostile("/%"), 404, 400],
    ["headers over the limit", HUGE_HEADER, 431, 431],
    ["a malformed header line", MALFORMED, 400, 400],
  ] as const;

  it.each(cases)("site server: %s", async (_name, request, status) => {
    const answer = await raw(site.url, request);
    expect(answer).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    const head = answer.slice(0, answer.indexOf("\r\n\r\n")).toLowerCase();
    for (const [name, value] of Object.entries(SECURITY_HEADERS))
      expect(head).toContain(`${name}: ${value.toLowerCase()}`);
    expect(answer).not.toContain(ECHO);
    expect(answer).not.toContain("not a valid url component");
  });

  it.each(cases)("webhook receiver: %s", async (_name, request, _site, status) => {
    const answer = await raw(webhook.url, request);
    expect(answer).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    const head = answer.slice(0, answer.indexOf("\r\n\r\n")).toLowerCase();
    expect(head).toContain("x-content-type-options: nosniff");
    expect(head).toContain("content-security-policy: default-src 'none'; frame-ancestors 'none'");
    expect(answer).not.toContain(ECHO);
  });

  it("webhook receiver: its ordinary answers carry the headers too", async () => {
    const answer = await raw(webhook.url, hostile("/nope"));
    expect(answer.toLowerCase()).toContain("x-content-type-options: nosniff");
  });
});

describe("log volume", () => {
  it("the site server writes one info line per request, not two", async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new PassThrough();
    stream.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line));
    });
    const own = await startSite(
      loadConfig("site", {
        PORT: "0",
        HOST: "127.0.0.1",
        STORAGE_URL: `file://${dir.path}`,
        REDIS_URL: "redis://127.0.0.1:6379",
        QUEUE_PREFIX: `edge-log-${process.pid}-${Date.now()}`,
        OPS_PORT: "off",
      }),
      createLogger({ name: "site", level: "info", destination: stream, pretty: false }),
    );
    try {
      for (let i = 0; i < 10; i++)
        await own.app.inject({ method: "GET", url: `/nothing-${i}?token=secret-${i}` });
      await new Promise((resolve) => setImmediate(resolve));
      const perRequest = lines.filter((line) => line.reqId !== undefined && line.level === 30);
      expect(perRequest).toHaveLength(10);
      // This folder holds no 404.html: said at most once a minute (other tests of this process may
      // have said it already), never once per request.
      const problems = lines.filter((line) => (line.level as number) >= 40);
      expect(problems.length, JSON.stringify(problems)).toBeLessThanOrEqual(1);
      for (const line of problems) expect(line.msg).toBe("the stored 404 page is missing; built-in fallback");
      for (const line of perRequest) {
        expect(line).toMatchObject({ level: 30, msg: "request answered", method: "GET", statusCode: 404 });
        expect(JSON.stringify(line)).not.toContain("secret-");
      }
    } finally {
      await own.close();
    }
  });
});
