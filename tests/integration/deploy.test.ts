/**
 * A deploy is a publish. The worker runs as a deploy runs it: an OS process of this checkout builds
 * the site, stops, and a worker of changed code (a copy of this checkout with one source file
 * edited: deployed-copy.ts, the real `pressroom` command and render-thread bundle) starts on the
 * same Redis, storage and edge. With no operator step, storage and the edge (a real varnishd with
 * the shipped VCL, where it runs) must show the new code's site: a component's markup changed
 * rewrites exactly the pages that show it; a route removed is gone from storage and the edge; a
 * routed type added with its listing (files under web/ and customtypes/ only) has its listing live
 * at once, and a document of it published then (the local content service calling the real webhook
 * receiver) is live with its page, in the listing and in the sitemap.
 */
import { createHash } from "node:crypto";
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SiteConfig } from "#config";
import { type RunningSite, startSite } from "#site/server.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { BLOG_EDITS, BLOG_INDEX, blogFiles } from "../support/blog-deploy.ts";
import { type DeployedCopy, deployedCopy, type SourceEdit } from "../support/deployed-copy.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { type PressroomProcess, runPressroom, startPressroom } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { hasVarnish, startVarnish, type Varnish } from "../support/varnish.ts";
import { webhookOptions } from "../support/webhook-options.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

const PREFIX = `test-deploy-${process.pid}-${Date.now()}`;
const SITE_URL = "https://www.example.com";
const SECRET = "deploy-test-webhook-secret";
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

let redis: Redis;
let content: LocalPrismic;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
/** The Slice Machine project the content service serves models from: this checkout's, then a push. */
let models: { path: string; remove: () => Promise<void> };
let folder: { path: string; remove: () => Promise<void> };
let store: SiteStore;
let site: RunningSite;
let varnish: Varnish | undefined;
const processes: PressroomProcess[] = [];
const copies: DeployedCopy[] = [];

const sha = (body: Buffer) => createHash("sha256").update(body).digest("hex");

/** Every object of the site (the `.pressroom/` metadata aside): key → sha256 of its bytes. */
async function stored(): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for await (const key of store.keys())
    if (!key.startsWith(".pressroom/")) hashes.set(key, sha((await store.get(key))?.body ?? Buffer.alloc(0)));
  return hashes;
}

async function manifest() {
  const parsed = await storedManifest(store);
  if (!parsed) throw new Error("no manifest in storage");
  return parsed;
}

/** A worker process of `copy` (this checkout when absent), its start's reconcile rounds over. */
async function runWorker(copy?: DeployedCopy): Promise<{ worker: PressroomProcess; settledMs: number }> {
  const worker = startPressroom(
    ["serve", "worker"],
    {
      PRISMIC_ENDPOINT: content.endpoint,
      REDIS_URL: "redis://127.0.0.1:6379",
      QUEUE_PREFIX: PREFIX,
      STORAGE_URL: `file://${folder.path}`,
      SITE_URL,
      OPS_PORT: "off",
      RENDER_THREADS: "1",
      ...(varnish ? { CDN_PURGE_URL: `varnish://127.0.0.1:${varnish.port}` } : {}),
    },
    copy ? { root: copy.root } : {},
  );
  processes.push(worker);
  const started = Date.now();
  // Its reconcile round is queued before it says it started.
  await worker.waitFor(/^worker started$/, 60_000);
  await untilWorkerSettled(redis, PREFIX, content.store.masterRef, 60_000);
  return { worker, settledMs: Date.now() - started };
}

/** What the worker's diff build logged (`build finished`): rendered, reused, written… */
const builtBy = (worker: PressroomProcess) =>
  worker.records.find((record) => record.msg === "build finished") as
    | { rendered: number; reused: number; written: number; durationMs: number }
    | undefined;

/**
 * Storage holds what `pressroom build` of the deployed code makes from nothing at the master ref,
 * object for object (the metadata aside).
 */
async function expectBuiltBy(copy: DeployedCopy): Promise<void> {
  const reference = await tempDir("deploy-reference");
  const referenceStore = createSiteStore({
    url: `file://${reference.path}`,
    s3Endpoint: undefined,
    s3Region: "us-east-1",
  });
  try {
    const built = await runPressroom(
      ["build"],
      {
        PRISMIC_ENDPOINT: content.endpoint,
        STORAGE_URL: `file://${reference.path}`,
        SITE_URL,
        REDIS_URL: "redis://127.0.0.1:6379",
        QUEUE_PREFIX: `${PREFIX}-reference`,
        RENDER_THREADS: "1",
        LOG_LEVEL: "warn",
      },
      { root: copy.root },
    );
    expect(built.code, built.output).toBe(0);
    const expected = new Map<string, string>();
    for await (const key of referenceStore.keys())
      if (!key.startsWith(".pressroom/"))
        expected.set(key, sha((await referenceStore.get(key))?.body ?? Buffer.alloc(0)));
    expect(await stored()).toEqual(expected);
  } finally {
    await referenceStore.close();
    await reference.remove();
  }
}

/** A deploy: the running worker stopped (SIGTERM), one of `edits` (and new `files`) started in its place. */
async function deploy(
  name: string,
  edits: readonly SourceEdit[],
  running: PressroomProcess,
  files: Record<string, string> = {},
) {
  const copy = await deployedCopy(name, edits, files);
  copies.push(copy);
  await running.stop();
  const next = await runWorker(copy);
  // Said for the docs' bound: from the new worker's process start to its first round committed.
  const build = builtBy(next.worker);
  await expectBuiltBy(copy);
  console.log(
    `deploy "${name}": storage, index and edge current ${next.settledMs} ms after the worker's process started (its diff build: ${build?.durationMs ?? "none"} ms)`,
  );
  return next.worker;
}

function edge(path: string) {
  return fetch(`${varnish?.url}${path}`, { redirect: "manual" });
}

/** Every page route fetched through the edge until it is a hit: what a deploy must purge is cached. */
async function primeEdge(routes: readonly string[]): Promise<void> {
  if (!varnish) return;
  for (const route of routes) {
    await (await edge(route)).arrayBuffer();
    const again = await edge(route);
    await again.arrayBuffer();
    expect(again.headers.get("x-cache"), route).toBe("hit");
  }
}

/** The site without price lists' own pages: the deploy of the second test, kept by the third. */
const NO_PRICE_LIST_PAGES: SourceEdit = {
  file: "web/src/routes.ts",
  from: '  return pathForRoute({ kind: "price-list", uid });\n}',
  to: "  return null;\n}",
};

const SLICE_MARK = 'data-deployed="slice-only"';
/** One slice's markup changed: the deploy of the third test, kept by the fourth. */
const FAQ_MARKED: SourceEdit = {
  file: "web/slices/Faq/index.tsx",
  from: '<div className="faq__list">',
  to: `<div className="faq__list" ${SLICE_MARK}>`,
};

const pageRoutes = async () =>
  Object.keys((await manifest()).routes).filter((route) => route.startsWith("/"));

let running: PressroomProcess;

beforeAll(async () => {
  if (!hasVarnish)
    console.warn("varnishd with xkey is not installed: the edge's half of these tests is skipped");
  redis = new Redis({ maxRetriesPerRequest: null });
  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), logger);
  models = await tempDir("deploy-models");
  for (const entry of ["customtypes", "web/slices", "slicemachine.config.json"])
    await cp(join(ROOT, entry), join(models.path, entry), { recursive: true });
  content = await startLocalPrismic({
    modelsDir: models.path,
    webhookUrl: `${webhook.url}/webhooks/prismic`,
    webhookSecret: SECRET,
  });
  folder = await tempDir("deploy-site");
  const storage = { url: `file://${folder.path}`, s3Endpoint: undefined, s3Region: "us-east-1" };
  store = createSiteStore(storage);
  const siteConfig: SiteConfig = {
    host: "127.0.0.1",
    port: 0,
    logLevel: "silent",
    storage,
    siteUrl: SITE_URL,
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    contactRateLimit: 5,
    trustProxy: ["loopback"],
  };
  site = await startSite(siteConfig, logger);
  if (hasVarnish)
    varnish = await startVarnish({
      backend: { host: "127.0.0.1", port: Number(new URL(site.url).port) },
      purgers: ["127.0.0.1"],
    });
  // The site as this checkout builds it: the first worker's start builds it into empty storage.
  running = (await runWorker()).worker;
}, 120_000);

afterAll(async () => {
  for (const process of processes) await process.stop("SIGKILL").catch(() => undefined);
  await site?.close();
  await varnish?.stop();
  await content?.stop();
  await webhook?.close();
  await models?.remove();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis?.quit();
  await folder?.remove();
  for (const copy of copies) await copy.remove();
});

describe("a deploy is a publish", () => {
  it("a component's markup changed (no CSS, no browser code) rewrites every page that shows it, and no other", async () => {
    const MARK = 'data-deployed="markup-only"';
    const before = await stored();
    const indexSite = await redis.hget(`${PREFIX}:index:meta`, "site");
    await primeEdge(await pageRoutes());

    running = await deploy(
      "markup",
      [
        {
          file: "web/src/components/price-table.tsx",
          from: '<table className="price-table">',
          to: `<table className="price-table" ${MARK}>`,
        },
      ],
      running,
    );

    const after = await stored();
    const changed = [...after].filter(([key, hash]) => before.get(key) !== hash).map(([key]) => key);
    const removed = [...before.keys()].filter((key) => !after.has(key));
    const showing: string[] = [];
    for (const key of after.keys())
      if ((await store.get(key))?.body.toString("utf8").includes(MARK)) showing.push(key);
    // Some pages show a price table, not all: otherwise "no other" proves nothing.
    expect(showing.length).toBeGreaterThan(0);
    expect(showing.length).toBeLessThan([...after.keys()].filter((key) => key.endsWith(".html")).length);
    expect(changed.sort()).toEqual(showing.sort());
    expect(removed).toEqual([]);
    // A shared component (not one slice's): every page was rendered again, none kept.
    expect(builtBy(running)?.reused).toBe(0);
    // The index now describes the deployed code.
    expect(await redis.hget(`${PREFIX}:index:meta`, "site")).not.toBe(indexSite);

    if (varnish) {
      const routes = await pageRoutes();
      const { routes: entries } = await manifest();
      for (const route of routes) {
        const answer = await edge(route);
        const body = await answer.text();
        if (showing.includes(entries[route]?.key as string)) {
          // Purged: the edge fetched the new page.
          expect(answer.headers.get("x-cache"), route).toBe("miss");
          expect(body, route).toContain(MARK);
        } else {
          // Not purged: nothing changed there.
          expect(answer.headers.get("x-cache"), route).toBe("hit");
        }
      }
    }
  }, 60_000);

  it("a route removed from the site is gone from storage, the manifest, the index and the edge", async () => {
    const priceListPages = (await pageRoutes()).filter(
      (route) => route.startsWith("/price-list/") && route !== "/price-list/",
    );
    expect(priceListPages.length).toBeGreaterThan(0);
    const { routes: entries } = await manifest();
    const keys = priceListPages.map((route) => entries[route]?.key as string);
    await primeEdge(priceListPages);
    const listed = (await store.get("sitemap.xml"))?.body.toString() ?? "";
    for (const route of priceListPages) expect(listed, route).toContain(`${SITE_URL}${route}<`);

    // The site no longer gives price lists a page of their own (pages still embed them).
    running = await deploy("route", [NO_PRICE_LIST_PAGES], running);

    const after = await stored();
    for (const key of keys) expect(after.has(key), key).toBe(false);
    const now = await manifest();
    const indexed = await redis.hkeys(`${PREFIX}:index:routes`);
    for (const route of priceListPages) {
      expect(Object.keys(now.routes), route).not.toContain(route);
      expect(Object.keys(now.redirects ?? {}), route).not.toContain(route);
      expect(indexed, route).not.toContain(route);
    }
    // The sitemap no longer lists them.
    const sitemap = (await store.get("sitemap.xml"))?.body.toString() ?? "";
    expect(sitemap).toContain(`${SITE_URL}/about`);
    for (const route of priceListPages) expect(sitemap, route).not.toContain(`${SITE_URL}${route}<`);
    // Every other route is still there: the deploy rebuilt the site, it did not drop it.
    expect(Object.keys(now.routes).length).toBe(Object.keys(entries).length - priceListPages.length);

    if (varnish)
      for (const route of priceListPages) {
        const answer = await edge(route);
        await answer.arrayBuffer();
        expect(answer.status, route).toBe(404);
      }
  }, 60_000);

  it("a change in one slice's code renders again only the pages that show the slice", async () => {
    const MARK = SLICE_MARK;
    const before = await stored();
    const pages = Object.values((await manifest()).routes).filter((entry) => entry.documentId).length;
    const indexedBefore = await redis.hgetall(`${PREFIX}:index:routes`);

    running = await deploy("slice", [NO_PRICE_LIST_PAGES, FAQ_MARKED], running);

    const after = await stored();
    const changed = [...after].filter(([key, hash]) => before.get(key) !== hash).map(([key]) => key);
    const showing: string[] = [];
    for (const key of after.keys())
      if ((await store.get(key))?.body.toString("utf8").includes(MARK)) showing.push(key);
    expect(showing.length).toBeGreaterThan(0);
    expect(changed.sort()).toEqual(showing.sort());
    // Every page without the slice was kept, not rendered: only the slice's pages (and the price
    // lists and listings, which a build always renders) were.
    expect(builtBy(running)?.reused).toBe(pages - showing.length);
    // A kept page keeps what it depends on in the index (read from the index the deploy replaced):
    // a later publish of anything it shows still renders it.
    const indexedAfter = await redis.hgetall(`${PREFIX}:index:routes`);
    const kept = Object.entries((await manifest()).routes).filter(
      ([, entry]) => entry.documentId && !showing.includes(entry.key),
    );
    expect(kept.length).toBe(pages - showing.length);
    for (const [route] of kept) {
      const [was, is] = [indexedBefore[route], indexedAfter[route]].map(
        (json) => JSON.parse(json ?? "{}") as { dependencies?: string[] },
      );
      expect(is?.dependencies?.length, route).toBeGreaterThan(0);
      expect(is?.dependencies, route).toEqual(was?.dependencies);
    }
  }, 60_000);

  it("a routed type added with its listing: the listing is live at the deploy, a document of it published then is live with its page, in the listing and in the sitemap", async () => {
    const before = await stored();
    expect(Object.keys((await manifest()).routes)).not.toContain(BLOG_INDEX);

    // The type added in the site's code alone (the previous deploys' edits kept): its listing exists
    // at once, empty; nothing else changes but the sitemap, which lists it.
    running = await deploy(
      "new-type",
      [NO_PRICE_LIST_PAGES, FAQ_MARKED, ...BLOG_EDITS],
      running,
      await blogFiles(),
    );
    const deployed = copies.at(-1) as DeployedCopy;
    const after = await stored();
    const changed = [...after].filter(([key, hash]) => before.get(key) !== hash).map(([key]) => key);
    expect(changed.sort()).toEqual(["blog/index.html", "sitemap.xml"]);
    expect([...before.keys()].filter((key) => !after.has(key))).toEqual([]);
    expect((await manifest()).routes[BLOG_INDEX]).toMatchObject({ key: "blog/index.html" });
    expect(await text("blog/index.html")).toContain("No posts yet.");
    expect(await text("sitemap.xml")).toContain(`${SITE_URL}${BLOG_INDEX}<`);
    await primeEdge([BLOG_INDEX, "/sitemap.xml"]);

    // The model pushed to the repository (as Slice Machine does): the content service reads it
    // without a restart, and an editor publishes a post; its webhook reaches the deployed worker.
    await mkdir(join(models.path, "customtypes/blog_post"), { recursive: true });
    await writeFile(
      join(models.path, "customtypes/blog_post/index.json"),
      (await blogFiles())["customtypes/blog_post/index.json"] as string,
    );
    const TITLE = "Hello from the new blog";
    const UID = "hello-blog";
    const route = `/blog/${UID}`;
    const published = Date.now();
    const answer = await fetch(`${content.url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ upsert: [blogPost(UID, TITLE)] }),
    });
    expect(answer.status, await answer.clone().text()).toBe(200);
    const live = async (path: string) => {
      const response = await fetch(`${site.url}${path}`);
      return response.status === 200 ? await response.text() : "";
    };
    await until(
      "the post, the listing and the sitemap live",
      async () =>
        (await live(route)).includes(TITLE) &&
        (await live(BLOG_INDEX)).includes(`href="${route}"`) &&
        (await live("/sitemap.xml")).includes(`${SITE_URL}${route}<`),
      { timeoutMs: 30_000, intervalMs: 20 },
    );
    const liveMs = Date.now() - published;
    await untilWorkerSettled(redis, PREFIX, content.store.masterRef, 30_000);

    expect(await text(`blog/${UID}/index.html`)).toContain(TITLE);
    const listing = await text("blog/index.html");
    expect(listing).toContain(`href="${route}"`);
    expect(listing).toContain(TITLE);
    expect(listing).not.toContain("No posts yet.");
    expect(await text("sitemap.xml")).toContain(`${SITE_URL}${route}<`);
    expect((await manifest()).routes[route]).toMatchObject({ key: `blog/${UID}/index.html` });
    expect(await redis.hkeys(`${PREFIX}:index:routes`)).toContain(route);
    if (varnish) {
      // The listing and the sitemap were kept by the edge: the publish purged them.
      for (const [path, shows] of [
        [route, TITLE],
        [BLOG_INDEX, `href="${route}"`],
        ["/sitemap.xml", `${SITE_URL}${route}<`],
      ] as const) {
        const response = await edge(path);
        expect(response.status, path).toBe(200);
        expect(await response.text(), path).toContain(shows);
      }
    }
    // What a build of the deployed code makes now, the post included.
    await expectBuiltBy(deployed);
    console.log(
      `deploy "new-type": a post of the new type live (its page, the listing and the sitemap, at the site server) ${liveMs} ms after its publish`,
    );
  }, 90_000);
});

/** A stored object's text ("" when absent). */
async function text(key: string): Promise<string> {
  return (await store.get(key))?.body.toString("utf8") ?? "";
}

/** A new `blog_post` document as an editor publishes it (the content service gives it an id). */
function blogPost(uid: string, title: string) {
  return {
    uid,
    type: "blog_post",
    url: null,
    href: "",
    tags: [],
    slugs: [],
    linked_documents: [],
    lang: "en-us",
    alternate_languages: [],
    data: {
      title: [{ type: "heading1", text: title, spans: [] }],
      body: [{ type: "paragraph", text: "The first post of a type the site did not have.", spans: [] }],
    },
  };
}
