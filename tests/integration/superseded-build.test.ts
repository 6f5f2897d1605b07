/**
 * Every write carries its generation, a diff build's too. A worker paused in the middle
 * of a diff build (reconcile's, or a delivery naming no document) whose lock another worker took
 * over meanwhile must write nothing when it resumes: not a page, not an orphan deletion, not the
 * manifest, not the index. Here the takeover happens while the build reads its content (the proxy
 * in front of the content service starts a newer generation, as the other worker's publish would).
 * Before, a diff build took a generation but its writes never checked it. Real Redis, the local
 * content service, a folder.
 */
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANIFEST_KEY } from "#manifest/manifest.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { nextGeneration, SupersededError } from "#worker/publish/generation.ts";
import { localContentClient } from "../support/content-client.ts";
import { siteObjects } from "../support/full-build-reference.ts";
import { type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PREFIX = `test-superseded-build-${process.pid}-${Date.now()}`;
const ABOUT = JSON.parse(
  readFileSync(`${ROOT}services/local-prismic/demo/documents/Z9nWuhEAACMAx1Cc.json`, "utf8"),
);

let content: LocalPrismic;
let proxy: HttpFixture;
let site: { path: string; remove: () => Promise<void> };
let redis: Redis;
let store: SiteStore;
let ctx: PublishContext;
/** Set: the next search starts a newer generation first (another worker took the publish over). */
let takeOverOnNextSearch = false;

beforeAll(async () => {
  site = await tempDir("superseded-build-site");
  redis = new Redis({ maxRetriesPerRequest: null });
  content = await startLocalPrismic();
  proxy = await startHttpFixture(async (request, response) => {
    if (takeOverOnNextSearch && request.url.startsWith("/api/v2/documents/search")) {
      takeOverOnNextSearch = false;
      await nextGeneration(redis, PREFIX);
    }
    const upstream = await fetch(`${content.url}${request.url}`);
    const text = await upstream.text();
    const root = new URL(request.url, content.url).pathname === "/api/v2";
    response
      .writeHead(upstream.status, { "content-type": "application/json" })
      .end(root ? text.replaceAll(content.url, proxy.url) : text);
  });
  store = createSiteStore({ url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
  ctx = {
    client: localContentClient(`${proxy.url}/api/v2`),
    store,
    redis,
    queuePrefix: PREFIX,
    siteUrl: "https://www.example.com",
    assets: (await buildSiteAssets()).assets,
    logger: pino({ level: "silent" }),
    renderThreads: 0,
  };
  await diffBuild(ctx, content.store.masterRef);
}, 60_000);

afterAll(async () => {
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await proxy?.close();
  await content?.stop();
  await site?.remove();
});

describe("a diff build superseded while it runs", () => {
  it("writes nothing and commits nothing: pages, orphans, manifest and index stay the newer publish's", async () => {
    const before = await siteObjects(store);
    const manifest = (await store.get(MANIFEST_KEY))?.body.toString();
    const indexRef = await redis.hget(`${PREFIX}:index:meta`, "ref");
    // A change the build would write (a title) and one it would delete (an unpublished page).
    await content.store.publish({
      upsert: [{ ...ABOUT, data: { ...ABOUT.data, meta_title: "About, from a superseded build" } }],
      remove: ["Z9nWzxEAACUAx1Kk"],
    });

    takeOverOnNextSearch = true;
    await expect(diffBuild(ctx, content.store.masterRef)).rejects.toBeInstanceOf(SupersededError);

    expect(await siteObjects(store)).toEqual(before);
    expect((await store.get(MANIFEST_KEY))?.body.toString()).toBe(manifest);
    expect(await redis.hget(`${PREFIX}:index:meta`, "ref")).toBe(indexRef);
  }, 60_000);

  it("writes everything when nothing supersedes it", async () => {
    await diffBuild(ctx, content.store.masterRef);
    expect((await store.get("about/index.html"))?.body.toString()).toContain(
      "About, from a superseded build",
    );
    expect(await redis.hget(`${PREFIX}:index:meta`, "ref")).toBe(content.store.masterRef);
  }, 60_000);
});
