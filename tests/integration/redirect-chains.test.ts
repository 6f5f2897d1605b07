/**
 * Every redirect a visitor can hit answers its final target in one hop, whatever made it: the
 * home page's own alias (`/home`), a rename's redirect, an editor's redirect through either. The
 * home page's uid renamed through the local content service and the worker's publish leaves `/` a
 * redirect; `/home` must go straight where `/` goes, on the site server (and be purged with `/`
 * at the edge). Each step is then checked against a full build (incremental ≡ full).
 */
import { readFileSync } from "node:fs";
import Fastify, { type FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "#jobs/catalog.ts";
import { siteApp } from "#site/app.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { publish } from "#worker/publish/publish.ts";
import { localContentClient } from "../support/content-client.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
type Doc = { id: string; uid: string | null; type: string; data: Record<string, unknown> };
const demo = (id: string) =>
  JSON.parse(readFileSync(`${ROOT}services/local-prismic/demo/documents/${id}.json`, "utf8")) as Doc;
const HOME = demo("Z9nWtBEAACQAx1Bb"); // uid "home", served at /
const TEMPLATE = demo("Z9nX0REAACMAx1Ll"); // the demo's /team redirect
const SITE_URL = "https://www.example.com";
const PREFIX = `test-redirect-chains-${process.pid}-${Date.now()}`;

let dir: Awaited<ReturnType<typeof tempDir>>;
let content: LocalPrismic;
let redis: Redis;
let store: SiteStore;
let ctx: PublishContext;
let site: FastifyInstance;

beforeAll(async () => {
  dir = await tempDir("redirect-chains");
  store = createSiteStore({ url: `file://${dir.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
  content = await startLocalPrismic();
  redis = new Redis({ maxRetriesPerRequest: null });
  ctx = {
    client: localContentClient(content.endpoint),
    store,
    redis,
    queuePrefix: PREFIX,
    siteUrl: SITE_URL,
    assets: (await buildSiteAssets()).assets,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  };
  await diffBuild(ctx, await ctx.client.fetchMasterRef());
  site = Fastify();
  await site.register(siteApp, { store, manifestRefreshMs: 0 });
}, 120_000);

afterAll(async () => {
  await site?.close();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis?.quit();
  await content?.stop();
  await dir?.remove();
});

async function delivered(edit: { upsert?: Doc[]; remove?: string[] }) {
  await content.store.publish(edit);
  const ids = [...(edit.upsert ?? []).map((doc) => doc.id), ...(edit.remove ?? [])];
  await redis.sadd(redisKeys(PREFIX).pendingIds, ...ids);
  const summary = await publish(ctx);
  expect(summary.mode).toBe("incremental");
}
const visit = (url: string) => site.inject({ url });
const equalsFullBuild = () =>
  expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
const editorRedirect = (id: string, from: string, url: string): Doc => ({
  ...TEMPLATE,
  id,
  data: { from_path: from, to: { link_type: "Web", url }, permanent: true },
});

/**
 * Every path a visitor can be redirected from (the manifest's redirects, their trailing-slash
 * twins, `/home`): its answer's location, when it is a path of this site, must not redirect again.
 */
async function expectOneHopEverywhere(): Promise<void> {
  const manifest = await storedManifest(store);
  const paths = ["/home", "/home/", ...Object.keys(manifest?.redirects ?? {})];
  for (const path of [...paths, ...paths.map((p) => (p === "/" ? p : `${p}/`))]) {
    const answer = await visit(path);
    if (answer.statusCode !== 301 && answer.statusCode !== 302) continue;
    const location = String(answer.headers.location);
    if (!location.startsWith("/")) continue;
    const next = await visit(location);
    expect([next.statusCode, `${path} → ${location} → ${next.headers.location}`]).toEqual([
      200,
      `${path} → ${location} → undefined`,
    ]);
  }
}

describe("redirect chains collapse to one hop", () => {
  it("the home page renamed: /home goes straight to its new address, as / does", async () => {
    expect((await visit("/home")).headers.location).toBe("/");
    await delivered({ upsert: [{ ...HOME, uid: "welcome" }] });

    const root = await visit("/");
    expect(root.statusCode).toBe(301);
    expect(root.headers.location).toBe("/welcome");
    const home = await visit("/home?utm_source=card");
    expect(home.statusCode).toBe(301);
    expect(home.headers.location).toBe("/welcome?utm_source=card");
    expect((await visit("/home/")).headers.location).toBe("/welcome");
    // Purged with / at the edge: its answer depends on what / is.
    expect(String(home.headers["surrogate-key"]).split(" ")).toContain("/");
    await expectOneHopEverywhere();
    await equalsFullBuild();
  }, 120_000);

  it("an editor's redirect to /home (or /) goes to the renamed home page in one hop", async () => {
    await delivered({
      upsert: [
        editorRedirect("ChainRedirect001", "/start", `${SITE_URL}/home`),
        editorRedirect("ChainRedirect002", "/begin", `${SITE_URL}/`),
      ],
    });
    expect((await visit("/start")).headers.location).toBe("/welcome");
    expect((await visit("/begin")).headers.location).toBe("/welcome");
    await expectOneHopEverywhere();
    await equalsFullBuild();
  }, 120_000);

  it("renamed once more: every old address goes straight to the page", async () => {
    await delivered({ upsert: [{ ...HOME, uid: "hello" }] });
    for (const path of ["/", "/home", "/welcome", "/start", "/begin"])
      expect((await visit(path)).headers.location, path).toBe("/hello");
    await expectOneHopEverywhere();
    await equalsFullBuild();
  }, 120_000);

  it("the uid home again: / is the page, /home answers /", async () => {
    await delivered({ upsert: [{ ...HOME, uid: "home" }] });
    expect((await visit("/")).statusCode).toBe(200);
    expect((await visit("/home")).headers.location).toBe("/");
    expect((await visit("/start")).headers.location).toBe("/");
    await expectOneHopEverywhere();
    await equalsFullBuild();
  }, 120_000);
});
