/**
 * One document that fails to render must not block every publish. The content API answers one
 * page tagged for the render failpoint, whose render then throws (web/src/failpoints.ts: no content
 * fails a render, a bug in a component still can); a publish
 * of it and of another page commits the other page, keeps the failing route's last good page, and
 * records the failure (route, document id, error) for `pressroom status`; when the document
 * changes again and renders, the failure is forgotten. Real Redis, the real worker and receiver,
 * the local content service behind a real HTTP proxy that alters that one document.
 */
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
import { createSiteStore, type SiteStore } from "#storage";
import { RENDER_FAILPOINT_TAG } from "#web/failpoints.ts";
import { startWebhook } from "#webhook/server.ts";
import { statusCommand } from "#worker/inspect.ts";
import { onRouteFailed, type RouteFailure } from "#worker/publish/route-failures.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig } from "../support/content-client.ts";
import { type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { webhookOptions } from "../support/webhook-options.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO = `${ROOT}services/local-prismic/demo/documents/`;
const PREFIX = `test-route-failure-${process.pid}-${Date.now()}`;
const SECRET = "route-failure-secret";
const logger = pino({ level: "silent" });
const BROKEN_ID = "Z9nWvBEAACQAx1Dd"; // /services
const OTHER_ID = "Z9nWvxEAACUAx1Ee"; // /pricing
const demo = (id: string) => JSON.parse(readFileSync(`${DEMO}${id}.json`, "utf8"));

let content: LocalPrismic;
let proxy: HttpFixture;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let worker: RunningWorker;
let site: { path: string; remove: () => Promise<void> };
let redis: Redis;
let store: SiteStore;
let config: PublisherConfig;
let breakIt = false;

async function publishTitles(titles: Record<string, string>) {
  const upsert = Object.entries(titles).map(([id, title]) => {
    const doc = demo(id);
    return { ...doc, data: { ...doc.data, title: [{ type: "heading1", text: title, spans: [] }] } };
  });
  const answer = await fetch(`${content.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ upsert }),
  });
  expect(answer.status).toBe(200);
  await until(
    "the publish to commit",
    async () =>
      (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef &&
      (await redis.scard(`${PREFIX}:processing-ids`)) + (await redis.scard(`${PREFIX}:pending-ids`)) === 0,
    { timeoutMs: 60_000 },
  );
}

const page = async (key: string) => (await store.get(key))?.body.toString() ?? "";

beforeAll(async () => {
  // On for this file's process (and the render threads and \`pressroom build\` it starts); only
  // documents the proxy tags fail.
  process.env.PRESSROOM_FAILPOINTS = "render";
  site = await tempDir("route-failure-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), logger);
  content = await startLocalPrismic({ webhookUrl: `${webhook.url}/webhooks/prismic`, webhookSecret: SECRET });
  // Forwards every request; while `breakIt`, the broken page comes back tagged for the render
  // failpoint (web/src/failpoints.ts): its render throws, as a component with a bug would. No
  // content can fail a render any more, so the fault is injected in the code.
  proxy = await startHttpFixture(async (request, response) => {
    const upstream = await fetch(`${content.url}${request.url}`, {
      headers: { accept: "application/json" },
    });
    let body = (await upstream.text()).replaceAll(content.url, proxy.url);
    if (breakIt && body.includes(BROKEN_ID)) {
      const json = JSON.parse(body) as { results?: { id: string; tags: string[] }[] };
      for (const doc of json.results ?? [])
        if (doc.id === BROKEN_ID) doc.tags = [...doc.tags, RENDER_FAILPOINT_TAG];
      body = JSON.stringify(json);
    }
    response.writeHead(upstream.status, { "content-type": "application/json" }).end(body);
  });
  config = {
    logLevel: "silent",
    prismic: contentConfig(content.endpoint.replace(content.url, proxy.url), { cacheTtlMs: 0 }),
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    storage: { url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" },
    siteUrl: "https://www.example.com",
  };
  worker = await startWorker(config, logger, { rootDir: ROOT, reconcileEveryMs: 3_600_000 });
  store = createSiteStore(config.storage);
  await until(
    "the first build",
    async () => (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef,
    { timeoutMs: 60_000 },
  );
}, 90_000);

afterAll(async () => {
  delete process.env.PRESSROOM_FAILPOINTS;
  await worker?.close();
  await webhook?.close();
  await content?.stop();
  await proxy?.close();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await site?.remove();
});

describe("a document that fails to render", () => {
  it("keeps its last good page and is recorded as failed; the rest of the publish commits", async () => {
    const lastGood = await page("services/index.html");
    expect(lastGood).not.toBe("");
    const seen: RouteFailure[] = [];
    const stop = onRouteFailed((failure) => seen.push(failure));
    breakIt = true;
    try {
      await publishTitles({ [BROKEN_ID]: "Services, broken", [OTHER_ID]: "Pricing, edited" });
    } finally {
      stop();
    }
    expect(await page("pricing/index.html")).toContain("Pricing, edited");
    expect(await page("services/index.html")).toBe(lastGood);
    expect(seen.map((f) => [f.route, f.documentId])).toEqual([["/services", BROKEN_ID]]);
    const status = await statusCommand(config);
    expect(status).toMatch(/failed routes: +1 keep their last good page/);
    expect(status).toContain(`/services  document ${BROKEN_ID}`);

    // The document changes again and renders: the route is published, the failure forgotten.
    breakIt = false;
    await publishTitles({ [BROKEN_ID]: "Services, fixed" });
    expect(await page("services/index.html")).toContain("Services, fixed");
    expect(await statusCommand(config)).toMatch(/failed routes: +none/);
  }, 120_000);
});
