/**
 * A uid rename that only a full build or reconcile's diff build sees (the webhook was
 * lost, or the operator ran `pressroom build`) left the old URL a 404. A build now compares the
 * previous manifest's document id → route with the routes now and writes the redirect a publish
 * would have written. The content service publishes with no webhook at all; `pressroom build` runs
 * as its own process; the site server answers. Incremental ≡ full keeps holding: a fresh full build
 * has no previous manifest, and produces the same site from the redirect history the builds keep
 * (`.pressroom/redirects.json`), which is what `expectEqualsFullBuild` compares.
 */
import { readFileSync } from "node:fs";
import Fastify, { type FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRedirectHistory, REDIRECTS_KEY } from "#manifest/redirects.ts";
import { siteApp } from "#site/app.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { localContentClient } from "../support/content-client.ts";
import { DEMO_REDIRECTS } from "../support/demo-redirects.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { startPressroom } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const FAQ = JSON.parse(
  readFileSync(`${ROOT}services/local-prismic/demo/documents/Z9nWwREAACMAx1Ff.json`, "utf8"),
);
const SITE_URL = "https://www.example.com";
const PREFIX = `test-build-rename-${process.pid}-${Date.now()}`;

let content: LocalPrismic;
let site: { path: string; remove: () => Promise<void> };
let store: SiteStore;
let server: FastifyInstance;
let redis: Redis;

/** `pressroom build` as an operator runs it: its own process, configured by the environment. */
async function pressroomBuild(): Promise<void> {
  const build = startPressroom(["build"], {
    PRISMIC_ENDPOINT: content.endpoint,
    STORAGE_URL: `file://${site.path}`,
    SITE_URL,
    RENDER_THREADS: "0",
  });
  expect(await build.exited()).toBe(0);
}
/** Straight into the content service's store: a new master ref, and no webhook. */
const rename = (uid: string) => content.store.publish({ upsert: [{ ...FAQ, uid }] });
const visit = (url: string) => server.inject({ url });
const history = async () => parseRedirectHistory((await store.get(REDIRECTS_KEY))?.body);

beforeAll(async () => {
  site = await tempDir("build-rename-site");
  content = await startLocalPrismic();
  store = createSiteStore({ url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
  redis = new Redis({ maxRetriesPerRequest: null });
  server = Fastify();
  await server.register(siteApp, { store, manifestRefreshMs: 0 });
  await pressroomBuild();
}, 60_000);

afterAll(async () => {
  await server?.close();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis?.quit();
  await content?.stop();
  await site?.remove();
});

describe("a rename only a build sees", () => {
  it("pressroom build writes the redirect: the old URL answers 301 from the site server", async () => {
    expect((await visit("/faq")).statusCode).toBe(200);
    await rename("questions");
    await pressroomBuild();

    const old = await visit("/faq?from=newsletter");
    expect(old.statusCode).toBe(301);
    expect(old.headers.location).toBe("/questions?from=newsletter");
    expect((await visit("/questions")).statusCode).toBe(200);
    expect(await history()).toEqual({ "/faq": { documentId: FAQ.id, location: "/questions" } });
    expect((await storedManifest(store))?.redirects).toEqual({
      ...DEMO_REDIRECTS,
      "/faq": "/questions",
    });
    expect((await store.head("faq/index.html"))?.redirectLocation).toBe("/questions");
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
  }, 60_000);

  it("reconcile's diff build does the same, and chains collapse", async () => {
    const ctx: PublishContext = {
      client: localContentClient(content.endpoint),
      store,
      redis,
      queuePrefix: PREFIX,
      siteUrl: SITE_URL,
      assets: (await buildSiteAssets()).assets,
      logger: pino({ level: "silent" }),
      renderThreads: 0,
    };
    await rename("help");
    await diffBuild(ctx, content.store.masterRef);

    for (const from of ["/faq", "/questions"]) {
      const answer = await visit(from);
      expect(answer.statusCode, from).toBe(301);
      expect(answer.headers.location, from).toBe("/help");
    }
    expect((await visit("/help")).statusCode).toBe(200);
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);

    // A build with nothing renamed writes no redirect and keeps the ones it has.
    await pressroomBuild();
    expect(Object.keys(await history()).sort()).toEqual(["/faq", "/questions"]);
  }, 60_000);
});
