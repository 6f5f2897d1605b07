/**
 * The copyright year turns: routes rendered in 2026 show "© 2026"; once the clock says
 * 2027, the worker's reconcile re-renders them through a normal publish, and then leaves them alone.
 * A fake clock (Date only) in this process; the real local content service, content client, Redis
 * and the worker's diff build, publish and reconcile.
 */
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createSiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { DependencyIndex } from "#worker/publish/dependency-index.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { reconcile } from "#worker/reconcile.ts";
import { localContentClient } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";

const PREFIX = `test-year-turn-${process.pid}-${Date.now()}`;
let content: LocalPrismic;
let redis: Redis;
let ctx: PublishContext;
let assetKeys: string[];

const copyright = async (key: string) =>
  /<p class="copyright">© (\d{4}) /.exec((await ctx.store.get(key))?.body.toString("utf8") ?? "")?.[1];

beforeAll(async () => {
  content = await startLocalPrismic();
  redis = new Redis({ maxRetriesPerRequest: null });
  const built = await buildSiteAssets();
  assetKeys = built.files.map((file) => file.key);
  ctx = {
    client: localContentClient(content.endpoint),
    store: createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" }),
    redis,
    queuePrefix: PREFIX,
    siteUrl: "https://www.example.com",
    assets: built.assets,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  };
}, 60_000);

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await ctx?.store.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await content?.stop();
});

describe("the copyright year", () => {
  it("is re-rendered by reconcile when the year turns, and only then", async () => {
    // Built this year (on the build's render threads, with the real clock).
    const thisYear = new Date().getUTCFullYear();
    await diffBuild(ctx, await ctx.client.fetchMasterRef());
    const index = new DependencyIndex(redis, PREFIX);
    expect(await index.recordedYears()).toEqual([thisYear]);
    expect(await copyright("about/index.html")).toBe(String(thisYear));

    // Still the same year: nothing to do.
    expect(await reconcile(ctx, assetKeys)).toMatchObject({ action: "none" });

    // The year turned: every route showing the year is rendered again, with the new year.
    const next = thisYear + 1;
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(`${next}-01-01T00:00:05Z`));
    const turned = await reconcile(ctx, assetKeys);
    expect(turned).toMatchObject({ action: "publish", reason: `the year turned (${thisYear} → ${next})` });
    for (const key of ["index.html", "about/index.html", "price-list/index.html", "404.html"])
      expect(await copyright(key), key).toBe(String(next));
    expect(await index.recordedYears()).toEqual([next]);

    // And then left alone for the rest of the year.
    expect(await reconcile(ctx, assetKeys)).toMatchObject({ action: "none" });
  }, 120_000);
});
