import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadConfig, variables } from "#config";
import { ConfigError } from "#errors";

const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error("expected a ConfigError");
};

describe("loadConfig", () => {
  it("gives the embedded defaults on an empty environment", () => {
    expect(loadConfig("content", {})).toMatchObject({
      host: "127.0.0.1",
      port: 4100,
      logLevel: "info",
      repository: "demo",
      dataDir: "./data/content",
      webhookUrl: undefined,
    });
    expect(loadConfig("publisher", {})).toMatchObject({
      redisUrl: "redis://127.0.0.1:6379",
      storage: { url: "file://./data/site", s3Endpoint: undefined, s3Region: "us-east-1" },
      siteUrl: "http://127.0.0.1:4101",
      prismic: {
        endpoint: "http://127.0.0.1:4100/api/v2",
        timeoutMs: 10_000,
        cacheTtlMs: 5_000,
        cacheMaxEntries: 1_000,
      },
    });
  });

  it("delivers contact messages to a local outbox in `pressroom start` when no mail server is set", () => {
    // The newcomer's run: no SMTP_URL, so ./data/outbox (a visitor's "on its way" must be true).
    expect(loadConfig("start", {}).contact).toMatchObject({ smtpUrl: undefined, outbox: "./data/outbox" });
    expect(loadConfig("start", { CONTACT_OUTBOX: "/var/mail/site" }).contact.outbox).toBe("/var/mail/site");
    // With a mail server the outbox is not used.
    const smtp = { SMTP_URL: "smtp://mail.example.com:587", CONTACT_TO: "sales@example.com" };
    expect(loadConfig("start", smtp).contact.outbox).toBeUndefined();
    // A worker on its own gets no default: production says where mail goes.
    expect(loadConfig("worker", {}).contact?.outbox).toBeUndefined();
    expect(loadConfig("worker", { CONTACT_OUTBOX: "./outbox" }).contact?.outbox).toBe("./outbox");
  });

  it("reads the local content service, as `npm start` runs it, unless a repository or endpoint is named", () => {
    // An unconfigured command must never reach a real Prismic repository (the demo one included).
    for (const process of ["reader", "publisher", "worker", "preview"] as const) {
      expect(loadConfig(process, {}).prismic).toMatchObject({
        repository: "demo",
        endpoint: "http://127.0.0.1:4100/api/v2",
      });
      expect(loadConfig(process, { PRISMIC_REPOSITORY: "" }).prismic.endpoint).toBe(
        "http://127.0.0.1:4100/api/v2",
      );
    }
    expect(loadConfig("reader", { PRISMIC_REPOSITORY: "demo" }).prismic.endpoint).toBe(
      "https://demo.cdn.prismic.io/api/v2",
    );
  });

  it("derives the endpoint from PRISMIC_REPOSITORY unless PRISMIC_ENDPOINT overrides it", () => {
    expect(loadConfig("reader", { PRISMIC_REPOSITORY: "acme-site" }).prismic.endpoint).toBe(
      "https://acme-site.cdn.prismic.io/api/v2",
    );
    const local = loadConfig("reader", {
      PRISMIC_REPOSITORY: "acme-site",
      PRISMIC_ENDPOINT: "http://127.0.0.1:4100/api/v2",
    });
    expect(local.prismic).toMatchObject({
      repository: "acme-site",
      endpoint: "http://127.0.0.1:4100/api/v2",
    });
  });

  it("reads good values of every kind", () => {
    const config = loadConfig("publisher", {
      LOG_LEVEL: "DEBUG",
      PRISMIC_ACCESS_TOKEN: "token",
      REDIS_URL: "rediss://:pw@redis.internal:6380",
      STORAGE_URL: "s3://my-site-bucket/www",
      S3_ENDPOINT: "http://minio:9000",
      SITE_URL: "https://www.example.com/",
      PRISMIC_CACHE_TTL_MS: "0",
    });
    expect(config).toMatchObject({
      logLevel: "debug",
      redisUrl: "rediss://:pw@redis.internal:6380",
      storage: { url: "s3://my-site-bucket/www", s3Endpoint: "http://minio:9000" },
      siteUrl: "https://www.example.com",
      prismic: { accessToken: "token", cacheTtlMs: 0 },
    });
    expect(loadConfig("site", { PORT: "0", HOST: "0.0.0.0" })).toMatchObject({ port: 0, host: "0.0.0.0" });
  });

  it("trusts X-Forwarded-For only from a proxy on this machine unless told otherwise", () => {
    // Not private networks: behind Docker's published ports every visitor comes from the bridge gateway.
    expect(loadConfig("site", {}).trustProxy).toEqual(["loopback"]);
    expect(loadConfig("site", { TRUST_PROXY: "" }).trustProxy).toEqual(["loopback"]);
    expect(loadConfig("site", { TRUST_PROXY: "loopback,uniquelocal" }).trustProxy).toEqual([
      "loopback",
      "uniquelocal",
    ]);
    expect(loadConfig("site", { TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig("site", { TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(loadConfig("site", { TRUST_PROXY: "10.0.0.0/8, 2001:db8::/32" }).trustProxy).toEqual([
      "10.0.0.0/8",
      "2001:db8::/32",
    ]);
    expect(() => loadConfig("site", { TRUST_PROXY: "my-proxy" })).toThrow(/TRUST_PROXY/);
  });

  it("treats an empty variable as unset, as docker-compose writes them", () => {
    expect(loadConfig("content", { PORT: "", CONTENT_WEBHOOK_URL: "" })).toMatchObject({
      port: 4100,
      webhookUrl: undefined,
    });
  });

  it.each([
    [
      "content",
      "PORT",
      "http",
      /PORT="http" is not an integer from 0 to 65535\. Set PORT to a free TCP port/,
    ],
    ["site", "PORT", "70000", /PORT="70000" is not an integer/],
    [
      "content",
      "LOG_LEVEL",
      "loud",
      /LOG_LEVEL="loud" is not a log level\. Set LOG_LEVEL to one of fatal, error/,
    ],
    [
      "reader",
      "PRISMIC_REPOSITORY",
      "My Repo",
      /PRISMIC_REPOSITORY="My Repo" is not a Prismic repository name/,
    ],
    [
      "reader",
      "PRISMIC_ENDPOINT",
      "https://demo.prismic.io/graphql",
      /does not end in \/api\/v2\. Set PRISMIC_ENDPOINT/,
    ],
    ["reader", "PRISMIC_ENDPOINT", "ftp://x/api/v2", /not an http\(s\) URL/],
    ["reader", "PRISMIC_TIMEOUT_MS", "0", /PRISMIC_TIMEOUT_MS="0" is not an integer from 1 to 300000/],
    [
      "content",
      "CONTENT_WEBHOOK_URL",
      "localhost:4102",
      /CONTENT_WEBHOOK_URL="localhost:4102" is not an http\(s\) URL/,
    ],
    ["content", "CONTENT_REF_HISTORY", "-1", /not an integer from 1 to 10000/],
    ["publisher", "S3_ENDPOINT", "minio:9000", /S3_ENDPOINT="minio:9000" is not an http\(s\) URL/],
    ["publisher", "RENDER_THREADS", "two", /RENDER_THREADS="two" is not an integer from 0 to 64/],
    ["worker", "RENDER_THREADS", "65", /not an integer from 0 to 64.*number of cores − 1/],
    [
      "reader",
      "PRISMIC_RATE_LIMIT_MAX_WAIT_MS",
      "3600000",
      /PRISMIC_RATE_LIMIT_MAX_WAIT_MS="3600000" is not an integer from 0 to 60000\. .*releases the publish lock/,
    ],
    ["worker", "WORKER_LOCK_MS", "500", /WORKER_LOCK_MS="500" is not an integer from 2000 to 300000\. /],
  ] as const)("%s: refuses %s=%s and says how to fix it", (process, name, value, message) => {
    expect(problemsOf(() => loadConfig(process, { [name]: value })).join("\n")).toMatch(message);
  });

  it("sizes the render threads only when told to (a container's CPU quota is not what Node counts)", () => {
    expect(loadConfig("publisher", {}).renderThreads).toBeUndefined();
    expect(loadConfig("publisher", { RENDER_THREADS: "" }).renderThreads).toBeUndefined();
    expect(loadConfig("worker", { RENDER_THREADS: "2" }).renderThreads).toBe(2);
    expect(loadConfig("publisher", { RENDER_THREADS: "0" }).renderThreads).toBe(0);
  });

  it("bounds waits: a 429's wait in place, and how long a stopped worker keeps its locks", () => {
    expect(loadConfig("worker", {})).toMatchObject({
      prismic: { rateLimitMaxWaitMs: 10_000 },
      lockMs: 8_000,
    });
    expect(loadConfig("preview", {}).prismic.rateLimitMaxWaitMs).toBe(10_000);
    expect(
      loadConfig("worker", { PRISMIC_RATE_LIMIT_MAX_WAIT_MS: "0", WORKER_LOCK_MS: "15000" }),
    ).toMatchObject({ prismic: { rateLimitMaxWaitMs: 0 }, lockMs: 15_000 });
  });

  it("names the edge to purge by CDN_PURGE_URL, and none when it is unset", () => {
    expect(loadConfig("worker", {}).edge).toEqual({ purgeUrl: undefined });
    expect(loadConfig("publisher", { CDN_PURGE_URL: "" }).edge).toEqual({ purgeUrl: undefined });
    expect(loadConfig("worker", { CDN_PURGE_URL: "varnish://edge-purge:8080" }).edge).toEqual({
      purgeUrl: "varnish://edge-purge:8080",
    });
    expect(loadConfig("worker", { CDN_PURGE_URL: "cloudfront://E2QWRUHAPOMQZL" }).edge?.purgeUrl).toBe(
      "cloudfront://E2QWRUHAPOMQZL",
    );
    for (const bad of [
      "http://edge:8080",
      "varnish://",
      "varnish://edge:8080/purge",
      "cloudfront://e2-lower",
    ])
      expect(problemsOf(() => loadConfig("worker", { CDN_PURGE_URL: bad })).join("\n"), bad).toMatch(
        /CDN_PURGE_URL=".*" is not varnish:\/\/<host>:<port> or cloudfront:\/\/<DISTRIBUTION_ID>\. Set CDN_PURGE_URL to varnish:\/\/<host>:<port> .* or unset it for no purge\./,
      );
  });

  it("reports every bad value at once", () => {
    const problems = problemsOf(() =>
      loadConfig("publisher", {
        STORAGE_URL: "ftp://files",
        REDIS_URL: "localhost:6379",
        SITE_URL: "example.com",
      }),
    );
    expect(problems).toHaveLength(3);
    expect(problems.join("\n")).toMatch(
      /STORAGE_URL="ftp:\/\/files" is not file:\/\/<dir>, s3:\/\/<bucket>\/<prefix>/,
    );
    expect(problems.join("\n")).toMatch(/SITE_URL="example.com" is not an http\(s\) URL/);
  });

  it("requires the webhook secret for the receiver, and never echoes a secret back", () => {
    expect(problemsOf(() => loadConfig("webhook", {})).join("\n")).toMatch(/WEBHOOK_SECRET is not set/);
    const tooShort = problemsOf(() => loadConfig("webhook", { WEBHOOK_SECRET: "hunter2" })).join("\n");
    expect(tooShort).toMatch(/WEBHOOK_SECRET=\(hidden\) is shorter than 16 characters/);
    expect(tooShort).not.toContain("hunter2");
    const redis = problemsOf(() =>
      loadConfig("webhook", { WEBHOOK_SECRET: "x".repeat(20), REDIS_URL: "http://:pw@r" }),
    );
    expect(redis.join("\n")).not.toContain("pw@");
  });

  it("gives each long-running process a private ops listener, and the dashboard only with a password", () => {
    const secret = { WEBHOOK_SECRET: "x".repeat(20) };
    expect(loadConfig("site", {}).ops).toEqual({ host: "127.0.0.1", port: 4111 });
    expect(loadConfig("webhook", secret).ops).toEqual({ host: "127.0.0.1", port: 4112 });
    expect(loadConfig("worker", {}).ops).toEqual({ host: "127.0.0.1", port: 4113 });
    expect(loadConfig("preview", {}).ops).toEqual({ host: "127.0.0.1", port: 4114 });
    expect(loadConfig("site", { OPS_HOST: "0.0.0.0", OPS_PORT: "0" }).ops).toEqual({
      host: "0.0.0.0",
      port: 0,
    });
    expect(loadConfig("worker", { OPS_PORT: "off" }).ops).toBeUndefined();
    expect(problemsOf(() => loadConfig("site", { OPS_PORT: "metrics" })).join("\n")).toMatch(
      /OPS_PORT="metrics" is not an integer from 0 to 65535\. Set OPS_PORT/,
    );
    expect(loadConfig("webhook", secret).queues).toBeUndefined();
    expect(loadConfig("webhook", { ...secret, QUEUES_PASSWORD: "long-enough-password" }).queues).toEqual({
      user: "pressroom",
      password: "long-enough-password",
    });
    const short = problemsOf(() => loadConfig("webhook", { ...secret, QUEUES_PASSWORD: "short" })).join("\n");
    expect(short).toMatch(/QUEUES_PASSWORD=\(hidden\) is shorter than 12 characters/);
  });

  it("is documented: docs/configuration.md names every variable", () => {
    const docs = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
    for (const name of Object.keys(variables))
      expect(docs, `${name} is missing from docs/configuration.md`).toContain(`\`${name}\``);
  });
});
