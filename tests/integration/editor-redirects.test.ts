/**
 * Redirects editors own: `redirect` documents published through the local content
 * service and the worker's publish, served as rename redirects are — 301 or 302 from the site
 * server, `x-amz-website-redirect-location` on the S3 object for a permanent one (s3rver, read
 * around the driver), the sitemap untouched — following their target document's renames, losing to
 * a page published at the same path (and `pressroom status` saying so), collapsing chains, refusing
 * loops and paths the site cannot serve, and gone with their object when unpublished. At every step
 * a full build from scratch produces the same objects, manifest and history (incremental ≡ full).
 */
import { readFileSync } from "node:fs";
import { CreateBucketCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import Fastify, { type FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { redisKeys } from "#jobs/catalog.ts";
import { siteApp } from "#site/app.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import { statusCommand } from "#worker/inspect.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { DependencyIndex } from "#worker/publish/dependency-index.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { planIds } from "#worker/publish/plan-ids.ts";
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
type Doc = {
  id: string;
  uid: string | null;
  type: string;
  data: Record<string, unknown>;
  [k: string]: unknown;
};
const demo = (id: string) =>
  JSON.parse(readFileSync(`${ROOT}services/local-prismic/demo/documents/${id}.json`, "utf8")) as Doc;
const PRICING = demo("Z9nWvxEAACUAx1Ee");
const ABOUT = demo("Z9nWuhEAACMAx1Cc");
/** The demo's `/team` redirect: a template for new redirect documents (the envelope Prismic sends). */
const TEMPLATE = demo("Z9nX0REAACMAx1Ll");
const SITE_URL = "https://www.example.com";
const PREFIX = `test-editor-redirects-${process.pid}-${Date.now()}`;
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
  s3Dir = await tempDir("editor-redirects-s3");
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

/** A link field to a document, as an editor sets it (the API fills its url at query time). */
const linkTo = (doc: Doc) => ({
  link_type: "Document",
  id: doc.id,
  type: doc.type,
  tags: [],
  lang: "en-us",
  slug: doc.uid,
  uid: doc.uid,
  isBroken: false,
});
const web = (url: string) => ({ link_type: "Web", url });
let created = 0;
/** A redirect document: `to` a document link or a web link. */
function redirect(
  from: string,
  to: unknown,
  permanent = true,
  id = `EditorRedirect${String(++created).padStart(3, "0")}`,
): Doc {
  return { ...TEMPLATE, id, data: { from_path: from, to, permanent } };
}

/** Publishes through the content service, then runs the worker's publish as a webhook would. */
async function delivered(edit: { upsert?: Doc[]; remove?: string[] }) {
  await content.store.publish(edit);
  const ids = [...(edit.upsert ?? []).map((doc) => doc.id), ...(edit.remove ?? [])];
  await redis.sadd(redisKeys(PREFIX).pendingIds, ...ids);
  const summary = await publish(ctx);
  expect(summary.mode).toBe("incremental");
  return summary;
}
const visit = (url: string) => site.inject({ url });
const s3Object = async (key: string) =>
  raw.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `www/${key}` })).catch(() => undefined);
const manifest = async () => await storedManifest(store);
const sitemap = async () => (await store.get("sitemap.xml"))?.body.toString() ?? "";
const equalsFullBuild = () =>
  expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
const status = () =>
  statusCommand(
    loadConfig("publisher", {
      PRISMIC_ENDPOINT: content.endpoint,
      REDIS_URL: "redis://127.0.0.1:6379",
      QUEUE_PREFIX: PREFIX,
      STORAGE_URL: `s3://${BUCKET}/www`,
      S3_ENDPOINT: s3.endpoint,
      SITE_URL,
    }),
  );

const SPRING = redirect("/Spring-Sale/", linkTo(PRICING));

describe("redirects editors own", () => {
  it("the demo's: /team answers 301, /spring-workshops 302 (a campaign)", async () => {
    const team = await visit("/team");
    expect(team.statusCode).toBe(301);
    expect(team.headers.location).toBe("/about");
    const spring = await visit("/spring-workshops?utm_source=flyer");
    expect(spring.statusCode).toBe(302);
    expect(spring.headers.location).toBe("/price-list/workshops?utm_source=flyer");
    expect((await manifest())?.redirects).toEqual(DEMO_REDIRECTS);
  });

  it("a published redirect answers 301 on the site server and on S3; the sitemap is untouched", async () => {
    const before = await sitemap();
    await delivered({ upsert: [SPRING] });
    // The From path as the site's routes are spelled: lowercase, no trailing slash.
    const answer = await visit("/spring-sale?utm_source=newsletter");
    expect(answer.statusCode).toBe(301);
    expect(answer.headers.location).toBe("/pricing?utm_source=newsletter");
    expect((await visit("/spring-sale/")).headers.location).toBe("/pricing");
    expect((await s3Object("spring-sale/index.html"))?.WebsiteRedirectLocation).toBe("/pricing");
    expect((await manifest())?.redirects?.["/spring-sale"]).toBe("/pricing");
    expect(await sitemap()).toBe(before);
    await equalsFullBuild();
  }, 60_000);

  it("switched to temporary: 302, and the bucket's object no longer redirects by itself (S3 knows 301 only)", async () => {
    await delivered({ upsert: [{ ...SPRING, data: { ...SPRING.data, permanent: false } }] });
    const answer = await visit("/spring-sale");
    expect(answer.statusCode).toBe(302);
    expect(answer.headers.location).toBe("/pricing");
    const object = await s3Object("spring-sale/index.html");
    expect(object).toBeDefined();
    expect(object?.WebsiteRedirectLocation).toBeUndefined();
    // Its page forwards a bucket website's visitor instead.
    expect((await store.get("spring-sale/index.html"))?.body.toString()).toContain(
      '<meta http-equiv="refresh" content="0; url=/pricing">',
    );
    expect((await manifest())?.temporaryRedirects).toContain("/spring-sale");
    await equalsFullBuild();
  }, 60_000);

  it("follows its target document's rename: the planner names it, the object is rewritten", async () => {
    const renamed = { ...PRICING, uid: "prices" };
    await content.store.publish({ upsert: [renamed] });
    const index = new DependencyIndex(redis, PREFIX);
    const { plan } = await planIds(ctx.client, index, content.store.masterRef, [PRICING.id]);
    expect(plan.redirects.get("/Spring-Sale/")).toBe(
      `redirects to ${PRICING.id}, which moved (/pricing → /prices)`,
    );
    await redis.sadd(redisKeys(PREFIX).pendingIds, PRICING.id);
    await publish(ctx);
    const answer = await visit("/spring-sale");
    expect(answer.statusCode).toBe(302);
    expect(answer.headers.location).toBe("/prices");
    expect((await store.get("spring-sale/index.html"))?.body.toString()).toContain("url=/prices");
    expect((await visit("/pricing")).headers.location).toBe("/prices"); // the rename's own redirect
    await equalsFullBuild();
  }, 60_000);

  it("to a web address: the URL as given, the visitor's query string added to its own", async () => {
    await delivered({
      upsert: [
        {
          ...SPRING,
          data: { ...SPRING.data, to: web("https://shop.example.com/sale?src=site"), permanent: false },
        },
      ],
    });
    const answer = await visit("/spring-sale?utm_source=mail");
    expect(answer.statusCode).toBe(302);
    expect(answer.headers.location).toBe("https://shop.example.com/sale?src=site&utm_source=mail");
    await equalsFullBuild();
  }, 60_000);

  it("a page published at its path wins, and `pressroom status` says so; without the page, the redirect is served", async () => {
    const onAbout = redirect("/about/", linkTo({ ...PRICING, uid: "prices" }), true, "EditorRedirectAbout");
    await delivered({ upsert: [onAbout] });
    const page = await visit("/about");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("<h1");
    expect((await manifest())?.redirects?.["/about"]).toBeUndefined();
    expect(await status()).toContain(
      `redirect EditorRedirectAbout from "/about/": it is not served: a page is published at /about, and a page wins (unpublish the page or change the From path)  [not served]`,
    );
    await equalsFullBuild();

    // The page goes: the redirect takes its path (and the demo's /team, linking to it, goes too).
    await delivered({ remove: [ABOUT.id] });
    const moved = await visit("/about");
    expect(moved.statusCode).toBe(301);
    expect(moved.headers.location).toBe("/prices");
    expect((await s3Object("about/index.html"))?.WebsiteRedirectLocation).toBe("/prices");
    expect((await visit("/team")).statusCode).toBe(404);
    expect(await s3Object("team/index.html")).toBeUndefined();
    await equalsFullBuild();

    // It comes back: the page wins again, written over the redirect's object.
    await delivered({ upsert: [ABOUT] });
    expect((await visit("/about")).statusCode).toBe(200);
    expect((await s3Object("about/index.html"))?.WebsiteRedirectLocation).toBeUndefined();
    expect((await visit("/team")).headers.location).toBe("/about");
    await equalsFullBuild();
    await delivered({ remove: [onAbout.id] });
  }, 90_000);

  it("a redirect to a redirect is collapsed; a loop is refused and nothing of it is written", async () => {
    const chained = redirect("/old-promo", web(`${SITE_URL}/spring-sale`), true, "EditorRedirectChain");
    const loopA = redirect("/loop-a", web(`${SITE_URL}/loop-b`), true, "EditorRedirectLoopA");
    const loopB = redirect("/loop-b", web(`${SITE_URL}/loop-a/`), true, "EditorRedirectLoopB");
    await delivered({ upsert: [chained, loopA, loopB] });
    // One hop to where /spring-sale goes; temporary, since that hop is.
    const answer = await visit("/old-promo");
    expect(answer.statusCode).toBe(302);
    expect(answer.headers.location).toBe("https://shop.example.com/sale?src=site");
    for (const path of ["/loop-a", "/loop-b"]) {
      expect((await visit(path)).statusCode, path).toBe(404);
      expect(await s3Object(`${path.slice(1)}/index.html`), path).toBeUndefined();
    }
    const said = await status();
    expect(said).toContain(
      `redirect EditorRedirectLoopA from "/loop-a": it is not served: it is part of a loop (/loop-a → /loop-b → /loop-a), which would never reach a page  [not served]`,
    );
    expect(said).toContain(
      `redirect EditorRedirectChain from "/old-promo": it redirects to /spring-sale, itself a redirect: visitors go straight to https://shop.example.com/sale?src=site (temporarily: a hop on the way is temporary)`,
    );
    await equalsFullBuild();
    await delivered({ remove: [loopA.id, loopB.id] });
  }, 60_000);

  it("From paths the site cannot serve are refused, nothing written, and said", async () => {
    const ops = redirect("/_pressroom/metrics", linkTo(ABOUT), true, "EditorRedirectOps");
    const asset = redirect("/assets/site.css", linkTo(ABOUT), true, "EditorRedirectAsset");
    await delivered({ upsert: [ops, asset] });
    expect(Object.keys((await manifest())?.redirects ?? {})).not.toContain("/_pressroom/metrics");
    expect(await s3Object("_pressroom/metrics/index.html")).toBeUndefined();
    expect(await s3Object("assets/site.css/index.html")).toBeUndefined();
    const said = await status();
    expect(said).toContain(
      `redirect EditorRedirectOps from "/_pressroom/metrics": its From path starts with /_pressroom, which the site uses itself`,
    );
    expect(said).toContain(
      `redirect EditorRedirectAsset from "/assets/site.css": its From path ends in a file name (“site.css”): files are served as they are, never redirected`,
    );
    await equalsFullBuild();
    await delivered({ remove: [ops.id, asset.id] });
  }, 60_000);

  it("unpublished, its object goes; a redirect through it now ends at its path", async () => {
    await delivered({ remove: [SPRING.id] });
    expect((await visit("/spring-sale")).statusCode).toBe(404);
    expect(await s3Object("spring-sale/index.html")).toBeUndefined();
    const through = await visit("/old-promo");
    expect(through.statusCode).toBe(301);
    expect(through.headers.location).toBe("/spring-sale");
    expect(await status()).toContain(
      `redirect EditorRedirectChain from "/old-promo": it redirects to /spring-sale, where the site has no page: visitors see “page not found”`,
    );
    await equalsFullBuild();
    // A diff build of this very storage (reconcile's) keeps every redirect as it is.
    const before = await manifest();
    await diffBuild(ctx, content.store.masterRef);
    const after = await manifest();
    expect(after?.redirects).toEqual(before?.redirects);
    expect(after?.temporaryRedirects).toEqual(before?.temporaryRedirects);
  }, 60_000);
});
