/**
 * What a single-page edit costs the content API, and how reconcile treats a moved master ref: the
 * real local content service (counting the requests it answers), the real content client, real
 * Redis, the worker's publish. The edited page embeds price lists and other pages link to it, so
 * its publish re-renders those pages too.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "#config";
import { redisKeys } from "#jobs/catalog.ts";
import { createSiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import { planCommand, statusCommand } from "#worker/inspect.ts";
import { publishDelivery } from "#worker/processors/publish.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { DependencyIndex } from "#worker/publish/dependency-index.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { nextGeneration } from "#worker/publish/generation.ts";
import { publish } from "#worker/publish/publish.ts";
import { renderBatchJob } from "#worker/publish/render-routes.ts";
import { reconcile } from "#worker/reconcile.ts";
import { localContentClient } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
type DemoDocument = {
  id: string;
  uid: string;
  data: Record<string, unknown> & { slices: { slice_type: string }[] };
};
const demo = (id: string) =>
  JSON.parse(readFileSync(`${ROOT}services/local-prismic/demo/documents/${id}.json`, "utf8")) as DemoDocument;
const PRICING = demo("Z9nWvxEAACUAx1Ee");
const FAQ = demo("Z9nWwREAACMAx1Ff");
const WEBSITES = "Z9nWyREAACMAx1Ii";
const PREFIX = `test-publish-requests-${process.pid}-${Date.now()}`;

let content: LocalPrismic;
let redis: Redis;
let ctx: PublishContext;
let siteAssets: Awaited<ReturnType<typeof buildSiteAssets>>;

const served = async () => {
  const stats = (await (await fetch(`${content.url}/admin/stats`)).json()) as {
    requests: { repository: number; search: number };
  };
  return stats.requests.repository + stats.requests.search;
};

beforeAll(async () => {
  content = await startLocalPrismic();
  redis = new Redis({ maxRetriesPerRequest: null });
  // No response cache: every request the publish makes reaches the service and is counted.
  const client = localContentClient(content.endpoint);
  siteAssets = await buildSiteAssets();

  ctx = {
    client,
    store: createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" }),
    redis,
    queuePrefix: PREFIX,
    siteUrl: "https://www.example.com",
    assets: siteAssets.assets,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  };
  // The index a worker has after its first build.
  await diffBuild(ctx, await client.fetchMasterRef());
}, 60_000);

afterAll(async () => {
  await ctx?.store.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await content?.stop();
});

describe("content API requests of a publish", () => {
  it("a single-page edit embedding price lists, with pages linking to it, renders its own route in 2 requests", async () => {
    expect(PRICING.data.slices.filter((s) => s.slice_type === "price_list_table").length).toBeGreaterThan(0);
    const marker = "Counted publish of the pricing page";
    // Only the publish's own requests count: the edit goes straight into the content service's store.
    const before = await served();
    const summary = await delivered({ upsert: [withDescription(PRICING, marker)] });
    const requests = (await served()) - before;

    expect(summary.mode).toBe("incremental");
    // The page itself, and the sitemap when its lastmod day moved. Not the pages linking to it
    // (home, services, and every page through the navigation in settings): a content edit does
    // not change where their links point.
    const page = (await ctx.store.get(`${PRICING.uid}/index.html`))?.body.toString("utf8") ?? "";
    expect(page).toContain(marker);
    expect(summary.rendered).toBeGreaterThanOrEqual(1);
    expect(summary.rendered).toBeLessThanOrEqual(2);
    // The master ref; the changed id, settings and the embedded price lists in one request.
    expect(requests).toBeLessThanOrEqual(2);
  }, 60_000);
});

describe("the delivery's master ref: the batch asked for while the master ref is", () => {
  it("asks for the batch at the announced ref before the master ref has answered, and keeps it when they agree", async () => {
    // A proxy that holds the API root's answer until a search has been answered (or 3 s pass): with
    // the delivery's ref, the publish's batch is on its way while the master ref is still being
    // asked, and its answer is in before the master ref's.
    const order: string[] = [];
    let searched: () => void = () => {};
    const searchAnswered = new Promise<void>((resolve) => {
      searched = resolve;
    });
    const proxy = await contentProxy({
      asked: async (root) => {
        order.push(root ? "root asked" : "search asked");
        if (root) await Promise.race([searchAnswered, sleep(3_000)]);
      },
      answered: (root) => (root ? order.push("root answered") : setTimeout(searched, 50)),
    });
    try {
      const marker = "Published at the announced ref";
      await pendingPricingEdit(marker);
      const summary = await publish(
        { ...ctx, client: localContentClient(proxy.endpoint) },
        { announcedRef: content.store.masterRef },
      );
      expect(summary.mode).toBe("incremental");
      // One API root read (the master ref: no repository read before the search, the models have no
      // Integration Fields) and the batch's search, asked before the root answered.
      expect(order.slice(0, 3)).toEqual(["root asked", "search asked", "root answered"]);
      expect(order.filter((step) => step === "root asked")).toHaveLength(1);
      // That answer is used, not asked for again once the master ref agrees.
      expect(order.filter((step) => step === "search asked")).toHaveLength(1);
      expect(await pageText(PRICING.uid)).toContain(marker);
    } finally {
      proxy.close();
    }
  }, 60_000);

  it("publishes a delivery under the publish lock, lets it go, and a second delivery of the same ids finds nothing", async () => {
    const marker = "Published by its delivery";
    await pendingPricingEdit(marker);
    const delivery = { masterRef: content.store.masterRef };
    const summary = await publishDelivery(ctx, delivery, {});
    expect(summary?.mode).toBe("incremental");
    expect(await pageText(PRICING.uid)).toContain(marker);
    // The lock is let go, the ids are forgotten.
    expect(await redis.exists(redisKeys(PREFIX).publishLock)).toBe(0);
    expect(await redis.scard(redisKeys(PREFIX).processingIds)).toBe(0);
    // A second delivery of the same ids finds nothing pending: no lock, no publish.
    expect(await publishDelivery(ctx, delivery, {})).toBeUndefined();
  }, 60_000);

  it("asks for a price list's batch with the pages embedding it, which only the index names: one search by id", async () => {
    // Pages show the price list (`doc:`): the batch holds them too, as their routes' entries in the
    // index name them, in the one search by id (asked before those entries were read, they would
    // need a second).
    const byId: string[] = [];
    const api = await contentProxy({
      asked: (root, url) => {
        const q = url.searchParams.getAll("q").join(" ");
        if (!root && q.includes("document.id")) byId.push(q);
      },
    });
    try {
      const prices = demo(WEBSITES);
      const showing = await redis.smembers(`${PREFIX}:index:dep:doc:${WEBSITES}`);
      expect(showing.filter((route) => route !== "/price-list/websites").length).toBeGreaterThan(0);
      const [heading] = prices.data.title as Record<string, unknown>[];
      const title = [{ ...heading, text: "Website packages, edited", spans: [] }];
      await content.store.publish({ upsert: [{ ...prices, data: { ...prices.data, title } }] });
      await redis.sadd(redisKeys(PREFIX).pendingIds, WEBSITES);
      const summary = await publish(
        { ...ctx, client: localContentClient(api.endpoint) },
        { announcedRef: content.store.masterRef },
      );
      expect(summary.mode).toBe("incremental");
      expect(summary.rendered).toBeGreaterThan(1);
      // The batch by id: the price list, settings and the pages embedding it, in one search (a
      // listing of every price list is read apart, as before).
      expect(byId).toHaveLength(1);
      expect(byId[0]).toContain(WEBSITES);
    } finally {
      api.close();
    }
  }, 60_000);

  it("publishes at the master ref when the delivery announced an older one (a redelivery): the early answer is dropped", async () => {
    const old = content.store.masterRef;
    const marker = "Published at the master ref, not the announced one";
    const before = await served();
    await pendingPricingEdit(marker);
    const summary = await publish(ctx, { announcedRef: old });
    expect(summary.ref).toBe(content.store.masterRef);
    expect(await pageText(PRICING.uid)).toContain(marker);
    // The master ref, the batch at the old ref (dropped) and the batch at the master ref.
    expect((await served()) - before).toBe(3);
  }, 60_000);
});

describe("content API requests of a fan-out's child job", () => {
  it("asks for a batch's pages and what they show in 2 requests, not one per price list or for settings", async () => {
    // Every demo route but the listings (the price-list index lists every price list on its own).
    const routes = (await redis.hkeys(`${PREFIX}:index:routes`))
      .filter((route) => !["/price-list/", "/sitemap.xml", "/robots.txt"].includes(route))
      .sort();
    expect(routes.length).toBeGreaterThan(8);
    const ref = await ctx.client.fetchMasterRef();
    const before = await served();
    // A child job of the newest publish (an older generation's job is dropped unrendered).
    const generation = await nextGeneration(ctx.redis, ctx.queuePrefix);
    const outcome = await renderBatchJob(ctx, ref, routes, new Map(), generation);
    const requests = (await served()) - before;
    expect(outcome.rendered).toBe(routes.length);
    expect(outcome.gone).toEqual([]);
    // The pages by uid, and settings with the price lists the pages embed by id, at once.
    expect(requests).toBe(2);
  }, 60_000);
});

describe("reconcile after the master ref moved", () => {
  it("gives the webhook one round, then catches the lost edit with a diff build", async () => {
    const marker = "Published with its webhook lost";
    // Straight into the content service's store: the ref moves, no webhook is ever sent.
    await content.store.publish({
      upsert: [{ ...PRICING, data: { ...PRICING.data, meta_description: marker } }],
    });

    // The round that falls between the ref moving and its webhook only takes note.
    const first = await reconcile(ctx, assetKeys());
    expect(first).toMatchObject({ action: "none", reason: expect.stringContaining("waiting one round") });
    expect(await pageText(PRICING.uid)).not.toContain(marker);
    // The next round still sees that ref unpublished: the webhook was lost.
    const second = await reconcile(ctx, assetKeys());
    expect(second).toMatchObject({ action: "diff-build", ref: content.store.masterRef });
    expect(await pageText(PRICING.uid)).toContain(marker);
    // Up to date now: nothing more to do.
    expect(await reconcile(ctx, assetKeys())).toMatchObject({ action: "none", reason: "up to date" });
  }, 60_000);

  it("publishes an edit whose webhook was lost behind one that arrived, in the second round", async () => {
    const marker = "Edited, and its webhook lost";
    // Lost: straight into the content service's store.
    await content.store.publish({ upsert: [withDescription(FAQ, marker)] });
    // A later publication whose webhook arrives: a new page no other page links to. Its publish
    // renders at the newest ref and moves the index there, so the refs agree again.
    const fresh = { ...FAQ, id: "ReconcileNew00000001", uid: "reconcile-new" };
    await delivered({ upsert: [fresh] });
    expect(await ctx.redis.hget(`${PREFIX}:index:meta`, "ref")).toBe(content.store.masterRef);
    expect(await pageText(FAQ.uid)).not.toContain(marker);

    // A round can fall between a publication and its webhook: the first one only takes note.
    expect(await reconcile(ctx, assetKeys())).toMatchObject({
      action: "none",
      reason: expect.stringContaining("waiting one round"),
    });
    expect(await pageText(FAQ.uid)).not.toContain(marker);
    // What an operator sees meanwhile.
    expect(await status()).toMatch(
      new RegExp(
        `^reconcile: +publications checked up to .+; waiting one round: ${FAQ.id} published with no webhook yet$`,
        "m",
      ),
    );
    const second = await reconcile(ctx, assetKeys());
    // Only the lost edit: the pages linking to the FAQ (their link fields carry its new date) and
    // the page whose webhook came are not taken for unannounced publications.
    expect(second).toMatchObject({ action: "publish", reason: `published without a webhook: ${FAQ.id}` });
    expect(await pageText(FAQ.uid)).toContain(marker);
    expect(await reconcile(ctx, assetKeys())).toMatchObject({ action: "none", reason: "up to date" });
    expect(await status()).toMatch(/^reconcile: +publications checked up to \S+$/m);
  }, 60_000);

  it("runs a diff build for an unpublication whose webhook was lost behind one that arrived", async () => {
    expect(await pageText("reconcile-new")).toBeDefined();
    // Another page nothing links to, published with its webhook.
    const kept = { ...FAQ, id: "ReconcileKept0000001", uid: "reconcile-kept" };
    await delivered({ upsert: [kept] });
    // Lost: the first page unpublished. Then an edit of the other whose webhook arrives: it re-renders
    // nothing that depends on the first page, and the refs agree again.
    await content.store.publish({ remove: ["ReconcileNew00000001"] });
    await delivered({ upsert: [withDescription(kept, "Edited, webhook delivered")] });
    expect(await ctx.redis.hget(`${PREFIX}:index:meta`, "ref")).toBe(content.store.masterRef);

    expect(await reconcile(ctx, assetKeys())).toMatchObject({
      action: "none",
      reason: expect.stringContaining("waiting one round"),
    });
    expect(await pageText("reconcile-new")).toBeDefined();
    expect(await status()).toMatch(/; waiting one round: the document counts disagree$/m);
    const second = await reconcile(ctx, assetKeys());
    expect(second).toMatchObject({ action: "diff-build", reason: expect.stringContaining("unpublication") });
    expect(await pageText("reconcile-new")).toBeUndefined();
    expect(await reconcile(ctx, assetKeys())).toMatchObject({ action: "none", reason: "up to date" });
  }, 60_000);
});

describe("links to a changed page: read with the index's other reads", () => {
  it("asks Redis again only for a page that moved, and re-renders the pages linking to it then", async () => {
    const linkedElsewhere = vi.spyOn(DependencyIndex.prototype, "linkedElsewhere");
    const dependents = vi.spyOn(DependencyIndex.prototype, "dependents");
    try {
      const asked = () => linkedElsewhere.mock.calls.flatMap(([targets]) => targets.map(([id]) => id));
      // The routes linking to a page, read by name (every route, for a page the navigation links to).
      const linksRead = () =>
        dependents.mock.calls.flatMap(([names]) => names.filter((name) => name.startsWith("url:")));
      // The navigation links to the FAQ: a content edit leaves every link where it was.
      const edited = await delivered({ upsert: [withDescription(FAQ, "The FAQ, edited")] });
      expect(edited.mode).toBe("incremental");
      expect(await pageText(FAQ.uid)).toContain("The FAQ, edited");
      expect(asked()).toEqual([]);
      expect(linksRead()).toEqual([]);

      // Renamed: the index's read was for /faq, so the links are asked about its new route, and
      // the routes linking to it are read, once.
      const renamed = await delivered({ upsert: [{ ...FAQ, uid: "faq-moved" }] });
      expect(renamed.mode).toBe("incremental");
      expect(asked()).toEqual([FAQ.id]);
      expect(linksRead()).toEqual([`url:${FAQ.id}`]);
      expect(await pageText("about")).toContain('href="/faq-moved"');

      // And back, for the tests after this one.
      await delivered({ upsert: [FAQ] });
      expect(await pageText("about")).toContain(`href="/${FAQ.uid}"`);
    } finally {
      linkedElsewhere.mockRestore();
      dependents.mockRestore();
    }
  }, 60_000);
});

describe("the index read for the ids taken", () => {
  it("reads the index once per publish, for every id it took", async () => {
    const prior = vi.spyOn(DependencyIndex.prototype, "prior");
    try {
      await content.store.publish({ upsert: [withDescription(FAQ, "The FAQ, alone")] });
      await redis.sadd(redisKeys(PREFIX).pendingIds, FAQ.id);
      await publish(ctx);
      expect(prior.mock.calls.map(([ids]) => ids)).toEqual([[FAQ.id]]);
      expect(await pageText(FAQ.uid)).toContain("The FAQ, alone");

      // A burst: two deliveries' ids, one publish, one read.
      prior.mockClear();
      await content.store.publish({
        upsert: [
          withDescription(FAQ, "The FAQ, in a burst"),
          withDescription(PRICING, "Pricing, in a burst"),
        ],
      });
      await redis.sadd(redisKeys(PREFIX).pendingIds, FAQ.id, PRICING.id);
      const summary = await publish(ctx);
      expect(summary.ids).toBe(2);
      expect(prior.mock.calls.map(([ids]) => ids)).toEqual([[FAQ.id, PRICING.id].sort()]);
      expect(await pageText(FAQ.uid)).toContain("The FAQ, in a burst");
      expect(await pageText(PRICING.uid)).toContain("Pricing, in a burst");
    } finally {
      prior.mockRestore();
    }
  }, 60_000);
});

describe("pressroom plan", () => {
  it("says which routes show a document and which only link to it, and reads only", async () => {
    // Unpublished without a webhook: plan reads the master ref, so it sees it; nothing is written.
    await content.store.publish({ remove: [FAQ.id] });
    const config = loadConfig("publisher", { PRISMIC_ENDPOINT: content.endpoint, QUEUE_PREFIX: PREFIX });
    const output = await planCommand(config, [WEBSITES, FAQ.id]);
    // The price list is shown where it is embedded; the FAQ is linked to by the navigation.
    expect(output).toContain(`  /pricing  (shows ${WEBSITES})`);
    expect(output).toContain(`  /about  (links to ${FAQ.id}, which was unpublished)`);
    expect(output).toMatch(/^delete 1:\n {2}\/faq {2}\(document \S+ was unpublished\)$/m);
    expect(await pageText("faq")).toBeDefined();
  }, 60_000);
});

/** `doc` with another meta description (a visible change to its page's `<head>`). */
function withDescription(doc: DemoDocument, description: string): DemoDocument {
  return { ...doc, data: { ...doc.data, meta_description: description } };
}

/** The pricing page's description edited and published, its id pending as the receiver records it. */
async function pendingPricingEdit(description: string) {
  await content.store.publish({ upsert: [withDescription(PRICING, description)] });
  await redis.sadd(redisKeys(PREFIX).pendingIds, PRICING.id);
}

/** A publication whose webhook arrives: recorded as the receiver does, then published. */
async function delivered(edit: { upsert?: unknown[]; remove?: string[] }) {
  const ids = [...(edit.upsert ?? []).map((doc) => (doc as DemoDocument).id), ...(edit.remove ?? [])];
  await content.store.publish(edit);
  await redis.sadd(redisKeys(PREFIX).pendingIds, ...ids);
  return publish(ctx);
}

/** `pressroom status` against this test's Redis prefix and content service. */
const status = () =>
  statusCommand(loadConfig("publisher", { PRISMIC_ENDPOINT: content.endpoint, QUEUE_PREFIX: PREFIX }));
const assetKeys = () => siteAssets.files.map((file) => file.key);
const pageText = async (uid: string) => (await ctx.store.get(`${uid}/index.html`))?.body.toString("utf8");

/**
 * The content service behind a proxy: `asked` hears of each request (the API root or a search, and
 * its URL) and may hold it; `answered` hears when its answer has been sent.
 */
async function contentProxy(taps: {
  asked?: (root: boolean, url: URL) => Promise<void> | void;
  answered?: (root: boolean) => void;
}) {
  const proxy = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://proxy");
    const root = url.pathname === "/api/v2";
    await taps.asked?.(root, url);
    const answer = await fetch(`${content.url}${request.url}`);
    response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "" });
    response.end(Buffer.from(await answer.arrayBuffer()), () => taps.answered?.(root));
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}/api/v2`, close: () => proxy.close() };
}
