/**
 * A full disk during a rename: the site's folder is a small tmpfs filled so that a rename's pages
 * fit and the build manifest's route shard (the largest file a small publish writes) does not. Through the real
 * publish path (local content service calling the real webhook receiver, real Redis, the worker,
 * the folder driver; the site server as its own process): the new URL answers 200 while the disk
 * is full, the old one 301 to it, and no visitor gets a 404 for the page once it is written nor a
 * redirect to a page that is not served; the publish fails with ENOSPC in its log and is retried,
 * spending no attempt, until space is freed; then the site equals a fresh full build, with no
 * reconcile round and no operator. Where varnishd runs, the edge in front lets the new URL's cached
 * 404 go at once. A page renamed and renamed back while the disk is full ends at its first URL (the
 * next try rewrites what the failed one wrote; the route shard of the manifest from before the
 * rename is still stored, so that publish completes on the full disk). The times from the webhook to the new URL's 200 and
 * from space freed to a consistent site are printed. Needs `mount -t tmpfs` (root): skipped with a
 * visible note where it is refused.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statfsSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
import { jobCatalog, QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { MANIFEST_SHARDS_PREFIX } from "#manifest/manifest.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { type PressroomProcess, startPressroom } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { hasVarnish, startVarnish, type Varnish } from "../support/varnish.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PREFIX = `test-disk-full-${process.pid}-${Date.now()}`;
const SECRET = "disk-full-secret";
const SITE_URL = "https://www.example.com";
const BLOCK = 4096;
/**
 * Pages beside the demo's: the manifest's route shard grows with them (≈ 300 bytes a route with
 * these long uids, the sitemap ≈ 160), a page does not. Few enough for one shard (512 routes).
 */
const CLONES = 480;
const LONG = "a-page-whose-address-is-long-enough-to-outgrow-the-sitemap";
const PRIVACY = JSON.parse(
  readFileSync(`${ROOT}services/local-prismic/demo/documents/Z9nWxxEAACUAx1Hh.json`, "utf8"),
) as { id: string; uid: string; slugs: string[] };
const cloneOf = (i: number) => ({
  ...PRIVACY,
  id: `Zdiskfull${String(i).padStart(7, "0")}`,
  uid: `clone-${String(i).padStart(4, "0")}-${LONG}`,
  slugs: [`clone-${String(i).padStart(4, "0")}-${LONG}`],
});
const RENAMED = cloneOf(7);
const EDITED_TITLE = "Edited while the disk was full";
const EDITED = (() => {
  const clone = cloneOf(9) as ReturnType<typeof cloneOf> & { data: Record<string, unknown> };
  return { ...clone, data: { ...clone.data, title: [{ type: "heading1", text: EDITED_TITLE, spans: [] }] } };
})();
const OLD = `/${RENAMED.uid}`;
const NEW = `/${RENAMED.uid}-renamed`;

const base = process.env.TMPDIR ?? join(process.cwd(), ".tmp");
mkdirSync(base, { recursive: true });
const mountPoint = join(base, `disk-full-${process.pid}-${Date.now()}`);
/** A 16 MB tmpfs for the site; undefined where mounting is refused (not root, no CAP_SYS_ADMIN). */
const mounted = (() => {
  mkdirSync(mountPoint, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint], { stdio: "pipe" });
    return true;
  } catch (error) {
    rmSync(mountPoint, { recursive: true, force: true });
    console.warn(
      `SKIPPED disk-full-rename: cannot mount a tmpfs here (${(error as Error).message.split("\n")[0]})`,
    );
    return false;
  }
})();

const lines: string[] = [];
const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

let redis: Redis;
let content: LocalPrismic;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let worker: RunningWorker;
let store: SiteStore;
let site: PressroomProcess;
let siteUrl: string;
/** A real varnishd with the shipped VCL in front of the site server, where it is installed. */
let varnish: Varnish | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => Promise<boolean> | boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await Promise.resolve(condition()).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
async function publishJob(ref: string) {
  const queue = new Queue(QUEUE_NAME, { connection: redis, prefix: PREFIX });
  try {
    return await queue.getJob(jobCatalog.publish.jobId({ masterRef: ref, documents: [], receivedAt: "" }));
  } finally {
    await queue.close();
  }
}
const get = (path: string) => fetch(`${siteUrl}${path}`, { redirect: "manual" });
const viaEdge = (path: string) => fetch(`${varnish?.url}${path}`, { redirect: "manual" });
const blocks = (bytes: number) => Math.ceil(bytes / BLOCK);
const freeBytes = () => {
  const stats = statfsSync(mountPoint);
  return stats.bavail * stats.bsize;
};

/**
 * Fills the disk, leaving room for what renaming `uid` writes before its manifest (its page, the
 * sitemap rewritten beside the old one, the redirect object and its metadata, the redirect
 * history) and not for the manifest.
 */
async function fillLeavingRoomToRename(uid: string) {
  const size = async (key: string) => (await store.head(key))?.size ?? 0;
  // The rename rewrites the shard holding its routes: the smallest must not fit.
  const shards: number[] = [];
  for await (const object of store.list(MANIFEST_SHARDS_PREFIX)) shards.push(object.size);
  const manifestBytes = Math.min(...shards);
  const room = (blocks(await size(`${uid}/index.html`)) + blocks(await size("sitemap.xml")) + 4) * BLOCK;
  expect(blocks(manifestBytes), "the manifest must be larger than the room left").toBeGreaterThan(
    blocks(room) + 2,
  );
  const filler = join(mountPoint, ".pressroom-filler");
  writeFileSync(filler, Buffer.alloc(freeBytes() - room));
  expect(freeBytes()).toBe(room);
  return { filler, manifestBytes };
}

/** The worker's error lines that say ENOSPC, from the `from`th log line on. */
const enospcSince = (from: number) =>
  lines
    .slice(from)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => JSON.stringify(line).includes("ENOSPC") && line.level === 50);

beforeAll(async () => {
  if (!mounted) return;
  redis = new Redis({ maxRetriesPerRequest: null });
  webhook = await startWebhook(
    {
      host: "127.0.0.1",
      port: 0,
      logLevel: "silent",
      repository: "demo",
      webhookSecret: SECRET,
      redisUrl: "redis://127.0.0.1:6379",
      queuePrefix: PREFIX,
    },
    pino({ level: "silent" }),
  );
  content = await startLocalPrismic({ webhookUrl: `${webhook.url}/webhooks/prismic`, webhookSecret: SECRET });
  // Straight into the content service (no webhook): the worker's first build publishes them.
  await content.store.publish({ upsert: Array.from({ length: CLONES }, (_, i) => cloneOf(i)) });
  // The site server as production runs it: its own process (a publish's synchronous writes in this
  // one would hold its answers back, and the times measured with them).
  site = startPressroom(["serve", "site"], {
    STORAGE_URL: `file://${mountPoint}`,
    PORT: "0",
    OPS_PORT: "off",
    REDIS_URL: "redis://127.0.0.1:6379",
    QUEUE_PREFIX: PREFIX,
    SITE_URL,
  });
  siteUrl = (await site.waitFor(/site listening on (http:\/\/[\d.:]+)/, 30_000))[1] as string;
  if (hasVarnish)
    varnish = await startVarnish({
      backend: { host: "127.0.0.1", port: Number(new URL(siteUrl).port) },
      purgers: ["127.0.0.1"],
    });
  else console.warn("disk-full-rename: the edge part is skipped (no varnishd with the xkey vmod here)");
  const config: PublisherConfig = {
    logLevel: "info",
    prismic: {
      repository: "demo",
      endpoint: content.endpoint,
      accessToken: undefined,
      timeoutMs: 10_000,
      cacheTtlMs: 5_000,
      cacheMaxEntries: 1_000,
      rateLimitRetries: 3,
    },
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    storage: { url: `file://${mountPoint}`, s3Endpoint: undefined, s3Region: "us-east-1" },
    siteUrl: SITE_URL,
    ...(varnish ? { edge: { purgeUrl: `varnish://127.0.0.1:${varnish.port}` } } : {}),
  };
  store = createSiteStore(config.storage);
  // No reconcile round during the test: the publish alone must come back once space is freed.
  worker = await startWorker(config, logger, { rootDir: ROOT, reconcileEveryMs: 3_600_000 });
  await untilWorkerSettled(redis, PREFIX, content.store.masterRef, 180_000);
}, 240_000);

afterAll(async () => {
  if (!mounted) return;
  await worker?.close();
  await varnish?.stop();
  await site?.stop();
  await webhook?.close();
  await content?.stop();
  await store?.close();
  if (redis) {
    await removeKeysUnder(redis, PREFIX);
    redis.disconnect();
  }
  execFileSync("umount", [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
}, 60_000);

describe.skipIf(!mounted)("a rename on a full disk (a tmpfs with room for pages, not the manifest)", () => {
  it("serves the new URL at once, redirects the old one to it, and completes once space is freed", async () => {
    expect((await get(OLD)).status).toBe(200);
    expect((await get(NEW)).status).toBe(404);
    if (varnish) {
      // The edge keeps both: the page, and the 404 of the new URL someone asked for too early.
      expect((await viaEdge(OLD)).status).toBe(200);
      expect((await viaEdge(NEW)).status).toBe(404);
    }

    const { filler, manifestBytes } = await fillLeavingRoomToRename(RENAMED.uid);

    // Every answer the two URLs give from the edit on, in order.
    const seen: { path: string; status: number; location: string | null; at: number }[] = [];
    let watching = true;
    const watch = (async () => {
      while (watching) {
        for (const path of [NEW, OLD]) {
          const answer = await get(path).catch(() => undefined); // 0: the server did not answer
          seen.push({
            path,
            status: answer?.status ?? 0,
            location: answer?.headers.get("location") ?? null,
            at: Date.now(),
          });
          await answer?.arrayBuffer();
        }
        await sleep(2);
      }
    })();
    const stopWatching = async () => {
      watching = false;
      await watch;
    };
    try {
      const sent = Date.now();
      const published = await fetch(`${content.url}/admin/publish`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ upsert: [{ ...RENAMED, uid: NEW.slice(1), slugs: [NEW.slice(1)] }] }),
      });
      expect(published.status).toBe(200);
      const ref = content.store.masterRef;
      const enospc = () =>
        logged().filter((line) => JSON.stringify(line).includes("ENOSPC") && line.level === 50);
      await until(() => enospc().length > 0, 60_000, "the publish to fail with ENOSPC");
      try {
        const failure = JSON.stringify(enospc()[0]);
        expect(failure, "the manifest is what does not fit").toContain(".pressroom/manifest");

        // The disk is still full: the manifest on disk is the old one, yet the new page is served.
        expect((await storedManifest(store))?.routes[NEW]).toBeUndefined();
        expect((await get(NEW)).status).toBe(200);
        const old = await get(OLD);
        expect(old.status).toBe(301);
        expect(old.headers.get("location")).toBe(NEW);
        if (varnish) {
          // Through the edge: the new URL purged as soon as its page was written, though no manifest
          // names it; the old one is its kept page until the publish commits (then purged: below).
          expect((await viaEdge(NEW)).status).toBe(200);
          expect((await viaEdge(OLD)).status).toBe(200);
        }
        // Retried while the disk stays full, and said each time.
        await until(() => enospc().length > 1, 60_000, "a second try, failing with ENOSPC too");
        // Tried again without spending an attempt: a disk full for hours does not exhaust the job.
        const job = await publishJob(ref);
        expect(job?.attemptsStarted).toBeGreaterThan(1);
        expect(job?.attemptsMade, "attempts spent on a full disk").toBe(0);
        // Another delivery meanwhile: one try, then its document is left to the job waiting for
        // space, which publishes both (one publish every 30 s at most, not one per delivery).
        const edited = await fetch(`${content.url}/admin/publish`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ upsert: [EDITED] }),
        });
        expect(edited.status).toBe(200);
        const editRef = content.store.masterRef;
        await until(
          async () => (await publishJob(editRef))?.finishedOn !== undefined,
          60_000,
          "the second delivery's job to end",
        );
        const second = await publishJob(editRef);
        expect(second?.returnvalue).toEqual({ mode: "storage-full", leftTo: job?.id });
        expect(await second?.isCompleted()).toBe(true);
        expect(await (await publishJob(ref))?.isDelayed()).toBe(true);
        expect(freeBytes()).toBeLessThan(manifestBytes);
      } finally {
        unlinkSync(filler);
      }
      const freed = Date.now();
      await until(
        async () =>
          (await storedManifest(store))?.routes[NEW] !== undefined &&
          (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef &&
          (await redis.scard(redisKeys(PREFIX).processingIds)) === 0 &&
          (await redis.scard(redisKeys(PREFIX).pendingIds)) === 0,
        120_000,
        "the publish to complete once space is freed",
      );
      const consistent = Date.now();
      if (varnish) {
        await until(
          async () => (await viaEdge(OLD)).status === 301,
          30_000,
          "the edge to let the old page go",
        );
        expect((await viaEdge(OLD)).headers.get("location")).toBe(NEW);
        expect((await viaEdge(NEW)).status).toBe(200);
      }
      await stopWatching();

      const firstServed = seen.find((answer) => answer.path === NEW && answer.status === 200);
      expect(firstServed, "the new URL answered 200").toBeDefined();
      const afterServed = seen.filter((answer) => answer.at >= (firstServed?.at ?? 0));
      // Once served, never a 404; the old URL is the page or a redirect to the new one, never a 404.
      expect(afterServed.filter((answer) => answer.path === NEW && answer.status !== 200)).toEqual([]);
      expect(
        seen.filter(
          (answer) =>
            answer.path === OLD &&
            !(answer.status === 200 || (answer.status === 301 && answer.location === NEW)),
        ),
      ).toEqual([]);
      // A redirect to the new URL only once it is served.
      const firstRedirect = seen.find((answer) => answer.path === OLD && answer.status === 301);
      expect(firstRedirect && firstServed && firstRedirect.at >= firstServed.at - 50).toBe(true);

      console.log(
        `disk-full-rename: webhook → new URL 200 in ${(firstServed?.at ?? 0) - sent} ms (disk full; ` +
          `${Number(enospc()[0]?.time) - (firstServed?.at ?? 0)} ms before the first ENOSPC was logged); ` +
          `space freed → site consistent in ${consistent - freed} ms; ENOSPC tries: ${enospc().length}`,
      );
      expect((await get(`/${EDITED.uid}`)).status).toBe(200);
      expect((await store.get(`${EDITED.uid}/index.html`))?.body.toString()).toContain(EDITED_TITLE);
      await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
    } finally {
      await stopWatching().catch(() => undefined);
    }
  }, 300_000);

  it("a page renamed and renamed back while the disk is full ends at its first URL, as a full build", async () => {
    const page = cloneOf(11);
    const moved = { ...page, uid: `${page.uid}-moved`, slugs: [`${page.uid}-moved`] };
    const publishEdit = async (doc: object) => {
      const answer = await fetch(`${content.url}/admin/publish`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ upsert: [doc] }),
      });
      expect(answer.status).toBe(200);
    };
    const { filler } = await fillLeavingRoomToRename(page.uid);
    try {
      const before = lines.length;
      await publishEdit(moved);
      await until(() => enospcSince(before).length > 0, 60_000, "the rename to fail with ENOSPC");
      expect((await get(`/${moved.uid}`)).status).toBe(200);
      expect((await get(`/${page.uid}`)).headers.get("location")).toBe(`/${moved.uid}`);

      // Renamed back while the disk is still full: the next publish writes the page at its first
      // URL again (the index still holds its bytes: storage does not) and removes the other. Its
      // manifest is the one from before the rename, whose route shard is still stored (shards are
      // named by their bytes): it needs only the small root, and completes on the full disk.
      await publishEdit(page);
      await until(
        async () =>
          (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef &&
          (await redis.scard(redisKeys(PREFIX).pendingIds)) === 0,
        60_000,
        "the rename back to be published",
      );
      expect((await get(`/${page.uid}`)).status).toBe(200);
      expect((await get(`/${moved.uid}`)).status).toBe(404);
    } finally {
      unlinkSync(filler);
    }
    await until(
      async () =>
        (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef &&
        (await redis.scard(redisKeys(PREFIX).processingIds)) === 0 &&
        (await redis.scard(redisKeys(PREFIX).pendingIds)) === 0,
      120_000,
      "the publish to complete once space is freed",
    );
    expect(await redis.scard(redisKeys(PREFIX).unsettledRoutes)).toBe(0);
    expect((await get(`/${page.uid}`)).status).toBe(200);
    expect((await get(`/${moved.uid}`)).status).toBe(404);
    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
  }, 300_000);
});
