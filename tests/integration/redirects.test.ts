/**
 * Links that survive edits: a uid rename published through the local content service
 * and the worker's publish leaves a permanent redirect at the old route — 301 from the site server,
 * `x-amz-website-redirect-location` on the S3 object (s3rver, read around the driver) — chains
 * collapse, a new document taking the old uid replaces the redirect, unpublishing takes the
 * redirects away, and at every step a full build produces the same site and the same redirects.
 * The demo's own redirect documents (DEMO_REDIRECTS) are served beside them throughout.
 */
import { readFileSync } from "node:fs";
import {
  CreateBucketCommand,
  DeleteBucketWebsiteCommand,
  HeadObjectCommand,
  PutBucketWebsiteCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import Fastify, { type FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "#jobs/catalog.ts";
import { parseRedirectHistory, REDIRECTS_KEY } from "#manifest/redirects.ts";
import { siteApp } from "#site/app.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { publish } from "#worker/publish/publish.ts";
import { localContentClient } from "../support/content-client.ts";
import { DEMO_REDIRECTS } from "../support/demo-redirects.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { type S3Server, startS3rver } from "../support/s3rver.ts";
import { tempDir } from "../support/temp-dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
type Doc = { id: string; uid: string; data: Record<string, unknown> };
const demo = (id: string) =>
  JSON.parse(readFileSync(`${ROOT}services/local-prismic/demo/documents/${id}.json`, "utf8")) as Doc;
const FAQ = demo("Z9nWwREAACMAx1Ff"); // uid "faq"
const SITE_URL = "https://www.example.com";
const PREFIX = `test-redirects-${process.pid}-${Date.now()}`;
const BUCKET = "site";

let s3Dir: Awaited<ReturnType<typeof tempDir>>;
let s3: S3Server;
let raw: S3Client;
let content: LocalPrismic;
let redis: Redis;
let store: SiteStore;
let ctx: PublishContext;
let site: FastifyInstance;

beforeAll(async () => {
  s3Dir = await tempDir("redirects-s3");
  s3 = await startS3rver(s3Dir.path);
  raw = new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: s3.credentials,
  });
  await raw.send(new CreateBucketCommand({ Bucket: BUCKET }));
  process.env.AWS_ACCESS_KEY_ID = s3.credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = s3.credentials.secretAccessKey;
  store = createSiteStore({ url: `s3://${BUCKET}/www`, s3Endpoint: s3.endpoint, s3Region: "us-east-1" });
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
  raw?.destroy();
  await removeKeysUnder(redis, PREFIX);
  await redis?.quit();
  await content?.stop();
  await s3?.stop();
  await s3Dir?.remove();
});

/** Publishes through the content service, then runs the worker's publish as a webhook would. */
async function delivered(edit: { upsert?: Doc[]; remove?: string[] }) {
  await content.store.publish(edit);
  const ids = [...(edit.upsert ?? []).map((doc) => doc.id), ...(edit.remove ?? [])];
  await redis.sadd(redisKeys(PREFIX).pendingIds, ...ids);
  const summary = await publish(ctx);
  expect(summary.mode).toBe("incremental");
  return summary;
}
const renamed = (uid: string): Doc => ({ ...FAQ, uid });
const visit = (url: string) => site.inject({ url });
/** What a bucket served as a website answers with, read around the driver. */
const s3Redirect = async (key: string) =>
  (await raw.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `www/${key}` })).catch(() => undefined))
    ?.WebsiteRedirectLocation;
const manifestRedirects = async () => (await storedManifest(store))?.redirects ?? {};
const history = async () => parseRedirectHistory((await store.get(REDIRECTS_KEY))?.body);
const sitemap = async () => (await store.get("sitemap.xml"))?.body.toString() ?? "";
const equalsFullBuild = () =>
  expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);

describe("links that survive edits", () => {
  it("a uid rename answers 301 at the old URL, on the site server and on S3", async () => {
    expect((await visit("/faq")).statusCode).toBe(200);
    await delivered({ upsert: [renamed("faq-v2")] });

    const old = await visit("/faq?from=newsletter");
    expect(old.statusCode).toBe(301);
    expect(old.headers.location).toBe("/faq-v2?from=newsletter");
    expect((await visit("/faq/")).headers.location).toBe("/faq-v2");
    expect((await visit("/faq-v2")).statusCode).toBe(200);
    expect(await s3Redirect("faq/index.html")).toBe("/faq-v2");
    expect(await s3Redirect("faq-v2/index.html")).toBeUndefined();
    expect(await manifestRedirects()).toEqual({ ...DEMO_REDIRECTS, "/faq": "/faq-v2" });
    // Only real pages in the sitemap.
    expect(await sitemap()).toContain(`${SITE_URL}/faq-v2<`);
    expect(await sitemap()).not.toContain(`${SITE_URL}/faq<`);
    await equalsFullBuild();
  }, 120_000);

  it("a second rename collapses the chain: every old URL goes straight to the page", async () => {
    await delivered({ upsert: [renamed("faq-v3")] });
    for (const [path, key] of [
      ["/faq", "faq/index.html"],
      ["/faq-v2", "faq-v2/index.html"],
    ]) {
      const answer = await visit(path as string);
      expect(answer.statusCode, path).toBe(301);
      expect(answer.headers.location, path).toBe("/faq-v3");
      expect(await s3Redirect(key as string), key).toBe("/faq-v3");
    }
    expect(await manifestRedirects()).toEqual({ ...DEMO_REDIRECTS, "/faq": "/faq-v3", "/faq-v2": "/faq-v3" });
    // The bucket served as a website (no site server) answers 301 itself, straight to the page.
    await raw.send(
      new PutBucketWebsiteCommand({
        Bucket: BUCKET,
        WebsiteConfiguration: { IndexDocument: { Suffix: "index.html" } },
      }),
    );
    try {
      for (const path of ["www/faq/", "www/faq-v2/index.html"]) {
        const answer = await fetch(`${s3.endpoint}/${BUCKET}/${path}`, { redirect: "manual" });
        expect(answer.status, path).toBe(301);
        expect(answer.headers.get("location"), path).toBe("/faq-v3");
      }
      const page = await fetch(`${s3.endpoint}/${BUCKET}/www/faq-v3/`, { redirect: "manual" });
      expect(page.status).toBe(200);
    } finally {
      // s3rver applies a bucket's website behaviour to path-style API requests too.
      await raw.send(new DeleteBucketWebsiteCommand({ Bucket: BUCKET }));
    }
    expect(await history()).toEqual({
      "/faq": { documentId: FAQ.id, location: "/faq-v3" },
      "/faq-v2": { documentId: FAQ.id, location: "/faq-v3" },
    });
    await equalsFullBuild();

    // A diff build of this very storage (what reconcile runs) keeps them: it reads the history.
    await diffBuild(ctx, content.store.masterRef);
    expect((await visit("/faq-v2")).headers.location).toBe("/faq-v3");
    expect(await s3Redirect("faq-v2/index.html")).toBe("/faq-v3");
    expect(await manifestRedirects()).toEqual({ ...DEMO_REDIRECTS, "/faq": "/faq-v3", "/faq-v2": "/faq-v3" });
  }, 120_000);

  it("a new document taking the old uid replaces the redirect with its page", async () => {
    const newcomer: Doc = {
      ...FAQ,
      id: "RedirectNewFaq01",
      uid: "faq",
      data: { ...FAQ.data, meta_description: "The new FAQ page" },
    };
    await delivered({ upsert: [newcomer] });
    const page = await visit("/faq");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("The new FAQ page");
    expect(await s3Redirect("faq/index.html")).toBeUndefined();
    expect((await visit("/faq-v2")).headers.location).toBe("/faq-v3");
    expect(await manifestRedirects()).toEqual({ ...DEMO_REDIRECTS, "/faq-v2": "/faq-v3" });
    await equalsFullBuild();
  }, 120_000);

  it("unpublishing a document takes its redirects away", async () => {
    await delivered({ remove: [FAQ.id] });
    expect((await visit("/faq-v3")).statusCode).toBe(404);
    expect((await visit("/faq-v2")).statusCode).toBe(404);
    expect(await store.head("faq-v2/index.html")).toBeUndefined();
    expect((await visit("/faq")).statusCode).toBe(200); // the newcomer's page stays
    expect(await manifestRedirects()).toEqual(DEMO_REDIRECTS);
    expect(await history()).toEqual({});
    await equalsFullBuild();
  }, 120_000);
});
