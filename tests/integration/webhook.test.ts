import type { Socket } from "node:net";
import { PassThrough } from "node:stream";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookConfig } from "#config";
import { jobCatalog, QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { createLogger } from "#logger";
import { webhookDeliveries } from "#metrics/metrics.ts";
import { BODY_LIMIT } from "#webhook/app.ts";
import { type RunningWebhook, startWebhook } from "#webhook/server.ts";
import { freePort } from "../support/free-port.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { type TcpProxy, tcpProxy } from "../support/tcp-proxy.ts";
import {
  documentPublished,
  masterRefWithoutDocuments,
  releaseAdditionEmpty,
  releaseUpdateOnly,
} from "../support/webhook-bodies.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
const SECRET = "s3cr3t-Zq8wX-never-in-logs";
const REPOSITORY = "pressroom-test";
const prefix = `test-webhook-${process.pid}-${Date.now()}`;

const logLines: string[] = [];
function captureLogger() {
  const stream = new PassThrough();
  stream.on("data", (chunk: Buffer) => logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean)));
  return createLogger({ name: "webhook", level: "debug", destination: stream, pretty: false });
}

function config(overrides: Partial<WebhookConfig> = {}): WebhookConfig {
  return {
    host: "127.0.0.1",
    port: 0,
    logLevel: "debug",
    repository: REPOSITORY,
    webhookSecret: SECRET,
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    ...overrides,
  };
}

function apiUpdate(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "api-update",
    masterRef: "X6qn-RIAACMAVge1",
    releases: {},
    masks: {},
    tags: {},
    experiments: {},
    documents: ["X6LcjhAAAB8AUJwb"],
    domain: REPOSITORY,
    apiUrl: `https://${REPOSITORY}.prismic.io/api`,
    secret: SECRET,
    ...overrides,
  };
}

let receiver: RunningWebhook;
let redis: Redis;
let queue: Queue;

const post = (payload: unknown, headers: Record<string, string> = { "content-type": "application/json" }) =>
  receiver.app.inject({
    method: "POST",
    url: "/webhooks/prismic",
    headers,
    payload: typeof payload === "string" ? payload : JSON.stringify(payload),
  });

async function totalJobs(): Promise<number> {
  const counts = await queue.getJobCounts();
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

beforeAll(async () => {
  redis = new Redis(REDIS_URL);
  queue = new Queue(QUEUE_NAME, { connection: redis, prefix });
  receiver = await startWebhook(config(), captureLogger());
});

afterAll(async () => {
  await receiver?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await removeKeysUnder(redis, prefix);
  await redis.quit();
});

describe("webhook receiver: api-update", () => {
  it("answers 200 with the job id only once the job and the pending ids are in Redis", async () => {
    const body = apiUpdate({ masterRef: "REF-good", documents: ["doc-a", "doc-b"] });
    const response = await post(body);
    // 200, never 202: Prismic retries any other answer every 10 minutes and disables the webhook
    // after 5 failures in a row.
    expect(response.statusCode).toBe(200);
    const { jobId } = response.json<{ jobId: string }>();
    expect(jobId).toBe("publish-REF-good");

    const job = await queue.getJob(jobId);
    expect(job?.name).toBe("publish");
    expect(job?.data).toMatchObject({ masterRef: "REF-good", documents: ["doc-a", "doc-b"] });
    expect(job?.opts.attempts).toBe(jobCatalog.publish.attempts);
    expect(jobCatalog.publish.schema.safeParse(job?.data).success).toBe(true);
    expect(await redis.smembers(redisKeys(prefix).pendingIds)).toEqual(
      expect.arrayContaining(["doc-a", "doc-b"]),
    );
    expect(logLines.some((line) => line.includes('"jobId"') && line.includes('"documents":2'))).toBe(true);
  });

  it("makes the same delivery twice one job", async () => {
    await queue.obliterate({ force: true });
    const body = apiUpdate({ masterRef: "REF-twice", documents: ["doc-c"] });
    const first = await post(body);
    const second = await post(body);
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(await totalJobs()).toBe(1);
  });

  it("sends the job without waiting for the ids' answer, and always after the ids", async () => {
    // A proxy forwards what the receiver sends and holds Redis's answers once the receiver is ready:
    // a receiver that waited for the ids' answer before adding the job would never add it.
    const port = await freePort();
    const sent: Buffer[] = [];
    let holding = false;
    const held: [Socket, Buffer][] = [];
    const release = () => {
      holding = false;
      for (const [client, chunk] of held.splice(0)) client.write(chunk);
    };
    const proxy = await tcpProxy(port, 6379, {
      toServer: (upstream, chunk) => {
        upstream.write(chunk);
        if (!holding) return;
        sent.push(chunk);
        if (Buffer.concat(sent).includes('"masterRef":"REF-at-once"')) setImmediate(release);
      },
      toClient: (client, chunk) => (holding ? held.push([client, chunk]) : client.write(chunk)),
    });
    const proxied = await startWebhook(config({ redisUrl: `redis://127.0.0.1:${port}` }), captureLogger());
    try {
      await expect
        .poll(async () => (await proxied.app.inject({ method: "GET", url: "/_pressroom/readyz" })).statusCode)
        .toBe(200);
      holding = true;
      const response = await proxied.app.inject({
        method: "POST",
        url: "/webhooks/prismic",
        headers: { "content-type": "application/json" },
        payload: JSON.stringify(apiUpdate({ masterRef: "REF-at-once", documents: ["doc-at-once"] })),
      });
      expect(response.statusCode).toBe(200);
      const wire = Buffer.concat(sent).toString("latin1");
      const ids = wire.indexOf(redisKeys(prefix).pendingIds);
      const job = wire.indexOf('"masterRef":"REF-at-once"');
      expect(ids).toBeGreaterThanOrEqual(0);
      expect(job).toBeGreaterThan(ids);
      expect(await redis.sismember(redisKeys(prefix).pendingIds, "doc-at-once")).toBe(1);
      expect(await queue.getJob(response.json<{ jobId: string }>().jobId)).toBeDefined();
    } finally {
      release();
      await proxied.close();
      await proxy.close();
    }
  });

  it("collects the ids inside releases and accepts unknown fields", async () => {
    const body = apiUpdate({
      masterRef: "REF-releases",
      documents: ["doc-top"],
      releases: {
        addition: [{ id: "r1", ref: "r1~x", label: "one", documents: ["doc-r1"] }],
        update: [{ id: "r2", ref: "r2~x", label: "two", documents: ["doc-r2", "doc-top"] }],
        deletion: [{ id: "r3", ref: "r3~x", label: "three", documents: ["doc-r3"] }],
      },
      scheduledAt: 1_700_000_000_000,
      somethingNew: { nested: true },
    });
    const response = await post(body);
    expect(response.statusCode).toBe(200);
    const job = await queue.getJob(response.json<{ jobId: string }>().jobId);
    expect([...(job?.data.documents ?? [])].sort()).toEqual(["doc-r1", "doc-r2", "doc-r3", "doc-top"]);
    expect(await redis.smembers(redisKeys(prefix).pendingIds)).toEqual(
      expect.arrayContaining(["doc-r1", "doc-r2", "doc-r3", "doc-top"]),
    );
  });

  it("queues a release-only change (no masterRef) by its ids", async () => {
    const response = await post(
      apiUpdate({ masterRef: undefined, documents: [], releases: { update: [{ documents: ["doc-rel"] }] } }),
    );
    expect(response.statusCode).toBe(200);
    const job = await queue.getJob(response.json<{ jobId: string }>().jobId);
    expect(job?.data).toMatchObject({ masterRef: null, documents: ["doc-rel"] });
  });

  it("answers a test trigger and a tag-only change with 200 and queues nothing", async () => {
    await queue.obliterate({ force: true });
    const trigger = await post({ type: "test-trigger", domain: REPOSITORY, apiUrl: "x", secret: SECRET });
    expect(trigger.statusCode).toBe(200);
    expect(trigger.json()).toEqual({ ok: true });
    const tags = await post(
      apiUpdate({ masterRef: undefined, documents: [], tags: { addition: [{ id: "testtag" }] } }),
    );
    expect(tags.statusCode).toBe(200);
    expect(tags.json()).toEqual({ ok: true, queued: false });
    expect(await totalJobs()).toBe(0);
  });
});

describe("webhook receiver: bodies as real Prismic sent them (tests/support/webhook-bodies.ts)", () => {
  const repository = { domain: REPOSITORY, secret: SECRET };
  const keys = redisKeys(prefix);

  it("records a new master ref that names no document as a pending ref, and queues it", async () => {
    await redis.del(keys.pendingIds, keys.pendingRefs);
    const response = await post(masterRefWithoutDocuments(repository, "XoXF-BAAAB8AApSb"));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ jobId: "publish-XoXF-BAAAB8AApSb" });
    const job = await queue.getJob("publish-XoXF-BAAAB8AApSb");
    expect(job?.data).toMatchObject({ masterRef: "XoXF-BAAAB8AApSb", documents: [], namesNoDocuments: true });
    expect(await redis.smembers(keys.pendingRefs)).toEqual(["XoXF-BAAAB8AApSb"]);
    expect(await redis.scard(keys.pendingIds)).toBe(0);
  });

  it("queues a release-only change by its ids (no ref to publish everything at), and ignores an empty one", async () => {
    await redis.del(keys.pendingIds, keys.pendingRefs);
    const update = await post(releaseUpdateOnly(repository, "X6LcRBAAACIAUJqp"));
    expect(update.statusCode).toBe(200);
    expect(await queue.getJob(update.json<{ jobId: string }>().jobId)).toBeDefined();
    expect(await redis.smembers(keys.pendingIds)).toEqual(["X6LcRBAAACIAUJqp"]);
    const addition = await post(releaseAdditionEmpty(repository));
    expect(addition.statusCode).toBe(200);
    expect(addition.json()).toEqual({ ok: true, queued: false });
    expect(await redis.scard(keys.pendingRefs)).toBe(0);
  });

  it("counts accepted and duplicate deliveries by outcome, though both answer 200", async () => {
    const outcomes = async () =>
      Object.fromEntries(
        (await webhookDeliveries.get()).values.map((value) => [value.labels.outcome, value.value]),
      );
    const before = await outcomes();
    const body = documentPublished(repository, "X6qn-RIAACMAVge1", "X6LcjhAAAB8AUJwb");
    expect((await post(body)).statusCode).toBe(200);
    expect((await post(body)).statusCode).toBe(200);
    const after = await outcomes();
    expect((after.accepted ?? 0) - (before.accepted ?? 0)).toBe(1);
    expect((after.duplicate ?? 0) - (before.duplicate ?? 0)).toBe(1);
  });
});

describe("webhook receiver: bad input", () => {
  it("refuses a missing or unknown type and a documents field that is not an array, naming the field", async () => {
    const missing = await post(apiUpdate({ type: undefined }));
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: "invalid_body", field: "body.type" });

    const wrong = await post(apiUpdate({ type: "api-delete" }));
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().field).toBe("body.type");
    expect(wrong.json().message).toContain("api-delete");

    const documents = await post(apiUpdate({ documents: "doc-a" }));
    expect(documents.statusCode).toBe(400);
    expect(documents.json()).toMatchObject({ field: "body.documents" });
    expect(documents.json().message).toContain("documents");
  });

  it("answers 400 to malformed JSON, 413 to a body over the limit and 415 to another content type", async () => {
    const malformed = await post(`{"type":"api-update","secret":"${SECRET}",`);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toBe("invalid_json");
    expect(malformed.body).not.toContain(SECRET);

    const huge = await post(apiUpdate({ padding: "x".repeat(BODY_LIMIT) }));
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error).toBe("body_too_large");

    const text = await post(JSON.stringify(apiUpdate()), { "content-type": "text/plain" });
    expect(text.statusCode).toBe(415);
    expect(text.json().error).toBe("unsupported_media_type");
  });

  it("refuses a wrong, missing or null secret with 401 and another repository with 403", async () => {
    for (const secret of ["wrong", undefined, null, `${SECRET}x`]) {
      const response = await post(apiUpdate({ secret }));
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe("invalid_secret");
    }
    const domain = await post(apiUpdate({ domain: "someone-else" }));
    expect(domain.statusCode).toBe(403);
    expect(domain.json().message).not.toContain(REPOSITORY);
  });

  it.each([
    [
      "a ref with a colon (BullMQ refuses it in a job id)",
      { masterRef: "X6qn:RIAACMAVge1" },
      "body.masterRef",
    ],
    ["a 100 KB ref", { masterRef: "a".repeat(100_000) }, "body.masterRef"],
    ["an empty ref", { masterRef: "" }, "body.masterRef"],
    ["a ref with a slash", { masterRef: "../../etc" }, "body.masterRef"],
    ["a document id with a colon", { documents: ["X6Lc:jhAAAB8AUJwb"] }, "body.documents.0"],
    ["a 1 KB document id", { documents: ["d".repeat(1024)] }, "body.documents.0"],
    [
      "a release document id with a space",
      { releases: { update: [{ documents: ["a b"] }] } },
      "body.releases.update.0.documents.0",
    ],
  ])("refuses %s with a 400 naming the field, and queues nothing", async (_name, overrides, field) => {
    const before = await totalJobs();
    const response = await post(apiUpdate(overrides));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: "invalid_body", field });
    expect(response.body.length).toBeLessThan(500);
    expect(await totalJobs()).toBe(before);
  });

  it("never writes the secret to the log, for good and bad requests alike", async () => {
    await post(apiUpdate({ type: "nope" }));
    await post(`{"secret":"${SECRET}", oops}`);
    await post(apiUpdate({ masterRef: "REF-log" }));
    // A body handed to a log call by mistake is redacted too.
    receiver.app.log.info({ body: { secret: SECRET }, req: { body: { secret: SECRET } } }, "body");
    expect(logLines.length).toBeGreaterThan(10);
    expect(logLines.filter((line) => line.includes(SECRET))).toEqual([]);
  });
});

describe("webhook receiver: health and outages", () => {
  it("reports healthy with Redis", async () => {
    const response = await receiver.app.inject({ method: "GET", url: "/_pressroom/readyz" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: "ok", checks: { redis: "ok" } });
  });

  it("answers 503 with Retry-After within a second when Redis is unreachable, and health says so", async () => {
    const down = await startWebhook(config({ redisUrl: "redis://127.0.0.1:1" }), captureLogger());
    try {
      const started = Date.now();
      const response = await down.app.inject({
        method: "POST",
        url: "/webhooks/prismic",
        headers: { "content-type": "application/json" },
        payload: JSON.stringify(apiUpdate({ masterRef: "REF-down" })),
      });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(response.statusCode).toBe(503);
      expect(response.json().error).toBe("queue_unavailable");
      expect(response.headers["retry-after"]).toBeDefined();

      const ready = await down.app.inject({ method: "GET", url: "/_pressroom/readyz" });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: "unavailable", checks: { redis: "failed" } });
      // Alive all the same: a probe must not restart a receiver that only waits for Redis.
      const alive = await down.app.inject({ method: "GET", url: "/_pressroom/healthz" });
      expect(alive.statusCode).toBe(200);
    } finally {
      await down.close();
    }
  });

  it("recovers without a restart when Redis comes back", async () => {
    const port = await freePort();
    const receiverDown = await startWebhook(
      config({ redisUrl: `redis://127.0.0.1:${port}` }),
      captureLogger(),
    );
    let proxy: TcpProxy | undefined;
    try {
      const before = await receiverDown.app.inject({ method: "GET", url: "/_pressroom/readyz" });
      expect(before.statusCode).toBe(503);
      // "Redis comes back": a TCP proxy to the real Redis starts on the port the receiver dials.
      proxy = await tcpProxy(port, 6379);
      await expect
        .poll(
          async () =>
            (await receiverDown.app.inject({ method: "GET", url: "/_pressroom/readyz" })).statusCode,
          {
            timeout: 5000,
            interval: 100,
          },
        )
        .toBe(200);
      const response = await receiverDown.app.inject({
        method: "POST",
        url: "/webhooks/prismic",
        headers: { "content-type": "application/json" },
        payload: JSON.stringify(apiUpdate({ masterRef: "REF-recovered" })),
      });
      expect(response.statusCode).toBe(200);
      expect(await queue.getJob(response.json<{ jobId: string }>().jobId)).toBeDefined();
    } finally {
      await receiverDown.close();
      await proxy?.close();
    }
  });
});

describe("webhook receiver: error answers for browsers and JSON clients", () => {
  it("answers a browser with an HTML error page and everyone else with JSON, neither with internals", async () => {
    const browser = await receiver.app.inject({
      method: "GET",
      url: "/webhooks/prismic",
      headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
    });
    expect(browser.statusCode).toBe(404);
    expect(browser.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(browser.body).toContain("This page could not be found");
    expect(browser.body).toContain('href="/">Go back to home</a>');
    expect(browser.body).not.toContain("Route GET");
    expect(browser.body).toContain(`Reference: <code>${browser.headers["x-request-id"]}</code>`);
    const api = await receiver.app.inject({
      method: "GET",
      url: "/nope",
      headers: { accept: "application/json" },
    });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({
      statusCode: 404,
      error: "This page could not be found",
      requestId: api.headers["x-request-id"],
    });
  });

  it("shows a browser the 500 page, not the failure, when the receiver itself fails", async () => {
    const failing = await startWebhook(config(), captureLogger(), {
      enqueue: async () => {
        throw new Error(`redis://internal-host:6379 exploded`);
      },
      ping: async () => {},
      close: async () => {},
    } as unknown as Parameters<typeof startWebhook>[2]);
    try {
      const response = await failing.app.inject({
        method: "POST",
        url: "/webhooks/prismic",
        headers: { "content-type": "application/json", accept: "text/html" },
        payload: JSON.stringify(apiUpdate({ masterRef: "REF-html" })),
      });
      expect(response.statusCode).toBe(500);
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(response.body).toContain("Something went wrong on our side");
      for (const internal of ["internal-host", "exploded", "    at "])
        expect(response.body).not.toContain(internal);
      const id = response.headers["x-request-id"] as string;
      expect(logLines.some((line) => line.includes(id) && line.includes("internal-host"))).toBe(true);
    } finally {
      await failing.close();
    }
  });
});

describe("webhook receiver: log volume", () => {
  it("writes one info line per request, and one invalid-secret warning per minute however many arrive", async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new PassThrough();
    stream.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line));
    });
    const own = await startWebhook(
      config(),
      createLogger({ name: "webhook", level: "info", destination: stream, pretty: false }),
    );
    try {
      const deliveries = 40;
      for (let i = 0; i < deliveries; i++) {
        const response = await own.app.inject({
          method: "POST",
          url: "/webhooks/prismic",
          headers: { "content-type": "application/json" },
          payload: JSON.stringify(apiUpdate({ secret: `wrong-${i}` })),
        });
        expect(response.statusCode).toBe(401);
      }
      await new Promise((resolve) => setImmediate(resolve));
      const perRequest = lines.filter((line) => line.reqId !== undefined && line.level === 30);
      const byRequest = new Map<unknown, Record<string, unknown>[]>();
      for (const line of perRequest) byRequest.set(line.reqId, [...(byRequest.get(line.reqId) ?? []), line]);
      expect(byRequest.size).toBe(deliveries);
      for (const group of byRequest.values()) {
        expect(group).toHaveLength(1);
        expect(group[0]).toMatchObject({ msg: "delivery refused: invalid secret", statusCode: 401 });
      }
      const warnings = lines.filter((line) => line.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ msg: "delivery refused: invalid secret", suppressedSinceLast: 0 });
    } finally {
      await own.close();
    }
  });
});
