/**
 * A build keeps a stored page without rendering it when what the page is rendered from is unchanged
 * (worker/src/build/render-inputs.ts, page-inputs.ts). The danger of any such shortcut is a stale
 * page, so the main test is randomized: seeded edits of every kind through the real local content
 * service (content, renames, unpublish and republish, settings, price lists, links between pages),
 * a build over the same folder after every few, and each time the folder must equal a fresh full
 * build byte for byte while pages were reused. `REUSE_SEED` changes the run.
 */
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mulberry32 } from "#local-prismic/generate.ts";
import { createSiteStore, type SiteStore, sha256 } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import { website } from "#website";
import { fullBuild } from "#worker/build/full-build.ts";
import { PAGE_INPUTS_KEY } from "#worker/build/page-inputs.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { DependencyIndex } from "#worker/publish/dependency-index.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { localContentClient } from "../support/content-client.ts";
import { expectEqualsFullBuild } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { runPressroom } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO = `${ROOT}services/local-prismic/demo/documents/`;
const SITE_URL = "https://www.example.com";
const SEED = Number(process.env.REUSE_SEED ?? 20261125);
const logger = pino({ level: "silent" });

type Doc = { id: string; uid: string | null; type: string; data: Record<string, unknown> };
const demo = (id: string) => JSON.parse(readFileSync(`${DEMO}${id}.json`, "utf8")) as Doc;
const SETTINGS = "Z9nWsREAACUAx1Aa";
const ABOUT = "Z9nWuhEAACMAx1Cc";
const PAGES = ["Z9nWuhEAACMAx1Cc", "Z9nWvBEAACQAx1Dd", "Z9nWwREAACMAx1Ff", "Z9nWxBEAACQAx1Gg"];
const PRICE_LISTS = ["Z9nWyREAACMAx1Ii", "Z9nWzBEAACQAx1Jj", "Z9nWzxEAACUAx1Kk"];
/** The demo's `/team` redirect document: a template for new ones. */
const REDIRECT = "Z9nX0REAACMAx1Ll";
/** The demo's seven pages. */
const PAGE_COUNT = 7;
/** Listings (price-list index, sitemap, robots.txt, error pages): they show every page's stub. */
const LISTINGS = website.routes.listings.length;
/** Every route: the pages, the price lists and the listings. */
const ROUTES = PAGE_COUNT + PRICE_LISTS.length + LISTINGS;

let service: LocalPrismic;
let site: { path: string; remove: () => Promise<void> };
let store: SiteStore;
let client: ReturnType<typeof localContentClient>;

const build = (options: { siteUrl?: string } = {}) =>
  fullBuild({ client, store, siteUrl: options.siteUrl ?? SITE_URL, logger, renderThreads: 1 });
const publish = async (edit: { upsert?: unknown[]; remove?: string[] }) => {
  const response = await fetch(`${service.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(edit),
  });
  expect(response.status, await response.clone().text()).toBe(200);
};
const current = async (id: string) =>
  (await client.getByID(id, { ref: await client.fetchMasterRef() })) as Doc;
const titled = (doc: Doc, text: string): Doc => ({
  ...doc,
  data: { ...doc.data, title: [{ type: "heading1", text, spans: [] }], meta_title: text },
});
const equalsFullBuild = async () =>
  expectEqualsFullBuild(store, service.endpoint, await client.fetchMasterRef(), SITE_URL);

beforeAll(async () => {
  service = await startLocalPrismic();
  first = service;
  client = localContentClient(service.endpoint);
  site = await tempDir("reuse");
  store = createSiteStore({ url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
});
let first: LocalPrismic;
afterAll(async () => {
  await store.close();
  await first.stop();
  await site.remove();
});

describe("a build reuses a page whose inputs are unchanged", () => {
  it("renders every page once, then none while nothing changed", async () => {
    const first = await build();
    expect(first).toMatchObject({ reused: 0 });
    const second = await build();
    // The listings and the price lists too: what they read is unchanged.
    expect(second).toMatchObject({ routes: ROUTES, reused: ROUTES, written: 0, deleted: 0 });
    expect(second.rendered).toBe(0);
    // The JavaScript budget still counts the reused pages (the heaviest one among them).
    expect(second.javascript.heaviest).toEqual(first.javascript.heaviest);
    await equalsFullBuild();
  });

  it("`pressroom build`, the operators' command, reuses them too", async () => {
    // It builds through buildSite (for what the edge must purge), which reuses nothing unless told.
    const folder = await tempDir("reuse-cli");
    try {
      const run = async () => {
        const { code, output } = await runPressroom(["build"], {
          LOG_LEVEL: "silent",
          PRISMIC_REPOSITORY: "demo",
          PRISMIC_ENDPOINT: service.endpoint,
          STORAGE_URL: `file://${folder.path}`,
          SITE_URL,
          RENDER_THREADS: "1",
        });
        expect(code, output).toBe(0);
        return output;
      };
      expect(await run()).toMatch(/, 0 reused,/);
      expect(await run()).toMatch(new RegExp(`, ${ROUTES} reused, 0 written,`));
    } finally {
      await folder.remove();
    }
  }, 60_000);

  it("renders only the page whose content changed", async () => {
    await publish({ upsert: [titled(await current(ABOUT), "About the studio, reworded")] });
    const summary = await build();
    // The listings render again: the page's stub has its new publication date.
    expect(summary.reused).toBe(ROUTES - 1 - LISTINGS);
    await equalsFullBuild();
  });

  it("renders pages whose stored object is gone, or everything when the site URL (code) changed", async () => {
    await store.delete("about/index.html");
    expect((await build()).reused).toBe(ROUTES - 1);
    expect((await build({ siteUrl: "https://other.example.com" })).reused).toBe(0);
    expect((await build()).reused).toBe(0); // the URL changed back: rendered again, as everything
    await equalsFullBuild();
  });

  it("renders everything when the page-inputs file is unreadable", async () => {
    await store.put(PAGE_INPUTS_KEY, "{not json", {
      contentType: "application/json",
      cacheControl: "no-store",
      contentHash: sha256("{not json"),
    });
    expect((await build()).reused).toBe(0);
    expect((await build()).reused).toBe(ROUTES);
  });

  it("never keeps a page at a path an editor's redirect took, nor the redirect where the page came back", async () => {
    const services = demo(PAGES[1] as string); // /services
    const redirect = {
      ...demo(REDIRECT),
      id: "ReuseRedirect00001",
      data: {
        from_path: "/services",
        to: { link_type: "Document", id: "Z9nWvxEAACUAx1Ee", type: "page", uid: "pricing", lang: "en-us" },
        permanent: true,
      },
    };
    // Published while the page is there: the page wins, and is still reused (as every route: no
    // page shows a redirect).
    await publish({ upsert: [redirect] });
    expect((await build()).reused).toBe(ROUTES);
    expect((await store.head("services/index.html"))?.redirectLocation).toBeUndefined();
    await equalsFullBuild();
    // The page goes (every page's navigation link to it breaks: all render): its path is the
    // redirect's object, not the page the inputs file remembers.
    await publish({ remove: [services.id] });
    await build();
    expect((await store.head("services/index.html"))?.redirectLocation).toBe("/pricing");
    await equalsFullBuild();
    // It comes back as it was: rendered (no inputs were kept for a redirect), written over it.
    await publish({ upsert: [services] });
    await build();
    expect((await store.head("services/index.html"))?.redirectLocation).toBeUndefined();
    expect((await store.get("services/index.html"))?.body.toString()).toContain("<main");
    await equalsFullBuild();
    expect((await build()).reused).toBe(ROUTES);
    await publish({ remove: [redirect.id] });
  }, 60_000);

  it(`matches a fresh full build after seeded random edits (REUSE_SEED=${SEED})`, async () => {
    const random = mulberry32(SEED);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
    const removed = new Set<string>();
    const steps: string[] = [];
    try {
      for (let step = 0; step < 16; step++) {
        const kind = pick(["content", "rename", "unpublish", "settings", "price", "link"] as const);
        const id = pick(PAGES);
        steps.push(`${kind} ${id}`);
        if (removed.has(id) || kind === "unpublish") {
          // A removed page comes back as the demo had it; a live one goes.
          if (removed.delete(id)) await publish({ upsert: [demo(id)] });
          else {
            removed.add(id);
            await publish({ remove: [id] });
          }
        } else if (kind === "content") {
          await publish({ upsert: [titled(await current(id), `Title ${step}`)] });
        } else if (kind === "rename") {
          await publish({ upsert: [{ ...(await current(id)), uid: `${demo(id).uid}-${step}` }] });
        } else if (kind === "settings") {
          const settings = await current(SETTINGS);
          await publish({
            upsert: [{ ...settings, data: { ...settings.data, brand_name: `Studio ${step}` } }],
          });
        } else if (kind === "price") {
          const list = await current(pick(PRICE_LISTS));
          await publish({ upsert: [{ ...list, data: { ...list.data, description: [] } }] });
        } else {
          // A rich-text link from one page to another: its url follows the target's renames.
          const target = pick(PAGES.filter((other) => other !== id));
          const doc = await current(id);
          const text = `See ${target}`;
          const link = { id: target, type: "page", link_type: "Document" };
          const block = {
            type: "paragraph",
            text,
            spans: [{ start: 0, end: text.length, type: "hyperlink", data: link }],
          };
          const slice = {
            id: `text_section$link-${step}`,
            slice_type: "text_section",
            slice_label: null,
            variation: "default",
            version: "initial",
            primary: { heading: [], body: [block], embed: {} },
            items: [],
          };
          const slices = (doc.data.slices as unknown[] | undefined) ?? [];
          await publish({ upsert: [{ ...doc, data: { ...doc.data, slices: [...slices, slice] } }] });
        }
        if (step % 2 === 1) {
          await build();
          await equalsFullBuild();
        }
      }
      // Last, one page's content alone: the shortcut is taken whatever the seed drew (a round
      // holding a settings or price list change renders every page, and a test of reuse that never
      // reuses proves nothing).
      const id = PAGES[0] as string;
      if (removed.delete(id)) {
        await publish({ upsert: [demo(id)] });
        await build();
      }
      steps.push(`content ${id}`);
      await publish({ upsert: [titled(await current(id), "Title last")] });
      expect((await build()).reused).toBeGreaterThan(0);
      await equalsFullBuild();
    } catch (error) {
      throw new Error(`REUSE_SEED=${SEED} failed after: ${steps.join(", ")}`, { cause: error });
    }
  }, 120_000);
});

describe("the worker's diff build (reconcile, a lost index) reuses pages too", () => {
  const PREFIX = `test-build-reuse-${process.pid}-${Date.now()}`;
  let redis: Redis;
  let ctx: PublishContext;
  let index: DependencyIndex;
  // A content service of its own: the describe above leaves its pages edited, renamed and removed.
  let own: LocalPrismic;
  const allRoutes = async () => index.routes(await index.routeNames());

  beforeAll(async () => {
    own = await startLocalPrismic();
    service = own;
    client = localContentClient(own.endpoint);
    redis = new Redis({ maxRetriesPerRequest: null });
    index = new DependencyIndex(redis, PREFIX);
    ctx = {
      client,
      store: createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" }),
      redis,
      queuePrefix: PREFIX,
      siteUrl: SITE_URL,
      assets: (await buildSiteAssets()).assets,
      logger,
      renderThreads: 1,
    };
  });
  afterAll(async () => {
    await removeKeysUnder(redis, PREFIX);
    await redis.quit();
    await own.stop();
  });

  it("keeps each reused route's dependencies in the index, as a render would record them", async () => {
    expect(await diffBuild(ctx, await client.fetchMasterRef())).toMatchObject({ reused: 0 });
    const recorded = await allRoutes();
    expect(await diffBuild(ctx, await client.fetchMasterRef())).toMatchObject({
      reused: ROUTES,
      written: 0,
    });
    expect(await allRoutes()).toEqual(recorded);
  });

  it("renders the page a lost webhook changed, records its new dependencies, and equals a full build", async () => {
    const about = await current(ABOUT);
    const target = PAGES.find((id) => id !== ABOUT) as string;
    const text = "A link the index must learn";
    const link = { id: target, type: "page", link_type: "Document" };
    const slice = {
      id: "text_section$index-learns",
      slice_type: "text_section",
      slice_label: null,
      variation: "default",
      version: "initial",
      primary: {
        heading: [],
        body: [
          { type: "paragraph", text, spans: [{ start: 0, end: text.length, type: "hyperlink", data: link }] },
        ],
        embed: {},
      },
      items: [],
    };
    await publish({ upsert: [{ ...about, data: { ...about.data, slices: [slice] } }] });
    expect(await diffBuild(ctx, await client.fetchMasterRef())).toMatchObject({
      reused: ROUTES - 1 - LISTINGS,
    });
    const entry = (await index.routes(["/about"])).get("/about");
    expect(entry?.dependencies).toContain(`url:${target}`);
    await expectEqualsFullBuild(ctx.store, service.endpoint, await client.fetchMasterRef(), SITE_URL);
  });

  it("reuses nothing when the index is of another version (its dependencies may mean something else)", async () => {
    await redis.hset(`${PREFIX}:index:meta`, "version", "3");
    expect(await diffBuild(ctx, await client.fetchMasterRef())).toMatchObject({ reused: 0, written: 0 });
  });
});
