/**
 * The diff build: with the dependency index gone (Redis lost its data), every
 * publish renders the whole site, and one document that fails to render must not block them all.
 * The route keeps its last good page (not written, not deleted as an orphan, kept in the manifest
 * and the index), is recorded as failed for `pressroom status`, every other route is written as a
 * full build renders it; when the document is fixed, the next publish renders it and forgets the
 * failure. `pressroom build` builds the rest, names the route and exits non-zero. A content API
 * that is down still fails the build, deleting nothing (not a route's failure). Real Redis, the
 * real worker, receiver and `pressroom` command, the local content service behind a real HTTP
 * proxy that breaks that one document (as route-failure.test.ts does).
 */
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
import { MANIFEST_KEY } from "#manifest/manifest.ts";
import { createSiteStore, type SiteStore, sha256 } from "#storage";
import { RENDER_FAILPOINT_TAG } from "#web/failpoints.ts";
import { startWebhook } from "#webhook/server.ts";
import { fullBuild } from "#worker/build/full-build.ts";
import { statusCommand } from "#worker/inspect.ts";
import { onRouteFailed, type RouteFailure } from "#worker/publish/route-failures.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig, localContentClient } from "../support/content-client.ts";
import { siteObjects } from "../support/full-build-reference.ts";
import { type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { runPressroom } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { webhookOptions } from "../support/webhook-options.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO = `${ROOT}services/local-prismic/demo/documents/`;
const PREFIX = `test-build-route-failure-${process.pid}-${Date.now()}`;
const SECRET = "build-route-failure-secret";
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
let apiDown = false;

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
    { timeoutMs: 90_000 },
  );
}

const page = async (key: string) => (await store.get(key))?.body.toString() ?? "";

beforeAll(async () => {
  // On for this file's process (and the render threads and \`pressroom build\` it starts); only
  // documents the proxy tags fail.
  process.env.PRESSROOM_FAILPOINTS = "render";
  site = await tempDir("build-route-failure-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), logger);
  content = await startLocalPrismic({ webhookUrl: `${webhook.url}/webhooks/prismic`, webhookSecret: SECRET });
  // Forwards every request; while `breakIt`, the broken page comes back tagged for the render
  // failpoint (web/src/failpoints.ts): its render throws, as a component with a bug would. No
  // content can fail a render any more, so the fault is injected in the code.
  proxy = await startHttpFixture(async (request, response) => {
    if (apiDown) {
      response.writeHead(503, { "content-type": "application/json" }).end('{"message":"down"}');
      return;
    }
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

const SERVICES = "services/index.html";

describe("a document that fails to render, in a diff build", () => {
  it("keeps its last good page and is recorded as failed; the rest of the site is built and committed", async () => {
    const lastGood = await page(SERVICES);
    expect(lastGood).not.toBe("");
    const seen: RouteFailure[] = [];
    const stop = onRouteFailed((failure) => seen.push(failure));
    breakIt = true;
    try {
      // Redis lost the index: the next publish renders everything as a diff build.
      await removeKeysUnder(redis, `${PREFIX}:index`);
      await publishTitles({ [BROKEN_ID]: "Services, broken", [OTHER_ID]: "Pricing, edited" });
    } finally {
      stop();
    }
    expect(await page("pricing/index.html")).toContain("Pricing, edited");
    expect(await page(SERVICES)).toBe(lastGood);
    // Once per diff build that met it (reconcile may run one too, as the index is gone): one route.
    expect([...new Set(seen.map((f) => `${f.route} ${f.documentId}`))]).toEqual([`/services ${BROKEN_ID}`]);

    // Read while the proxy still breaks the document: a rebuild the worker may still run (reconcile,
    // as the index is gone) fails on it again, and cannot repair the page before it is read.
    const actual = await siteObjects(store);
    const manifest = await storedManifest(store);
    const indexed = JSON.parse((await redis.hget(`${PREFIX}:index:routes`, "/services")) ?? "{}");
    const status = await statusCommand(config);

    // Every other object is what a full build at this ref writes (the reference reads the content
    // through the proxy no longer breaking the document, which renders there: only its page differs).
    breakIt = false;
    const reference = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
    await fullBuild({
      client: localContentClient(config.prismic.endpoint),
      store: reference,
      siteUrl: config.siteUrl,
      logger,
      ref: content.store.masterRef,
      renderThreads: 0,
    });
    const expected = await siteObjects(reference);
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, body] of expected)
      if (key !== SERVICES) expect(actual.get(key) === body, `${key} differs from a full build`).toBe(true);
    expect(actual.get(SERVICES)).not.toBe(expected.get(SERVICES));

    // The manifest keeps the route's previous entry; the rebuilt index still lists it, depending
    // on its document, so the document's next publication renders it.
    expect(manifest?.ref).toBe(content.store.masterRef);
    expect(manifest?.routes["/services"]).toMatchObject({ key: SERVICES, hash: sha256(lastGood) });
    expect(indexed.dependencies).toContain(`doc:${BROKEN_ID}`);

    expect(status).toMatch(/failed routes: +1 keep their last good page/);
    expect(status).toContain(`/services  document ${BROKEN_ID}`);

    // The document is fixed: the next publish renders the route and forgets the failure.
    await publishTitles({ [BROKEN_ID]: "Services, fixed" });
    expect(await page(SERVICES)).toContain("Services, fixed");
    expect(await statusCommand(config)).toMatch(/failed routes: +none/);
  }, 240_000);

  it("`pressroom build` builds every other route, names the failed one and exits non-zero", async () => {
    const folder = await tempDir("build-route-failure-cli");
    breakIt = true;
    try {
      const run = () =>
        runPressroom(["build"], {
          LOG_LEVEL: "silent",
          PRISMIC_REPOSITORY: "demo",
          PRISMIC_ENDPOINT: config.prismic.endpoint,
          PRISMIC_CACHE_TTL_MS: "0",
          STORAGE_URL: `file://${folder.path}`,
          SITE_URL: config.siteUrl,
        });
      // Run again at the same ref, the failed route is tried again and named again: a build that
      // failed is never one a rebuild keeps whole.
      for (const { code, output } of [await run(), await run()]) {
        expect(code, output).toBe(1);
        expect(output).toMatch(/1 route failed to render and kept its last good page/);
        expect(output).toContain(`/services  document ${BROKEN_ID}`);
      }
      const built = createSiteStore({
        url: `file://${folder.path}`,
        s3Endpoint: undefined,
        s3Region: "us-east-1",
      });
      try {
        expect((await built.get("pricing/index.html"))?.body.toString()).toContain("<html");
        expect(await built.get(SERVICES)).toBeUndefined();
        expect((await storedManifest(built))?.routes["/services"]).toBeUndefined();
      } finally {
        await built.close();
      }
    } finally {
      breakIt = false;
      await folder.remove();
    }
  }, 180_000);

  it("still fails, deleting nothing, when the content API is down (not a route's failure)", async () => {
    const before = await siteObjects(store);
    const manifest = (await store.get(MANIFEST_KEY))?.body.toString();
    apiDown = true;
    try {
      await expect(
        fullBuild({
          client: localContentClient(config.prismic.endpoint),
          store,
          siteUrl: config.siteUrl,
          logger,
          ref: content.store.masterRef,
          renderThreads: 0,
        }),
      ).rejects.toThrow();
    } finally {
      apiDown = false;
    }
    expect(await siteObjects(store)).toEqual(before);
    expect((await store.get(MANIFEST_KEY))?.body.toString()).toBe(manifest);
  }, 60_000);
});
