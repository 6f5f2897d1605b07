import { connect } from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { type RunningPreview, startPreview } from "#preview/server.ts";
import { type RunningSite, startSite } from "#site/server.ts";
import { createSiteStore, sha256 } from "#storage";
import { type RunningWebhook, startWebhook } from "#webhook/server.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { prismicConfig, SITE_URL } from "../support/preview-fixture.ts";

/**
 * RFC 9112 §3.2: "A server MUST respond with a 400 (Bad Request) status code to any HTTP/1.1
 * request message that lacks a Host header field and to any request message that contains more
 * than one Host header field line or a Host header field with an invalid field value." Node's
 * parser keeps the first of two Host lines and takes any value, so the three real servers are
 * asked over raw sockets, exactly as written here.
 */
const REDIS_URL = "redis://127.0.0.1:6379";
const PREFIX = `host-header-${process.pid}-${Date.now()}`;

let content: LocalPrismic;
let site: RunningSite;
let webhook: RunningWebhook;
let preview: RunningPreview;

beforeAll(async () => {
  content = await startLocalPrismic();
  const store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
  const home = "<h1>Home</h1>";
  await store.put("index.html", home, {
    contentType: "text/html; charset=utf-8",
    cacheControl: "public, max-age=0, must-revalidate",
    contentHash: sha256(home),
  });
  const config = loadConfig("site", {
    PORT: "0",
    HOST: "127.0.0.1",
    OPS_PORT: "off",
    STORAGE_URL: "memory:",
    REDIS_URL,
    QUEUE_PREFIX: PREFIX,
  });
  site = await startSite(config, pino({ level: "silent" }), store);
  webhook = await startWebhook(
    {
      host: "127.0.0.1",
      port: 0,
      logLevel: "silent",
      repository: "demo",
      webhookSecret: "host-header-secret",
      redisUrl: REDIS_URL,
      queuePrefix: PREFIX,
    },
    pino({ level: "silent" }),
  );
  preview = await startPreview(
    {
      host: "127.0.0.1",
      port: 0,
      logLevel: "silent",
      prismic: prismicConfig(content.endpoint),
      siteUrl: SITE_URL,
      repository: "demo",
    },
    pino({ level: "silent" }),
  );
}, 60_000);
afterAll(async () => {
  await preview?.close();
  await webhook?.close();
  await site?.close();
  await content?.stop();
});

/** Sends `lines` (the request line, then header lines) as they are; the status and the raw answer. */
function rawRequest(url: string, lines: string[]): Promise<{ status: number; raw: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let raw = "";
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no answer to ${lines[0]}`)));
    socket.on("connect", () => socket.write(`${lines.join("\r\n")}\r\n\r\n`));
    const done = () => {
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0), raw });
    };
    socket.on("data", (chunk: Buffer) => {
      raw += chunk.toString("latin1");
      // One whole answer is enough: a server that keeps the connection open must not hold the test.
      const end = raw.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, end))?.[1];
      if (end !== -1 && length !== undefined && raw.length >= end + 4 + Number(length)) done();
    });
    socket.on("error", reject);
    socket.on("close", done);
  });
}

const servers = () =>
  [
    ["site", site.url, "/"],
    ["webhook", webhook.url, "/_pressroom/healthz"],
    ["preview", preview.url, "/_pressroom/healthz"],
  ] as const;

const BAD_HOSTS: [string, string[]][] = [
  ["two Host lines", ["Host: 127.0.0.1", "Host: evil.example"]],
  ["two Host lines, same value", ["Host: 127.0.0.1", "Host: 127.0.0.1"]],
  ["Host in another case twice", ["host: 127.0.0.1", "HOST: evil.example"]],
  ["a space inside", ["Host: a b"]],
  ["a path in it", ["Host: example.com/admin"]],
  ["user info", ["Host: user@example.com"]],
  ["a port that is not digits", ["Host: example.com:80x"]],
  ["no Host (HTTP/1.1)", []],
];

describe.each(["site", "webhook", "preview"])(
  "%s server: a missing, repeated or invalid Host is a 400",
  (name) => {
    const server = () => servers().find(([n]) => n === name) as readonly [string, string, string];

    it.each(BAD_HOSTS)("%s → 400, connection closed", async (_label, hostLines) => {
      const [, url, path] = server();
      const { status, raw } = await rawRequest(url, [
        `GET ${path} HTTP/1.1`,
        ...hostLines,
        "Connection: keep-alive",
      ]);
      expect(status, raw).toBe(400);
      expect(raw.toLowerCase()).toContain("connection: close");
      expect(raw).not.toContain("evil.example");
    });

    it("a valid Host (name, name:port, IPv4, [IPv6]:port, empty for HTTP/1.0 without one) is answered", async () => {
      const [, url, path] = server();
      for (const host of [
        "Host: www.example.com",
        "Host: 127.0.0.1:4101",
        "Host: [::1]:8080",
        "Host: xn--bcher-kva.example",
      ]) {
        const { status, raw } = await rawRequest(url, [`GET ${path} HTTP/1.1`, host, "Connection: close"]);
        expect(status, `${host}\n${raw}`).toBe(200);
      }
      const old = await rawRequest(url, [`GET ${path} HTTP/1.0`]);
      expect(old.status, old.raw).toBe(200);
    });
  },
);
