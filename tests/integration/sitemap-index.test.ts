/**
 * The sitemap divided into parts, on the demo repository with the part size lowered to the demo's
 * own count of pages and price lists: at exactly that count `/sitemap.xml` is one urlset; publishes
 * that add and remove pages across it turn it into an index of `/sitemap-K-of-N.xml` parts, divide
 * it further, and turn it back; after every step storage holds byte for byte what a fresh full
 * build with the same part size writes, every file is valid sitemap XML, the site server serves the
 * parts as XML and robots.txt still names /sitemap.xml. A publish renders sitemap routes from the
 * index read by listing slot: an edit that moves one page's lastmod renders the one part holding
 * it, reading that part's documents only, nothing else of the sitemap. A full build over storage
 * holding parts it no longer needs deletes them.
 */
import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import Fastify from "fastify";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listingSlotOf } from "#content/dependencies.ts";
import { createClientSource } from "#content/source.ts";
import { redisKeys } from "#jobs/catalog.ts";
import { siteApp } from "#site/app.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import { partSlots } from "#web/handlers/sitemap-split.ts";
import { website } from "#website";
import { fullBuild } from "#worker/build/full-build.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
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
/** What each publish logged: its plan (`render`, `delete`, with the route), among the rest. */
const logged: { msg?: string; route?: string }[] = [];
const logger = pino({ level: "debug" }, { write: (line: string) => logged.push(JSON.parse(line)) });

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
let site: FastifyInstance;
/** The demo's pages and price lists: the part size of this test. */
let limit: number;
/** The demo's sitemap URLs. */
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
  const client = ctx.client;
  const ref = await ctx.client.fetchMasterRef();
  const source = createClientSource(client, ref);
  limit = (await source.countByType("page")) + (await source.countByType("price_list"));
  ctx.sitemapUrlLimit = limit;
  await diffBuild(ctx, ref);
  demoUrls = locs(await text("sitemap.xml"));
  site = Fastify();
  await site.register(siteApp, { store, manifestRefreshMs: 0 });
}, 120_000);

afterAll(async () => {
  await site?.close();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis?.quit();
  await content?.stop();
});

async function text(key: string, from: SiteStore = store): Promise<string> {
  return (await from.get(key))?.body.toString() ?? "";
}
/**
 * Publishes through the content service, then runs the worker's publish as a webhook would; answers
 * the sitemap routes it rendered (planned, or named by the index it rendered), every route it
 * rendered, and how many documents' stubs its listings read from the index.
 */
async function delivered(edit: {
  upsert?: Doc[];
  remove?: string[];
}): Promise<{ rendered: string[]; routes: string[]; listed: number }> {
  await content.store.publish(edit);
  const ids = [...(edit.upsert ?? []).map((doc) => doc.id), ...(edit.remove ?? [])];
  await redis.sadd(redisKeys(PREFIX).pendingIds, ...ids);
  logged.length = 0;
  const summary = await publish(ctx);
  expect(summary.mode).toBe("incremental");
  const routes = logged.flatMap((line) => (line.msg === "render" && line.route ? [line.route] : []));
  const rendered = routes.filter((route) => website.routes.isSitemap(route));
  return { rendered: rendered.sort(), routes: routes.sort(), listed: summary.listed ?? 0 };
}
/** Pages made from the FAQ page, uids `extra-<from>` …. */
const extraPages = (from: number, count: number): Doc[] =>
  Array.from({ length: count }, (_, i) => ({
    ...FAQ,
    id: `SitemapExtra${String(from + i).padStart(4, "0")}`,
    uid: `extra-${String(from + i).padStart(3, "0")}`,
  }));
const partKeys = async (from: SiteStore = store) =>
  [...(await siteObjects(from)).keys()].filter((key) => /^sitemap-\d+-of-\d+\.xml$/.test(key)).sort();
const partsOf = (of: number) => Array.from({ length: of }, (_, i) => `sitemap-${i + 1}-of-${of}.xml`).sort();
const equalsFullBuild = () =>
  expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL, {
    sitemapUrlLimit: limit,
  });

/** The sitemap as stored: the index's parts in order (none: one urlset) and every URL, sorted; all valid. */
async function storedSitemap(): Promise<{ parts: string[]; urls: string[] }> {
  const root = await text("sitemap.xml");
  if (root.includes("<urlset")) {
    expect(root).toMatch(URLSET);
    return { parts: [], urls: locs(root) };
  }
  expect(root).toMatch(INDEX);
  expect(root).not.toContain("<lastmod>");
  const parts = locs(root);
  const urls: string[] = [];
  for (const [i, loc] of parts.entries()) {
    expect(loc).toBe(`${SITE_URL}/sitemap-${i + 1}-of-${parts.length}.xml`);
    const xml = await text(`sitemap-${i + 1}-of-${parts.length}.xml`);
    // A part lists its own documents sorted; a small part may list none.
    if (locs(xml).length > 0) expect(xml).toMatch(URLSET);
    expect(locs(xml)).toEqual([...locs(xml)].sort());
    urls.push(...locs(xml));
  }
  return { parts, urls: urls.sort() };
}

describe("the sitemap divided into parts", () => {
  it("at exactly the part size /sitemap.xml stays one urlset, and no part is written", async () => {
    const { parts, urls } = await storedSitemap();
    expect(parts).toEqual([]);
    expect(urls).toEqual(demoUrls);
    expect(await partKeys()).toEqual([]);
    await equalsFullBuild();
  });

  it("a publish that adds one page over it makes it an index of two parts, each page in its slot's part", async () => {
    const { rendered } = await delivered({ upsert: extraPages(0, 1) });
    expect(rendered).toEqual(["/sitemap-1-of-2.xml", "/sitemap-2-of-2.xml", "/sitemap.xml"]);
    const { parts, urls } = await storedSitemap();
    expect(parts).toHaveLength(2);
    expect(await partKeys()).toEqual(partsOf(2));
    expect(urls).toEqual([...demoUrls, `${SITE_URL}/extra-000`].sort());
    // The new page is listed in the part whose slots hold its id.
    const slot = listingSlotOf("SitemapExtra0000");
    const holding = slot < partSlots(2, 2).from ? 1 : 2;
    expect(locs(await text(`sitemap-${holding}-of-2.xml`))).toContain(`${SITE_URL}/extra-000`);
    await equalsFullBuild();

    // Served as XML, listed in the manifest; robots.txt names the index.
    for (const path of ["/sitemap.xml", "/sitemap-1-of-2.xml", "/sitemap-2-of-2.xml"]) {
      const response = await site.inject({ url: path });
      expect(response.statusCode, path).toBe(200);
      expect(response.headers["content-type"], path).toMatch(/^application\/xml/);
    }
    for (const path of ["/sitemap-3-of-2.xml", "/sitemap-1-of-4.xml", "/sitemap-1-of-3.xml"])
      expect((await site.inject({ url: path })).statusCode, path).toBe(404);
    expect((await site.inject({ url: "/robots.txt" })).body).toContain(`Sitemap: ${SITE_URL}/sitemap.xml\n`);
    const manifest = await storedManifest(store);
    expect(manifest?.routes["/sitemap-2-of-2.xml"]?.key).toBe("sitemap-2-of-2.xml");
  });

  it("an edit that moves one page's lastmod renders the one part holding it, not the index nor the other part", async () => {
    // The FAQ page was last published on a day of the seed: publishing it today moves its lastmod.
    const faq = { ...FAQ, data: { ...FAQ.data, meta_title: "FAQ, edited" } };
    const { rendered, listed } = await delivered({ upsert: [faq] });
    const holding = listingSlotOf(FAQ.id) < partSlots(2, 2).from ? 1 : 2;
    expect(rendered).toEqual([`/sitemap-${holding}-of-2.xml`]);
    // It read its own documents: those in its slots, and every price list for the first part's
    // /price-list/ (fewer than the site's pages and price lists, limit + 1).
    const { from, to } = partSlots(holding, 2);
    const source = createClientSource(ctx.client, content.store.masterRef);
    const inPart = (docs: Iterable<{ id: string }>) =>
      [...docs].filter((doc) => listingSlotOf(doc.id) >= from && listingSlotOf(doc.id) < to).length;
    const priceLists = [...(await source.getAllByType("price_list"))];
    expect(listed).toBe(
      inPart(await source.getAllByType("page")) + (holding === 1 ? priceLists.length : inPart(priceLists)),
    );
    expect(listed).toBeLessThan(limit + 1);
    await equalsFullBuild();
  });

  it("a price list edited again the same day renders the price list index, which reads no document's stub from the index", async () => {
    const list = JSON.parse(
      readFileSync(`${ROOT}services/local-prismic/demo/documents/Z9nWyREAACMAx1Ii.json`, "utf8"),
    ) as Doc;
    const titled = (text: string): Doc => ({
      ...list,
      data: { ...list.data, title: [{ type: "heading1", text, spans: [] }] },
    });
    // Its first publication of the day moves /price-list/'s lastmod: the first part reads every price list.
    const first = await delivered({ upsert: [titled("Website packages, edited")] });
    expect(first.rendered).toContain("/sitemap-1-of-2.xml");
    const again = await delivered({ upsert: [titled("Website packages, edited again")] });
    expect(again.routes).toContain("/price-list/");
    expect(again.rendered).toEqual([]);
    expect(again.listed).toBe(0);
    await equalsFullBuild();
  });

  it("a publish that adds twice as many pages divides it into four; a fresh full build writes the same, which a rebuild keeps", async () => {
    const { rendered } = await delivered({ upsert: extraPages(1, 2 * limit) });
    // The index and its new parts; the parts of two were planned too (their slots changed): they
    // answer 404 under four parts and are deleted.
    expect(rendered).toEqual(
      [...partsOf(2), ...partsOf(4)]
        .map((key) => `/${key}`)
        .concat("/sitemap.xml")
        .sort(),
    );
    const { parts, urls } = await storedSitemap();
    expect(parts).toHaveLength(4);
    expect(urls).toHaveLength(demoUrls.length + 2 * limit + 1);
    // The parts of two are gone.
    expect(await partKeys()).toEqual(partsOf(4));
    await equalsFullBuild();

    const fresh = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
    const build = () =>
      fullBuild({
        client: ctx.client,
        store: fresh,
        siteUrl: SITE_URL,
        logger,
        ref: content.store.masterRef,
        renderThreads: 1, // the part size reaches the render thread too
        sitemapUrlLimit: limit,
      });
    await build();
    expect(await partKeys(fresh)).toEqual(partsOf(4));
    expect(await text("sitemap.xml", fresh)).toBe(await text("sitemap.xml"));
    // Nothing changed: the index and its parts are kept as stored, none rendered again.
    const again = await build();
    expect(again.rendered).toBe(0);
    expect(await partKeys(fresh)).toEqual(partsOf(4));
    // A part deleted behind the build's back: the sitemap and its parts are rendered, the part written.
    const part2 = await text("sitemap-2-of-4.xml", fresh);
    await fresh.delete("sitemap-2-of-4.xml");
    const repaired = await build();
    expect(repaired.written).toBe(1);
    expect(repaired.rendered).toBe(website.routes.listings.length + 4);
    expect(await text("sitemap-2-of-4.xml", fresh)).toBe(part2);
    await fresh.close();
  }, 60_000);

  it("a publish that removes pages back under twice the part size divides it into two again", async () => {
    await delivered({ remove: extraPages(limit, limit + 1).map((doc) => doc.id) }); // limit + 1 documents more
    const { parts, urls } = await storedSitemap();
    expect(parts).toHaveLength(2);
    expect(urls).toHaveLength(demoUrls.length + limit);
    expect(await partKeys()).toEqual(partsOf(2));
    expect((await site.inject({ url: "/sitemap-3-of-4.xml" })).statusCode).toBe(404);
    await equalsFullBuild();
  });

  it("back at the part size /sitemap.xml is one urlset again and every part is deleted", async () => {
    await delivered({ remove: extraPages(0, limit).map((doc) => doc.id) });
    const { parts, urls } = await storedSitemap();
    expect(parts).toEqual([]);
    expect(urls).toEqual(demoUrls);
    expect(await partKeys()).toEqual([]);
    await equalsFullBuild();
  });

  it("a full build over storage holding parts it no longer needs deletes them", async () => {
    await delivered({ upsert: extraPages(0, 1) });
    expect(await partKeys()).toEqual(partsOf(2));
    ctx.sitemapUrlLimit = limit + 1; // now everything fits in one file
    try {
      const summary = await diffBuild(ctx, content.store.masterRef);
      expect(summary.deleted).toBeGreaterThanOrEqual(2);
      expect(await partKeys()).toEqual([]);
      expect((await storedSitemap()).parts).toEqual([]);
      await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL, {
        sitemapUrlLimit: limit + 1,
      });
    } finally {
      ctx.sitemapUrlLimit = limit;
    }
  });
});
