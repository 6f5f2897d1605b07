/**
 * The compose topology, natively: the webhook receiver, TWO workers, the site server and the
 * preview server as separate OS processes (`node bin/pressroom.js serve …`, as each container runs
 * it), on real Redis (a prefix of its own) and the S3 driver against s3rver. A settings change
 * re-renders every route of a generated repository, split into child jobs both workers render; one
 * worker is SIGKILLed in the middle. The other must finish, the bucket must equal a fresh full
 * build, and the site server must serve it. Where varnishd runs here, the edge too (the shipped VCL
 * in front of the site server, the workers purging it): the fan-out rewrites every page, so it is
 * purged by the one site-wide key, and the edge then serves the new pages.
 *
 * About 80 s on a quiet machine (BullMQ's stalled-job check runs every 30 s). Part of `npm test`,
 * as the operators' issue asks; `npm run test:topology` runs it alone, and PRESSROOM_TOPOLOGY=0
 * skips it in a quick local run.
 */
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RENDER_QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { localContentClient } from "../support/content-client.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { type PressroomProcess, startPressroom } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { type S3Server, startS3rver } from "../support/s3rver.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { hasVarnish, startVarnish, type Varnish } from "../support/varnish.ts";

const RUN = process.env.PRESSROOM_TOPOLOGY !== "0";
if (!RUN) console.log("topology.test.ts skipped (PRESSROOM_TOPOLOGY=0): `npm run test:topology` runs it");

const ROOT = new URL("../../", import.meta.url).pathname;
/** 300 pages: three child jobs of 100 routes (a publish splits above 200). */
const PAGES = 300;
const PREFIX = `test-topology-${process.pid}-${Date.now()}`;
const SECRET = "topology-test-webhook-secret";
const SITE_URL = "https://www.example.com";
const HOLDER = "Topology Test LLC";

let s3: S3Server;
let s3Dir: { path: string; remove: () => Promise<void> };
let content: LocalPrismic;
let redis: Redis;
let store: SiteStore;
let edge: Varnish | undefined;
const processes: PressroomProcess[] = [];

function common(): Record<string, string> {
  return {
    REDIS_URL: "redis://127.0.0.1:6379",
    QUEUE_PREFIX: PREFIX,
    STORAGE_URL: "s3://site/www",
    S3_ENDPOINT: s3.endpoint,
    AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    SITE_URL,
    HOST: "127.0.0.1",
    PORT: "0",
    OPS_PORT: "0",
  };
}

function start(args: string[], env: Record<string, string>): PressroomProcess {
  const started = startPressroom(args, { ...common(), ...env });
  processes.push(started);
  return started;
}

const listening = async (server: PressroomProcess) =>
  (await server.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1] as string;

beforeAll(async () => {
  if (!RUN) return;
  const repo = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `topology-repo-${PAGES}`);
  ensureGeneratedRepository(repo, PAGES, 10);
  s3Dir = await tempDir("topology-s3");
  s3 = await startS3rver(s3Dir.path);
  const raw = new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: s3.credentials,
  });
  await raw.send(new CreateBucketCommand({ Bucket: "site" }));
  raw.destroy();
  redis = new Redis({ maxRetriesPerRequest: null });
  store = createSiteStore(
    { url: "s3://site/www", s3Endpoint: s3.endpoint, s3Region: "us-east-1" },
    {
      s3Client: new S3Client({
        endpoint: s3.endpoint,
        region: "us-east-1",
        forcePathStyle: true,
        credentials: s3.credentials,
      }),
    },
  );

  const webhook = start(["serve", "webhook"], { WEBHOOK_SECRET: SECRET, PRISMIC_REPOSITORY: "demo" });
  content = await startLocalPrismic({
    seedDir: repo,
    webhookUrl: `${await listening(webhook)}/webhooks/prismic`,
    webhookSecret: SECRET,
  });
}, 300_000);

afterAll(async () => {
  for (const running of processes) await running.stop().catch(() => undefined);
  await edge?.stop();
  await content?.stop();
  await store?.close();
  if (redis) {
    await removeKeysUnder(redis, PREFIX);
    await redis.quit();
  }
  await s3?.stop();
  await s3Dir?.remove();
});

describe.skipIf(!RUN)("the compose topology as OS processes", () => {
  it("survives a worker SIGKILLed mid-fan-out: the other finishes, the bucket equals a full build, the site serves it", async () => {
    const site = start(["serve", "site"], {});
    const preview = start(["serve", "preview"], { PRISMIC_ENDPOINT: content.endpoint });
    const [siteUrl, previewUrl] = await Promise.all([listening(site), listening(preview)]);
    if (hasVarnish)
      edge = await startVarnish({
        backend: { host: "127.0.0.1", port: Number(new URL(siteUrl).port) },
        purgers: ["127.0.0.1"],
      });
    else console.log("topology.test.ts: no edge (varnishd or its xkey vmod is missing)");
    const worker = {
      PRISMIC_ENDPOINT: content.endpoint,
      ...(edge ? { CDN_PURGE_URL: `varnish://127.0.0.1:${edge.port}` } : {}),
    };
    const workers = [start(["serve", "worker"], worker), start(["serve", "worker"], worker)];
    for (const running of workers) await running.waitFor(/^worker started$/, 60_000);

    // A worker's first reconcile finds no index: a diff build of every route.
    await until(
      "the first build",
      async () => (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef,
      { timeoutMs: 120_000 },
    );

    // The edge keeps the home page and a page of the repository (any one) before the publish.
    const [, page = "/"] = Object.keys((await storedManifest(store))?.routes ?? {}).filter((route) =>
      /^\/[a-z0-9-]+$/.test(route),
    );
    if (edge)
      for (const path of ["/", page]) {
        await fetch(`${edge.url}${path}`);
        expect((await fetch(`${edge.url}${path}`)).headers.get("x-cache"), path).toBe("hit");
      }

    const settings = (await localContentClient(content.endpoint).getSingle("settings")) as unknown as {
      data: Record<string, unknown>;
    };
    const answer = await fetch(`${content.url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        upsert: [{ ...settings, data: { ...settings.data, copyright_holder: HOLDER } }],
      }),
    });
    expect(answer.status).toBe(200);

    // The worker that took the publish says so; the other renders child jobs for it. Kill that one
    // while both render, so one batch is left active with nobody behind it.
    const fanOut = /^large fan-out: rendering in child jobs$/;
    const publisher = await Promise.any(
      workers.map(async (w) => {
        await w.waitFor(fanOut, 60_000);
        return w;
      }),
    );
    const helper = workers.find((w) => w !== publisher) as PressroomProcess;
    const renderQueue = new Queue(RENDER_QUEUE_NAME, { connection: redis, prefix: PREFIX });
    try {
      await until("both workers to render", async () => (await renderQueue.getActiveCount()) >= 2, {
        timeoutMs: 60_000,
      });
      await helper.stop("SIGKILL");
      expect(helper.child.signalCode).toBe("SIGKILL");

      const keys = redisKeys(PREFIX);
      await until(
        "the surviving worker to finish the publish",
        async () =>
          (await redis.hget(`${PREFIX}:index:meta`, "ref")) === content.store.masterRef &&
          (await redis.scard(keys.processingIds)) + (await redis.scard(keys.pendingIds)) === 0,
        { timeoutMs: 150_000 },
      );
      // Every batch completed (the killed worker's one by the survivor, after BullMQ's stalled check).
      const counts = await renderQueue.getJobCounts("completed", "failed", "active", "waiting");
      expect(counts).toMatchObject({ failed: 0, active: 0, waiting: 0 });
      expect(counts.completed).toBeGreaterThanOrEqual(3);
    } finally {
      await renderQueue.close();
    }
    expect(publisher.child.exitCode).toBeNull();

    await expectEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
    const home = await fetch(`${siteUrl}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain(HOLDER);
    expect((await fetch(`${siteUrl}/_pressroom/readyz`)).status).toBe(200);
    expect((await fetch(`${previewUrl}/`)).status).toBe(200);
    if (edge) {
      // One site-wide purge, not one per page: the edge serves the new pages.
      expect(publisher.messages).toContain("edge purged everything (site-wide key)");
      for (const path of ["/", page])
        expect(await (await fetch(`${edge.url}${path}`)).text(), path).toContain(HOLDER);
    }
  }, 400_000);
});
