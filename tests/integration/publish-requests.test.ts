/**
 * What a single-page edit costs the content API, and how reconcile treats a moved master ref: the
 * real local content service (counting the requests it answers), the real content client, real
 * Redis, the worker's publish. The edited page embeds price lists and other pages link to it, so
 * its publish re-renders those pages too.
 */
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "../../services/shared/src/jobs/catalog.ts";
import { createSiteStore } from "../../services/shared/src/storage/index.ts";
import { buildSiteAssets } from "../../web/src/assets.ts";
import { diffBuild, type PublishContext, publish } from "../../worker/src/publish/publish.ts";
import { reconcile } from "../../worker/src/reconcile.ts";
import { localContentClient } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PRICING = JSON.parse(
  readFileSync(`${ROOT}services/local-prismic/demo/documents/Z9nWvxEAACUAx1Ee.json`, "utf8"),
) as { id: string; uid: string; data: Record<string, unknown> & { slices: { slice_type: string }[] } };
const PREFIX = `test-publish-requests-${process.pid}-${Date.now()}`;

let content: LocalPrismic;
let redis: Redis;
let ctx: PublishContext;

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

  ctx = {
    client,
    store: createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" }),
    redis,
    queuePrefix: PREFIX,
    siteUrl: "https://www.example.com",
    assets: (await buildSiteAssets()).assets,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  };
  // The index a worker has after its first build.
  await diffBuild(ctx, await client.fetchMasterRef());
}, 60_000);

afterAll(async () => {
  await ctx?.store.close();
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await content?.stop();
});

describe("content API requests of a publish", () => {
  it("a single-page edit embedding price lists, with pages linking to it, makes at most 3 requests", async () => {
    expect(PRICING.data.slices.filter((s) => s.slice_type === "price_list_table").length).toBeGreaterThan(0);
    const marker = "Counted publish of the pricing page";
    const answer = await fetch(`${content.url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ upsert: [{ ...PRICING, data: { ...PRICING.data, meta_description: marker } }] }),
    });
    expect(answer.status).toBe(200);
    // What the webhook receiver records before it enqueues the publish job.
    await redis.sadd(redisKeys(PREFIX).pendingIds, PRICING.id);

    const before = await served();
    const summary = await publish(ctx);
    const requests = (await served()) - before;

    expect(summary.mode).toBe("incremental");
    // The page itself, the pages linking to it (home, services, and every page through the
    // navigation in settings), the listings.
    expect(summary.rendered).toBeGreaterThan(3);
    const page = (await ctx.store.get(`${PRICING.uid}/index.html`))?.body.toString("utf8") ?? "";
    expect(page).toContain(marker);
    // The master ref; the changed id, settings and every document the re-rendered routes read last
    // time (their pages, the embedded price lists) in one request; the price-list index's listing.
    expect(requests).toBeLessThanOrEqual(3);
  }, 60_000);
});

describe("reconcile after the master ref moved", () => {
  it("gives the webhook one round, then catches the lost edit with a diff build", async () => {
    const assetKeys = (await buildSiteAssets()).files.map((file) => file.key);
    const marker = "Published with its webhook lost";
    // Straight into the content service's store: the ref moves, no webhook is ever sent.
    await content.store.publish({
      upsert: [{ ...PRICING, data: { ...PRICING.data, meta_description: marker } }],
    });
    const pageText = async () => (await ctx.store.get(`${PRICING.uid}/index.html`))?.body.toString("utf8");

    // The round that falls between the ref moving and its webhook only takes note.
    const first = await reconcile(ctx, assetKeys);
    expect(first).toMatchObject({ action: "none", reason: expect.stringContaining("waiting one round") });
    expect(await pageText()).not.toContain(marker);
    // The next round still sees that ref unpublished: the webhook was lost.
    const second = await reconcile(ctx, assetKeys);
    expect(second).toMatchObject({ action: "diff-build", ref: content.store.masterRef });
    expect(await pageText()).toContain(marker);
    // Up to date now: nothing more to do.
    expect(await reconcile(ctx, assetKeys)).toMatchObject({ action: "none", reason: "up to date" });
  }, 60_000);
});
