/**
 * The project's main correctness test: after any sequence of publishes, delivered with duplicates,
 * delays and reordering, storage holds byte for byte what a full build at the newest master ref
 * produces, and nothing else. Real Redis, real S3 protocol (s3rver), the real local content service
 * and webhook receiver, the real worker. Editors' redirects are among the random edits:
 * created, retargeted (pages live or not, chains, loops, other sites), made temporary or permanent,
 * unpublished, and losing to a page published at their path.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
import { QUEUE_NAME, RENDER_QUEUE_NAME, redisKeys } from "#jobs/catalog.ts";
import { mulberry32 } from "#local-prismic/generate.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { type ChaoticDeliveries, startChaoticDeliveries } from "../support/chaotic-deliveries.ts";
import { contentConfig } from "../support/content-client.ts";
import { expectEqualsFullBuild as expectStoreEqualsFullBuild } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { type S3Server, startS3rver } from "../support/s3rver.ts";
import { tempDir } from "../support/temp-dir.ts";
import { untilIdle as untilEngineIdle } from "../support/until-idle.ts";
import { webhookOptions } from "../support/webhook-options.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO = `${ROOT}services/local-prismic/demo/documents/`;
const SECRET = "incremental-equals-full-secret";
const SITE_URL = "https://www.example.com";
const PREFIX = `test-ief-${process.pid}-${Date.now()}`;
const SEED = Number(process.env.IEF_SEED ?? 20261121);
const EDITS = Number(process.env.IEF_EDITS ?? 120);
const PRINT_LEVEL = process.env.TEST_LOG_LEVEL ?? "silent";
/**
 * Every publish the worker finished, as it logs them ("publish finished"): a publish job that finds
 * ids arriving meanwhile publishes them in the same job and returns only its last publish.
 */
const publishes: { mode?: string; batches?: number }[] = [];
const logger = pino(
  { level: PRINT_LEVEL !== "silent" && (pino.levels.values[PRINT_LEVEL] ?? 30) < 30 ? PRINT_LEVEL : "info" },
  {
    write(line: string) {
      const record = JSON.parse(line) as { level: number; msg?: string; mode?: string; batches?: number };
      if (record.msg === "publish finished") publishes.push(record);
      if (PRINT_LEVEL !== "silent" && record.level >= (pino.levels.values[PRINT_LEVEL] ?? 0))
        process.stdout.write(line);
    },
  },
);

type Doc = {
  id: string;
  uid: string | null;
  type: string;
  data: Record<string, unknown>;
  [key: string]: unknown;
};
const demo = (id: string) => JSON.parse(readFileSync(`${DEMO}${id}.json`, "utf8")) as Doc;
const SETTINGS = "Z9nWsREAACUAx1Aa";
const PAGE_IDS = [
  "Z9nWuhEAACMAx1Cc",
  "Z9nWvBEAACQAx1Dd",
  "Z9nWvxEAACUAx1Ee",
  "Z9nWwREAACMAx1Ff",
  "Z9nWxBEAACQAx1Gg",
  "Z9nWxxEAACUAx1Hh",
];
const PRICE_LIST_IDS = ["Z9nWyREAACMAx1Ii", "Z9nWzBEAACQAx1Jj", "Z9nWzxEAACUAx1Kk"];
/** The demo's redirect documents: `/team` → about, `/spring-workshops` → workshops. */
const REDIRECT_IDS = ["Z9nX0REAACMAx1Ll", "Z9nX0xEAACUAx1Mm"];

let s3: S3Server;
let s3Dir: { path: string; remove: () => Promise<void> };
let content: LocalPrismic;
let chaos: ChaoticDeliveries;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let worker: RunningWorker;
let redis: Redis;
let store: SiteStore;

beforeAll(async () => {
  s3Dir = await tempDir("ief-s3");
  s3 = await startS3rver(s3Dir.path);
  process.env.AWS_ACCESS_KEY_ID = s3.credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = s3.credentials.secretAccessKey;
  const raw = new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: s3.credentials,
  });
  await raw.send(new CreateBucketCommand({ Bucket: "site" }));
  raw.destroy();
  redis = new Redis({ maxRetriesPerRequest: null });

  webhook = await startWebhook(webhookOptions(PREFIX, SECRET), logger);
  chaos = await startChaoticDeliveries(`${webhook.url}/webhooks/prismic`, mulberry32(SEED));
  content = await startLocalPrismic({ webhookUrl: chaos.url, webhookSecret: SECRET });

  const config: PublisherConfig = {
    logLevel: "silent",
    prismic: contentConfig(content.endpoint),
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix: PREFIX,
    storage: { url: "s3://site/www", s3Endpoint: s3.endpoint, s3Region: "us-east-1" },
    siteUrl: SITE_URL,
  };
  // A low fan-out threshold sends the larger publishes through child jobs on the render queue, and
  // leaves the smaller ones to the publishing job: both paths in one run.
  worker = await startWorker(config, logger, { rootDir: ROOT, reconcileEveryMs: 1_000, fanOutThreshold: 8 });
  store = createSiteStore(config.storage);
}, 60_000);

afterAll(async () => {
  await worker?.close();
  await webhook?.close();
  await content?.stop();
  await chaos?.close();
  await store?.close();
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await s3?.stop();
  await s3Dir?.remove();
});

async function publish(edit: { upsert?: Doc[]; remove?: string[] }) {
  const response = await fetch(`${content.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(edit),
  });
  if (response.status !== 200) throw new Error(`publish refused: ${await response.text()}`);
}

/** Idle: every delivery forwarded, then the engine (until-idle.ts). */
async function untilIdle(timeoutMs = 90_000) {
  await chaos.settled();
  await untilEngineIdle(redis, PREFIX, () => content.store.masterRef, timeoutMs);
}

async function expectEqualsFullBuild() {
  await untilIdle();
  await expectStoreEqualsFullBuild(store, content.endpoint, content.store.masterRef, SITE_URL);
}

describe("incremental ≡ full", () => {
  it("starts from a diff build when the index is missing", async () => {
    await expectEqualsFullBuild();
  }, 120_000);

  it(`stays equal to a full build through ${EDITS} random edits delivered out of order and twice (seed ${SEED})`, async () => {
    const random = mulberry32(SEED + 1);
    publishes.length = 0; // this test's publishes only
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const live = new Map<string, Doc>(
      [...PAGE_IDS, ...PRICE_LIST_IDS, ...REDIRECT_IDS, SETTINGS].map((id) => [id, demo(id)]),
    );
    const removed = new Map<string, Doc>();
    let created = 0;
    const pages = () => [...live.values()].filter((d) => d.type === "page");
    const redirects = () => [...live.values()].filter((d) => d.type === "redirect");
    const text = (words: string) => [{ type: "heading1", text: words, spans: [] }];
    // Where an editor's redirect goes: a page or price list, live or unpublished (it
    // follows renames, waits while it is gone); this site's own address of another redirect or
    // page (a chain, a loop, or a page); another site; a path with no page.
    const redirectTarget = (step: number) => {
      const kind = random();
      if (kind < 0.45)
        return documentLink(pick([...pages(), ...removed.values(), demo(pick(PRICE_LIST_IDS))]));
      if (kind < 0.75) {
        const paths = [
          ...redirects().map((r) => String(r.data.from_path)),
          ...pages().map((p) => `/${p.uid}`),
        ];
        return { link_type: "Web", url: `${SITE_URL}${pick(paths)}` };
      }
      if (kind < 0.9) return { link_type: "Web", url: `https://shop.example.com/offer-${step}?src=site` };
      return { link_type: "Web", url: `${SITE_URL}/nowhere-${step}` };
    };
    // A From path: new, an existing redirect's (a duplicate), or a page's route (the page wins).
    const redirectFrom = (step: number) => {
      const kind = random();
      if (kind < 0.5 || redirects().length === 0) return `/promo-${step}`;
      if (kind < 0.75) return String(pick(redirects()).data.from_path);
      return `/${pick(pages()).uid}/`;
    };

    for (let step = 0; step < EDITS; step++) {
      if (random() < 0.15) {
        // An editor's redirect: created, its target or status changed, unpublished, or a page
        // published at its path.
        const kind = random();
        const existing = redirects();
        if (kind < 0.35 || existing.length === 0) {
          const doc: Doc = {
            ...demo(REDIRECT_IDS[0] as string),
            id: `NewRedirect${String(++created).padStart(7, "0")}`,
            data: { from_path: redirectFrom(step), to: redirectTarget(step), permanent: random() < 0.6 },
          };
          live.set(doc.id, doc);
          await publish({ upsert: [doc] });
        } else if (kind < 0.55) {
          const doc = pick(existing);
          const edited = { ...doc, data: { ...doc.data, to: redirectTarget(step) } };
          live.set(doc.id, edited);
          await publish({ upsert: [edited] });
        } else if (kind < 0.7) {
          const doc = pick(existing);
          const edited = { ...doc, data: { ...doc.data, permanent: doc.data.permanent === false } };
          live.set(doc.id, edited);
          await publish({ upsert: [edited] });
        } else if (kind < 0.85) {
          const doc = pick(existing);
          live.delete(doc.id);
          await publish({ remove: [doc.id] });
        } else {
          // A new page at a redirect's path: the page wins, the redirect's object is replaced.
          const from = String(pick(existing).data.from_path)
            .replace(/^\/|\/$/g, "")
            .toLowerCase();
          if (!/^[a-z0-9-]+$/.test(from) || pages().some((p) => p.uid === from)) continue;
          const source = demo(pick(PAGE_IDS));
          const doc = { ...source, id: `NewPage${String(++created).padStart(9, "0")}`, uid: from };
          live.set(doc.id, doc);
          await publish({ upsert: [doc] });
        }
        // As below: sometimes let the pipeline catch up.
        if (random() < 0.15) await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 200)));
        continue;
      }
      const roll = random();
      if (roll < 0.25) {
        const doc = pick(pages());
        const edited = { ...doc, data: { ...doc.data, meta_description: `Edit ${step} of ${doc.uid}` } };
        live.set(doc.id, edited);
        await publish({ upsert: [edited] });
      } else if (roll < 0.3) {
        // Hidden from search engines, or listed again (the sitemap follows, the day unchanged).
        const doc = pick(pages());
        const edited = { ...doc, data: { ...doc.data, noindex: doc.data.noindex !== true } };
        live.set(doc.id, edited);
        await publish({ upsert: [edited] });
      } else if (roll < 0.42) {
        const source = demo(pick(PAGE_IDS));
        const doc = {
          ...source,
          id: `NewPage${String(++created).padStart(9, "0")}`,
          uid: `new-page-${created}`,
          data: { ...source.data, title: text(`New page ${created}`) },
        };
        live.set(doc.id, doc);
        await publish({ upsert: [doc] });
      } else if (roll < 0.54) {
        const doc = pick(pages());
        if (doc.uid === "home") continue;
        const renamed = { ...doc, uid: `${doc.uid?.replace(/-v\d+$/, "")}-v${step}` };
        live.set(doc.id, renamed);
        await publish({ upsert: [renamed] });
      } else if (roll < 0.64) {
        const doc = pick(pages());
        if (doc.uid === "home" || pages().length < 4) continue;
        live.delete(doc.id);
        removed.set(doc.id, doc);
        await publish({ remove: [doc.id] });
      } else if (roll < 0.72 && removed.size > 0) {
        const doc = pick([...removed.values()]);
        removed.delete(doc.id);
        const uidTaken = pages().some((p) => p.uid === doc.uid);
        const back = uidTaken ? { ...doc, uid: `${doc.uid}-back-${step}` } : doc;
        live.set(doc.id, back);
        await publish({ upsert: [back] });
      } else if (roll < 0.78) {
        const settings = live.get(SETTINGS) as Doc;
        const edited = {
          ...settings,
          data: { ...settings.data, copyright_holder: `Northwind Studio ${step}` },
        };
        live.set(SETTINGS, edited);
        await publish({ upsert: [edited] });
      } else if (roll < 0.9) {
        const list = live.get(pick(PRICE_LIST_IDS)) as Doc;
        const rows = (list.data.rows as Record<string, unknown>[]).map((row, i) =>
          i === 0 ? { ...row, price: 100 + step } : row,
        );
        const edited = { ...list, data: { ...list.data, rows } };
        live.set(list.id, edited);
        await publish({ upsert: [edited] });
      } else if (roll < 0.95) {
        // A link between pages: a page's first text section links to another page, live or
        // unpublished (a broken link, live again if that page comes back), which may later move or go.
        const [from, to] = [pick(pages()), pick([...pages(), ...removed.values()])];
        const edited = linkingTo(from, to);
        live.set(from.id, edited);
        await publish({ upsert: [edited] });
      } else {
        // The navigation (settings) links to a page, live or unpublished, which may later move or go.
        const to = pick([...pages(), ...removed.values()]);
        const settings = live.get(SETTINGS) as Doc;
        const edited = navigatingTo(settings, to);
        live.set(SETTINGS, edited);
        await publish({ upsert: [edited] });
      }
      // Sometimes let the pipeline catch up, sometimes pile edits up into a burst.
      if (random() < 0.15) await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 200)));
    }
    await expectEqualsFullBuild();
    // Whether the seed's publishes fanned out depends on timing, so both paths also get one publish
    // each with the pipeline idle: a one-page content edit (its own job), then a settings edit
    // (child jobs). Each must keep the site equal to a full build.
    const lone = pick(pages());
    const loneEdit = {
      ...lone,
      data: { ...lone.data, meta_description: `Alone, after the seed's ${EDITS} edits` },
    };
    live.set(lone.id, loneEdit);
    const beforeLone = publishes.length;
    await publish({ upsert: [loneEdit] });
    await expectEqualsFullBuild();
    expect(publishes.slice(beforeLone), "a lone page edit, rendered in its own job").toContainEqual(
      expect.objectContaining({ mode: "incremental", batches: 0 }),
    );
    const settings = live.get(SETTINGS) as Doc;
    const settingsEdit = {
      ...settings,
      data: { ...settings.data, copyright_holder: "Northwind Studio, at last" },
    };
    live.set(SETTINGS, settingsEdit);
    const beforeSettings = publishes.length;
    await publish({ upsert: [settingsEdit] });
    await expectEqualsFullBuild();
    expect(
      publishes
        .slice(beforeSettings)
        .some((summary) => summary.mode === "incremental" && (summary.batches ?? 0) > 0),
      "a settings edit, fanned out to child jobs",
    ).toBe(true);
    // The equality must come from incremental publishes, not from reconcile rebuilding everything.
    const queue = new Queue(QUEUE_NAME, { connection: redis, prefix: PREFIX });
    const renderQueue = new Queue(RENDER_QUEUE_NAME, { connection: redis, prefix: PREFIX });
    const summaries = (await queue.getJobs(["completed"], 0, 1000))
      .filter((job) => job.name === "publish")
      .map((job) => job.returnvalue);
    // A publish job returns its last publish only (ids arriving meanwhile are published in the same
    // job), so the child jobs are counted on the render queue itself.
    const childJobs = await renderQueue.getJobCountByTypes("completed");
    await queue.close();
    await renderQueue.close();
    expect(summaries.map((summary) => summary?.mode)).not.toContain("diff-build");
    expect(publishes.map((summary) => summary.mode)).not.toContain("diff-build");
    expect(childJobs, "publishes split into child jobs").toBeGreaterThan(0);
  }, 240_000);

  it("links to a page that goes, comes back, moves and goes again: a broken link becomes live again, and back", async () => {
    const keys = redisKeys(PREFIX);
    const lastPublish = async () => JSON.parse((await redis.get(keys.lastPublish)) ?? "{}");
    const html = async (uid: string) => (await store.get(`${uid}/index.html`))?.body.toString("utf8") ?? "";
    // A page the navigation and a rich-text link on another page point to.
    const target = { ...demo(PAGE_IDS[3] as string), id: "LinkTarget000000001", uid: "link-target" };
    const from = linkingTo(
      { ...demo(PAGE_IDS[0] as string), id: "LinkFrom0000000001", uid: "link-from" },
      target,
    );
    await publish({ upsert: [target] });
    await publish({ upsert: [from, navigatingTo(demo(SETTINGS), target)] });
    await expectEqualsFullBuild();
    expect(await html("link-from")).toContain('<a href="/link-target">See also</a>');

    // A content-only edit renders its own route (and the sitemap on a new day), not every route
    // whose navigation links to it.
    await publish({ upsert: [{ ...target, data: { ...target.data, meta_description: "Content only" } }] });
    await expectEqualsFullBuild();
    // `by` names the worker process that ran it (here, this one), for `pressroom status`.
    expect(await lastPublish()).toMatchObject({
      mode: "incremental",
      rendered: expect.any(Number),
      by: `${hostname()}:${process.pid}`,
    });
    expect((await lastPublish()).rendered).toBeLessThanOrEqual(2);

    await publish({ remove: [target.id] });
    await expectEqualsFullBuild();
    expect(await html("link-from")).not.toContain('href="/link-target"');
    await publish({ upsert: [target] });
    await expectEqualsFullBuild();
    expect(await html("link-from")).toContain('<a href="/link-target">See also</a>');
    await publish({ upsert: [{ ...target, uid: "link-target-moved" }] });
    await expectEqualsFullBuild();
    expect(await html("link-from")).toContain('<a href="/link-target-moved">See also</a>');
    await publish({ remove: [target.id] });
    await expectEqualsFullBuild();
    expect(await html("link-from")).not.toContain('href="/link-target');
  }, 180_000);

  it("a page hidden from search engines and listed again: its robots meta, the sitemap, its canonical override", async () => {
    const sitemap = async () => (await store.get("sitemap.xml"))?.body.toString("utf8") ?? "";
    const html = async (uid: string) => (await store.get(`${uid}/index.html`))?.body.toString("utf8") ?? "";
    const page = { ...demo(PAGE_IDS[2] as string), id: "NoindexPage0000001", uid: "hide-me" };
    const target = { ...demo(PAGE_IDS[3] as string), id: "CanonicalTarget001", uid: "canonical-target" };
    await publish({ upsert: [page, target] });
    await expectEqualsFullBuild();
    expect(await sitemap()).toContain(`${SITE_URL}/hide-me</loc>`);
    // Hidden, and canonical to another page, on the same day: the lastmod day does not move, yet
    // the sitemap must drop it (planner: `routes:page` listings re-render when `noindex` flips).
    const hidden = { ...page, data: { ...page.data, noindex: true, canonical_url: documentLink(target) } };
    await publish({ upsert: [hidden] });
    await expectEqualsFullBuild();
    expect(await sitemap()).not.toContain("/hide-me<");
    expect(await html("hide-me")).toContain('<meta name="robots" content="noindex"/>');
    expect(await html("hide-me")).toContain(`<link rel="canonical" href="${SITE_URL}/canonical-target"/>`);
    // The canonical target is renamed: the hidden page's canonical link follows it.
    await publish({ upsert: [{ ...target, uid: "canonical-target-moved" }] });
    await expectEqualsFullBuild();
    expect(await html("hide-me")).toContain(
      `<link rel="canonical" href="${SITE_URL}/canonical-target-moved"/>`,
    );
    // Indexed again, but still canonical to another page: not listed; without the override, listed again.
    await publish({ upsert: [{ ...hidden, data: { ...hidden.data, noindex: false } }] });
    await expectEqualsFullBuild();
    expect(await sitemap()).not.toContain("/hide-me<");
    await publish({ upsert: [{ ...hidden, data: { ...page.data, noindex: false } }] });
    await expectEqualsFullBuild();
    expect(await sitemap()).toContain(`${SITE_URL}/hide-me</loc>`);
    await publish({ remove: [page.id, target.id] });
    await expectEqualsFullBuild();
  }, 120_000);

  it("a page canonical to another address leaves the sitemap; canonical to itself, or its target gone, it is listed again", async () => {
    const sitemap = async () => (await store.get("sitemap.xml"))?.body.toString("utf8") ?? "";
    const listed = async () => (await sitemap()).includes(`${SITE_URL}/canonical-me</loc>`);
    const html = async (uid: string) => (await store.get(`${uid}/index.html`))?.body.toString("utf8") ?? "";
    const page = { ...demo(PAGE_IDS[2] as string), id: "CanonicalPage00001", uid: "canonical-me" };
    const target = { ...demo(PAGE_IDS[3] as string), id: "CanonicalElse00001", uid: "canonical-else" };
    await publish({ upsert: [page, target] });
    await expectEqualsFullBuild();
    expect(await listed()).toBe(true);
    // Only the canonical field changes, on the same day: the lastmod day does not move, yet the
    // sitemap must drop the page (planner: `routes:page` listings re-render when it changes).
    const toTarget = { ...page, data: { ...page.data, canonical_url: documentLink(target) } };
    await publish({ upsert: [toTarget] });
    await expectEqualsFullBuild();
    expect(await listed()).toBe(false);
    expect(await html("canonical-me")).toContain(`<link rel="canonical" href="${SITE_URL}/canonical-else"/>`);
    // The target unpublished: the override is broken, the page canonical to itself, listed again
    // (the sitemap links to the target: `url:<id>`).
    await publish({ remove: [target.id] });
    await expectEqualsFullBuild();
    expect(await listed()).toBe(true);
    await publish({ upsert: [target] });
    await expectEqualsFullBuild();
    expect(await listed()).toBe(false);
    // A web address: its own (listed), then another site's (not listed).
    const toWeb = (url: string) => ({
      ...page,
      data: { ...page.data, canonical_url: { link_type: "Web", url } },
    });
    await publish({ upsert: [toWeb(`${SITE_URL}/canonical-me`)] });
    await expectEqualsFullBuild();
    expect(await listed()).toBe(true);
    await publish({ upsert: [toWeb("https://partner.example/canonical")] });
    await expectEqualsFullBuild();
    expect(await listed()).toBe(false);
    await publish({ upsert: [page] });
    await expectEqualsFullBuild();
    expect(await listed()).toBe(true);
    await publish({ remove: [page.id, target.id] });
    await expectEqualsFullBuild();
  }, 180_000);

  it("an editor's redirect: created, its target renamed, made temporary, a page at its path, unpublished", async () => {
    const manifest = async () => await storedManifest(store);
    const target = { ...demo(PAGE_IDS[4] as string), id: "RedirectTarget0001", uid: "redirect-target" };
    const redirect: Doc = {
      ...demo(REDIRECT_IDS[0] as string),
      id: "FixedRedirect00001",
      data: { from_path: "/fixed-promo", to: documentLink(target), permanent: true },
    };
    await publish({ upsert: [target, redirect] });
    await expectEqualsFullBuild();
    expect((await manifest())?.redirects?.["/fixed-promo"]).toBe("/redirect-target");
    // It follows its target's rename (the planner knows the dependency).
    await publish({ upsert: [{ ...target, uid: "redirect-target-moved" }] });
    await expectEqualsFullBuild();
    expect((await manifest())?.redirects?.["/fixed-promo"]).toBe("/redirect-target-moved");
    await publish({ upsert: [{ ...redirect, data: { ...redirect.data, permanent: false } }] });
    await expectEqualsFullBuild();
    expect((await manifest())?.temporaryRedirects).toContain("/fixed-promo");
    // A page published at its path wins; unpublished, the redirect is back.
    const page = { ...demo(PAGE_IDS[5] as string), id: "PageAtRedirect0001", uid: "fixed-promo" };
    await publish({ upsert: [page] });
    await expectEqualsFullBuild();
    expect((await manifest())?.redirects?.["/fixed-promo"]).toBeUndefined();
    expect((await manifest())?.routes["/fixed-promo"]).toBeDefined();
    await publish({ remove: [page.id] });
    await expectEqualsFullBuild();
    expect((await manifest())?.redirects?.["/fixed-promo"]).toBe("/redirect-target-moved");
    await publish({ remove: [redirect.id, target.id] });
    await expectEqualsFullBuild();
    expect((await manifest())?.redirects?.["/fixed-promo"]).toBeUndefined();
  }, 120_000);

  it("catches a lost webhook with reconcile", async () => {
    const doc = demo("Z9nWuhEAACMAx1Cc");
    // Straight to the content service's store: no webhook at all.
    await content.store.publish({
      upsert: [{ ...doc, uid: "about-lost", data: { ...doc.data, meta_description: "never announced" } }],
    });
    await expectEqualsFullBuild();
  }, 60_000);

  it("catches a lost webhook hidden behind a delivered one with reconcile", async () => {
    // Two pages nothing links to, so publishing one re-renders nothing of the other.
    const base = demo("Z9nWuhEAACMAx1Cc");
    const [lost, announced] = ["hidden-lost", "hidden-announced"].map((uid, i) => ({
      ...base,
      id: `HiddenLost${String(i).padStart(6, "0")}`,
      uid,
    })) as [Doc, Doc];
    await publish({ upsert: [lost, announced] });
    await untilIdle();
    const marker = "Edited with its webhook lost";
    // Lost: straight to the content service's store. Then an edit whose webhook arrives: its publish
    // moves the index to the newest ref, so the refs agree and only the publication dates tell.
    await content.store.publish({ upsert: [{ ...lost, data: { ...lost.data, meta_description: marker } }] });
    await publish({ upsert: [{ ...announced, data: { ...announced.data, meta_description: "Announced" } }] });
    await untilIdle();
    // Reconcile runs every second here and acts on what two rounds saw.
    await expect
      .poll(async () => (await store.get(`${lost.uid}/index.html`))?.body.toString("utf8"), {
        timeout: 30_000,
        interval: 250,
      })
      .toContain(marker);
    await expectEqualsFullBuild();
  }, 60_000);
});

/** A link field to `to` as an editor sets it (the API fills its url, or marks it broken). */
function documentLink(to: Doc) {
  return {
    link_type: "Document",
    id: to.id,
    type: to.type,
    uid: to.uid,
    lang: "en-us",
    tags: [],
    slug: to.uid,
    isBroken: false,
  };
}

/** `from` with its first text section's body a rich-text hyperlink ("See also") to `to`. */
function linkingTo(from: Doc, to: Doc): Doc {
  const slices = (from.data.slices as { slice_type: string; primary: Record<string, unknown> }[]).map(
    (slice) =>
      slice.slice_type === "text_section"
        ? {
            ...slice,
            primary: {
              ...slice.primary,
              body: [
                {
                  type: "paragraph",
                  text: "See also",
                  spans: [{ start: 0, end: 8, type: "hyperlink", data: documentLink(to) }],
                },
              ],
            },
          }
        : slice,
  );
  return { ...from, data: { ...from.data, slices } };
}

/** `settings` with its header navigation's last item pointing to `to`. */
function navigatingTo(settings: Doc, to: Doc): Doc {
  const items = settings.data.header_navigation as { label: string; link: unknown }[];
  const header_navigation = [...items.slice(0, -1), { label: `Go to ${to.uid}`, link: documentLink(to) }];
  return { ...settings, data: { ...settings.data, header_navigation } };
}
