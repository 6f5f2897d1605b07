/**
 * The sitemap split into a sitemap index, on the demo repository with the URL limit
 * lowered to the demo's own count of sitemap URLs: at exactly the limit `/sitemap.xml` is one urlset;
 * publishes that add and remove pages across the limit turn it into an index of `/sitemap-N.xml`
 * parts, add parts, drop surplus parts, and turn it back; after every step storage holds byte for
 * byte what a fresh full build with the same limit writes, every file is valid sitemap XML, the
 * site server serves the parts as XML and robots.txt still names /sitemap.xml. A publish renders
 * the sitemap and its parts on a render thread, as a worker with render threads does, from the
 * index's stubs read there. A full build over storage holding parts it no longer needs deletes them.
 */
import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import Fastify from "fastify";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "#jobs/catalog.ts";
import { siteApp } from "#site/app.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import { website } from "#website";
import { fullBuild } from "#worker/build/full-build.ts";
import { sharedDocumentsCache } from "#worker/build/list-documents.ts";
import { createRenderPool, type RenderPool } from "#worker/build/render-pool.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { fetchAnswersByUid } from "#worker/publish/fetch-documents.ts";
import { publish } from "#worker/publish/publish.ts";
import { localContentClient } from "../support/content-client.ts";
import { expectEqualsFullBuild, siteObjects } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
type Doc = { id: string; uid: string; data: Record<string, unknown> };
const FAQ = JSON.parse(
  readFileSync(`${ROOT}services/local-prismic/demo/documents/Z9nWwREAACMAx1Ff.json`, "utf8"),
) as Doc;
const SITE_URL = "https://www.example.com";
const PREFIX = `test-sitemap-index-${process.pid}-${Date.now()}`;
const XMLNS = "http://www.sitemaps.org/schemas/sitemap/0.9";
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

/** Strictly the protocol's shape (and so well-formed XML): declaration, root, one element a line. */
const URLSET = new RegExp(
  `^<\\?xml version="1\\.0" encoding="UTF-8"\\?>\\n<urlset xmlns="${XMLNS}">\\n` +
    "(<url><loc>https://[^<>&\"']+</loc>(<lastmod>\\d{4}-\\d\\d-\\d\\d</lastmod>)?</url>\\n)+</urlset>\\n$",
);
const INDEX = new RegExp(
  `^<\\?xml version="1\\.0" encoding="UTF-8"\\?>\\n<sitemapindex xmlns="${XMLNS}">\\n` +
    "(<sitemap><loc>https://[^<>&\"']+</loc>(<lastmod>\\d{4}-\\d\\d-\\d\\d</lastmod>)?</sitemap>\\n)+</sitemapindex>\\n$",
);
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1] as string);

let content: LocalPrismic;
let redis: Redis;
let store: SiteStore;
let ctx: PublishContext;
let pool: RenderPool;
/** The routes each publish asked the render thread to render from the index's stubs. */
const onThread: string[][] = [];
let site: FastifyInstance;
/** The demo's sitemap URLs, from a build without a lowered limit: the limit of this test. */
let limit: number;
let demoUrls: string[];

beforeAll(async () => {
  store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
  content = await startLocalPrismic();
  redis = new Redis({ maxRetriesPerRequest: null });
  ctx = {
    client: localContentClient(content.endpoint),
    store,
    redis,
    queuePrefix: PREFIX,
    siteUrl: SITE_URL,
    assets: (await buildSiteAssets()).assets,
    logger,
  };
  pool = await createRenderPool({ siteUrl: SITE_URL, assets: ctx.assets, documents: [] }, logger, 1);
  const client = ctx.client;
  ctx.threads = {
    pool: async () => ({
      ...pool,
      renderFromStubs: (routes, stubs, sitemapUrlLimit) => {
        onThread.push([...routes]);
        return pool.renderFromStubs(routes, stubs, sitemapUrlLimit);
      },
    }),
    sharedDocuments: sharedDocumentsCache(client),
    pageAnswers: (ref, documents) => fetchAnswersByUid(client, ref, documents),
  };
  await diffBuild(ctx, await ctx.client.fetchMasterRef());
  demoUrls = locs(await text("sitemap.xml"));
  limit = demoUrls.length;
  ctx.sitemapUrlLimit = limit;
  site = Fastify();
  await site.register(siteApp, { store, manifestRefreshMs: 0 });
}, 120_000);

afterAll(async () => {
  await site?.close();
  await store?.close();
  await pool?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis?.quit();
  await content?.stop();
});

async function text(key: string, from: SiteStore = store): Promise<string> {
  return (await from.get(key))?.body.toString() ?? "";
}
/** Publishes through the content service, then runs the worker's publish as a webhook would. */
async function delivered(edit: { upsert?: Doc[]; remove?: string[] }) {
  await content.store.publish(edit);
  const ids = [...(edit.upsert ?? []).map((doc) => doc.id), ...(edit.remove ?? [])];
  await redis.sadd(redisKeys(PREFIX).pendingIds, ...ids);
  onThread.length = 0;
  const summary = await publish(ctx);
  expect(summary.mode).toBe("incremental");
  // The sitemap was rendered on the render thread, not beside the publish's pages.
  expect(onThread).toEqual([expect.arrayContaining(["/sitemap.xml"])]);
  return summary;
}
/** Pages made from the FAQ page, uids `extra-<from>` … (sorted after every demo route but /workshops). */
const extraPages = (from: number, count: number): Doc[] =>
  Array.from({ length: count }, (_, i) => ({
    ...FAQ,
    id: `SitemapExtra${String(from + i).padStart(4, "0")}`,
    uid: `extra-${String(from + i).padStart(3, "0")}`,
  }));
const partKeys = async (from: SiteStore = store) =>
  [...(await siteObjects(from)).keys()].filter((key) => /^sitemap-\d+\.xml$/.test(key)).sort();
const equalsFullBuild = () =>
  expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL, {
    sitemapUrlLimit: limit,
  });

/** The sitemap as stored: the index's parts (none: one urlset) and every URL in order; all valid. */
async function storedSitemap(max = limit): Promise<{ parts: string[]; urls: string[] }> {
  const root = await text("sitemap.xml");
  if (root.includes("<urlset")) {
    expect(root).toMatch(URLSET);
    expect(locs(root).length).toBeLessThanOrEqual(max);
    return { parts: [], urls: locs(root) };
  }
  expect(root).toMatch(INDEX);
  const parts = locs(root);
  const urls: string[] = [];
  for (const [i, loc] of parts.entries()) {
    expect(loc).toBe(`${SITE_URL}/sitemap-${i + 1}.xml`);
    const xml = await text(`sitemap-${i + 1}.xml`);
    expect(xml).toMatch(URLSET);
    expect(locs(xml).length).toBeLessThanOrEqual(max);
    urls.push(...locs(xml));
  }
  return { parts, urls };
}

describe("the sitemap split into a sitemap index", () => {
  it("at exactly the limit /sitemap.xml stays one urlset, and no part is written", async () => {
    await diffBuild(ctx, await ctx.client.fetchMasterRef());
    const { parts, urls } = await storedSitemap();
    expect(parts).toEqual([]);
    expect(urls).toEqual(demoUrls);
    expect(await partKeys()).toEqual([]);
    await equalsFullBuild();
  });

  it("a publish that adds one URL over the limit makes it an index of two parts", async () => {
    await delivered({ upsert: extraPages(0, 1) });
    const { parts, urls } = await storedSitemap();
    expect(parts).toHaveLength(2);
    expect(await partKeys()).toEqual(["sitemap-1.xml", "sitemap-2.xml"]);
    expect(urls).toEqual([...demoUrls, `${SITE_URL}/extra-000`].sort());
    expect(locs(await text("sitemap-1.xml"))).toHaveLength(limit);
    expect(locs(await text("sitemap-2.xml"))).toHaveLength(1);
    await equalsFullBuild();

    // Served as XML, listed in the manifest; robots.txt names the index.
    for (const path of ["/sitemap.xml", "/sitemap-1.xml", "/sitemap-2.xml"]) {
      const response = await site.inject({ url: path });
      expect(response.statusCode, path).toBe(200);
      expect(response.headers["content-type"], path).toMatch(/^application\/xml/);
    }
    expect((await site.inject({ url: "/sitemap-3.xml" })).statusCode).toBe(404);
    expect((await site.inject({ url: "/robots.txt" })).body).toContain(`Sitemap: ${SITE_URL}/sitemap.xml\n`);
    const manifest = await storedManifest(store);
    expect(manifest?.routes["/sitemap-2.xml"]?.key).toBe("sitemap-2.xml");
  });

  it("a publish that adds a limit's worth more writes a third part; a fresh full build writes the same, which a rebuild keeps", async () => {
    await delivered({ upsert: extraPages(1, limit) });
    const { parts, urls } = await storedSitemap();
    expect(parts).toHaveLength(3);
    expect(urls).toHaveLength(2 * limit + 1);
    expect(await partKeys()).toEqual(["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml"]);
    await equalsFullBuild();

    const fresh = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
    const build = () =>
      fullBuild({
        client: ctx.client,
        store: fresh,
        siteUrl: SITE_URL,
        logger,
        ref: content.store.masterRef,
        renderThreads: 1, // the limit reaches the render thread too
        sitemapUrlLimit: limit,
      });
    await build();
    expect(await partKeys(fresh)).toEqual(["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml"]);
    expect(await text("sitemap.xml", fresh)).toBe(await text("sitemap.xml"));
    // Nothing changed: the index and its parts are kept as stored, none rendered again.
    const again = await build();
    expect(again.rendered).toBe(0);
    expect(await partKeys(fresh)).toEqual(["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml"]);
    // A part deleted behind the build's back: the sitemap and its parts are rendered, the part written.
    const part2 = await text("sitemap-2.xml", fresh);
    await fresh.delete("sitemap-2.xml");
    const repaired = await build();
    expect(repaired.written).toBe(1);
    expect(repaired.rendered).toBe(website.routes.listings.length + 3);
    expect(await text("sitemap-2.xml", fresh)).toBe(part2);
    await fresh.close();
  }, 60_000);

  it("a publish that removes pages deletes the part no longer needed", async () => {
    await delivered({ remove: extraPages(limit - 1, 2).map((doc) => doc.id) }); // 2·limit − 1 URLs
    const { parts, urls } = await storedSitemap();
    expect(parts).toHaveLength(2);
    expect(urls).toHaveLength(2 * limit - 1);
    expect(await partKeys()).toEqual(["sitemap-1.xml", "sitemap-2.xml"]);
    expect((await site.inject({ url: "/sitemap-3.xml" })).statusCode).toBe(404);
    await equalsFullBuild();
  });

  it("back at the limit /sitemap.xml is one urlset again and every part is deleted", async () => {
    await delivered({ remove: extraPages(0, limit - 1).map((doc) => doc.id) });
    const { parts, urls } = await storedSitemap();
    expect(parts).toEqual([]);
    expect(urls).toEqual(demoUrls);
    expect(await partKeys()).toEqual([]);
    await equalsFullBuild();
  });

  it("a full build over storage holding parts it no longer needs deletes them", async () => {
    await delivered({ upsert: extraPages(0, 1) });
    expect(await partKeys()).toEqual(["sitemap-1.xml", "sitemap-2.xml"]);
    ctx.sitemapUrlLimit = limit + 1; // now everything fits in one file
    try {
      const summary = await diffBuild(ctx, content.store.masterRef);
      expect(summary.deleted).toBeGreaterThanOrEqual(2);
      expect(await partKeys()).toEqual([]);
      expect((await storedSitemap(limit + 1)).parts).toEqual([]);
      await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL, {
        sitemapUrlLimit: limit + 1,
      });
    } finally {
      ctx.sitemapUrlLimit = limit;
    }
  });
});
