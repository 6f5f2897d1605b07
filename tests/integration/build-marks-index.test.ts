/**
 * `pressroom build` leaves the worker's dependency index consistent. The build renders the site at
 * the master ref behind the worker's back: a page it rendered may link to a document the index
 * never saw it link to. Unless the index is rebuilt, the next publish that renames that document
 * re-renders too little and the page keeps a link to the old address. The build marks the index
 * stale; the next publish rebuilds it (a diff build), and storage equals a full build.
 */
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "#jobs/catalog.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { publish } from "#worker/publish/publish.ts";
import { localContentClient } from "../support/content-client.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { runPressroom } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO = `${ROOT}services/local-prismic/demo/documents/`;
const SITE_URL = "https://www.example.com";
const PREFIX = `test-build-marks-${process.pid}-${Date.now()}`;
const ABOUT = "Z9nWuhEAACMAx1Cc";
/** A price list no navigation links to: only the edit below makes About link to it. */
const WEBSITES = "Z9nWyREAACMAx1Ii";
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

type Doc = { id: string; uid: string | null; type: string; data: Record<string, unknown> };
const demo = (id: string) => JSON.parse(readFileSync(`${DEMO}${id}.json`, "utf8")) as Doc;

let content: LocalPrismic;
let folder: { path: string; remove: () => Promise<void> };
let store: SiteStore;
let redis: Redis;
let ctx: PublishContext;

async function edit(upsert: Doc[]): Promise<void> {
  const response = await fetch(`${content.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ upsert }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

beforeAll(async () => {
  content = await startLocalPrismic();
  folder = await tempDir("build-marks");
  store = createSiteStore({ url: `file://${folder.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
  redis = new Redis({ maxRetriesPerRequest: null });
  ctx = {
    client: localContentClient(content.endpoint),
    store,
    redis,
    queuePrefix: PREFIX,
    siteUrl: SITE_URL,
    assets: (await buildSiteAssets()).assets,
    logger,
    renderThreads: 0,
  };
});

afterAll(async () => {
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await store.close();
  await content.stop();
  await folder.remove();
});

describe("pressroom build and the worker's index", () => {
  it("the next publish after a build renders every page the build made depend on the change", async () => {
    // The worker built the site and its index.
    await diffBuild(ctx, content.store.masterRef);

    // An edit no worker published (its webhook lost, the workers down): About links to a price list.
    const about = demo(ABOUT);
    const text = "See our website prices";
    const slice = {
      id: "text_section$build-marks",
      slice_type: "text_section",
      slice_label: null,
      variation: "default",
      version: "initial",
      primary: {
        heading: [],
        body: [
          {
            type: "paragraph",
            text,
            spans: [
              {
                start: 0,
                end: text.length,
                type: "hyperlink",
                data: { id: WEBSITES, type: "price_list", link_type: "Document" },
              },
            ],
          },
        ],
        embed: {},
      },
      items: [],
    };
    await edit([{ ...about, data: { ...about.data, slices: [slice] } }]);

    // The operator rebuilds the site: About, in storage, now links to the price list.
    const built = await runPressroom(["build"], {
      PRISMIC_ENDPOINT: content.endpoint,
      STORAGE_URL: `file://${folder.path}`,
      SITE_URL,
      REDIS_URL: "redis://127.0.0.1:6379",
      QUEUE_PREFIX: PREFIX,
      RENDER_THREADS: "1",
      LOG_LEVEL: "warn",
    });
    expect(built.code, built.output).toBe(0);
    expect((await store.get("about/index.html"))?.body.toString()).toContain('href="/price-list/websites"');

    // The price list is renamed; its webhook arrives and the worker publishes it.
    await edit([{ ...demo(WEBSITES), uid: "web-projects" }]);
    await redis.sadd(redisKeys(PREFIX).pendingIds, WEBSITES);
    const published = await publish(ctx);

    // About links to where the price list is now, as a full build at this ref renders it.
    expect((await store.get("about/index.html"))?.body.toString()).toContain(
      'href="/price-list/web-projects"',
    );
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
    expect(built.output).toContain("Worker index: marked stale");
    // The mark made the publish rebuild the index (a diff build) before anything else.
    expect(published.mode).toBe("diff-build");
  }, 60_000);
});
