import type { PrismicDocument } from "@prismicio/client";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { redisKeys } from "#jobs/catalog.ts";
import { registry } from "#metrics/registry.ts";
import { createSiteStore } from "#storage";
import { buildSiteAssets, type SiteAssets } from "#web/assets.ts";
import { renderRouteWithClient } from "#web/render.ts";
import { routeForDocument } from "#web/routes.ts";
import { fullBuild } from "#worker/build/full-build.ts";
import { onContentNotice } from "#worker/content-notices.ts";
import { statusCommand } from "#worker/inspect.ts";
import { countJobs } from "#worker/ops/worker-ops.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { publish } from "#worker/publish/publish.ts";
import { localContentClient } from "../support/content-client.ts";
import { publishUnderEarlierModel } from "../support/earlier-model.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { demoDoc, previewFixture } from "../support/preview-fixture.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";

/**
 * Documents published before their model gained a field, through the real local
 * content service and the real content client: the settings document without its navigation
 * groups (which used to break every page, the 404 included) and the about page without its title;
 * and the services page as published before three of its fields changed type (text that is rich
 * text now, rich text that is text now), which used to fail its render. The service stores the
 * edit as sent, the site renders every route, and editors are told: the build logs each notice once
 * (and counts it), `pressroom status` lists them, preview shows them.
 */
const SETTINGS = "Z9nWsREAACUAx1Aa";
const ABOUT = "Z9nWuhEAACMAx1Cc";
const FAQ = "Z9nWwREAACMAx1Ff";
const SERVICES = "Z9nWvBEAACQAx1Dd";
const SITE_URL = "https://www.northwind.example";

let service: LocalPrismic;
let client: ReturnType<typeof localContentClient>;
let ref: string;
let assets: SiteAssets;
let documents: PrismicDocument[];

/** The demo document as the model before `fields` were added: without them (not null, not empty). */
function without(id: string, ...fields: string[]): PrismicDocument {
  const doc = demoDoc(id);
  for (const field of fields) delete (doc.data as Record<string, unknown>)[field];
  return doc;
}

beforeAll(async () => {
  service = await startLocalPrismic();
  const response = await fetch(`${service.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      upsert: [without(SETTINGS, "header_navigation", "footer_navigation"), without(ABOUT, "title")],
    }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  service = await publishUnderEarlierModel(service, [SERVICES], retypeServices);
  client = localContentClient(service.endpoint);
  ref = await client.fetchMasterRef();
  documents = (await client.get({ ref, pageSize: 100 })).results;
  assets = (await buildSiteAssets()).assets;
});
afterAll(() => service?.stop());

/** `pressroom_content_notices_total` by kind, as the worker's metrics endpoint serves the registry. */
async function noticesCounted(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const match of (await registry.metrics()).matchAll(
    /^pressroom_content_notices_total\{kind="([^"]+)"\} (\d+)$/gm,
  ))
    counts.set(match[1] as string, Number(match[2]));
  return counts;
}

/**
 * The services page as the earlier model left it: its title was Key Text (now a Title), the text
 * section's heading Key Text (now rich text), the hero's eyebrow rich text (now Key Text).
 */
function retypeServices(doc: PrismicDocument) {
  // biome-ignore lint/suspicious/noExplicitAny: reaching into the slices' fields
  const data = doc.data as any;
  data.title = "Services";
  data.slices[0].primary.eyebrow = [{ type: "paragraph", text: "What we do", spans: [] }];
  data.slices[1].primary.heading = "Design and build";
}
const RETYPED = [
  `page ${SERVICES} (services) title: has text in “title”, where the model has rich text (was the field's type changed?): shown as one heading; fill it in again and publish`,
  `page ${SERVICES} (services) slices[0].primary.eyebrow: has rich text in “slices[0].primary.eyebrow”, where the model has text (was the field's type changed?): shown as its plain text; fill it in again and publish`,
  `page ${SERVICES} (services) slices[1].primary.heading: has text in “slices[1].primary.heading”, where the model has rich text (was the field's type changed?): shown as one heading; fill it in again and publish`,
];

describe("the local content service after a model change", () => {
  it("stores and serves an edit that omits fields as it was sent: nothing back-filled", () => {
    const settings = documents.find((doc) => doc.id === SETTINGS) as PrismicDocument;
    expect(Object.keys(settings.data)).not.toContain("header_navigation");
    expect(Object.keys(settings.data)).not.toContain("footer_navigation");
    expect(settings.data.brand_name).toBe("Northwind Studio");
    const about = documents.find((doc) => doc.id === ABOUT) as PrismicDocument;
    expect(Object.keys(about.data)).not.toContain("title");
  });

  it("serves a document published before its fields changed type as it was stored", () => {
    const services = documents.find((doc) => doc.id === SERVICES) as PrismicDocument;
    expect(services.data.title).toBe("Services");
    expect(services.url).toBe("/services");
  });
});

describe("the site renders every route over them, through the real client", () => {
  const problemsIn = (html: string) =>
    [/\bundefined\b/, /\[object Object\]/, /\bNaN\b/, /\s(?:href|src)=""/].filter((p) => p.test(html));

  it("every page, price list, listing and error page: a header without navigation", async () => {
    const routes = [
      ...documents.flatMap((doc) => routeForDocument(doc) ?? []),
      "/price-list/",
      "/sitemap.xml",
      "404",
      "500",
      "503",
    ];
    expect(routes.length).toBeGreaterThan(12);
    for (const route of routes) {
      const result = await renderRouteWithClient(route, {
        client,
        ref,
        siteUrl: SITE_URL,
        assets,
        mode: "production",
      });
      expect(result.status, route).toBe(/^\d+$/.test(route) ? Number(route) : 200);
      expect(problemsIn(result.html), route).toEqual([]);
      if (!result.contentType.startsWith("text/html")) continue;
      expect(result.html, route).toContain('<header class="site-header">');
      expect(result.html, route).not.toContain('class="site-nav"');
      expect(result.html, route).not.toContain("footer-explore");
      // Production pages carry no editor notes.
      expect(result.html, route).not.toContain("For editors:");
    }
  });

  it("heads the page without a title by its UID, in the <h1> and the <title>", async () => {
    const { html } = await renderRouteWithClient("/about", {
      client,
      ref,
      siteUrl: SITE_URL,
      assets,
      mode: "production",
    });
    expect(html.match(/<h1[\s>]/g)).toHaveLength(1);
    expect(html).toContain('<h1 class="page-header__title">About</h1>');
    expect(html).toContain("<title>About · Northwind Studio</title>");
    expect(html).toContain('<meta property="og:title" content="About"/>');
  });

  it("renders the page whose fields changed type, with each value converted", async () => {
    const { status, html } = await renderRouteWithClient("/services", {
      client,
      ref,
      siteUrl: SITE_URL,
      assets,
      mode: "production",
    });
    expect(status).toBe(200);
    expect(html).toContain('<h1 class="sr-only">Services</h1>');
    expect(html).toMatch(/<h2[^>]*>Design and build<\/h2>/);
    expect(html).toMatch(/>What we do</);
    expect(html).not.toContain("For editors:");
  });
});

describe("editors are told, the way a refused uid is", () => {
  it("a build logs each notice once, counts it, and renders every route", async () => {
    const lines: { msg: string; field?: string; documentId?: string; level: number }[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const counted: string[] = [];
    const stop = onContentNotice((notice) => counted.push(`${notice.kind}:${notice.field}`));
    const dir = await tempDir("missing-fields");
    try {
      const store = createSiteStore({
        url: `file://${dir.path}`,
        s3Endpoint: undefined,
        s3Region: "us-east-1",
      });
      const summary = await fullBuild({ client, store, siteUrl: SITE_URL, logger, renderThreads: 0 });
      expect(summary.failed).toEqual([]);
      expect(summary.rendered).toBeGreaterThan(12);
      const notices = lines.filter((line) => line.field !== undefined);
      expect(notices.map((line) => `${line.documentId} ${line.field}`).sort()).toEqual(
        [
          `${SETTINGS} header_navigation`,
          `${ABOUT} title`,
          `${SERVICES} title`,
          `${SERVICES} slices[0].primary.eyebrow`,
          `${SERVICES} slices[1].primary.heading`,
        ].sort(),
      );
      expect(notices.find((line) => line.field === "title")?.msg).toBe(
        `page ${ABOUT} (about) title: has no title: visitors see “About” (its UID) as its heading`,
      );
      expect(notices.filter((line) => line.documentId === SERVICES).map((line) => line.msg)).toEqual(RETYPED);
      const kinds = [
        "fallback:header_navigation",
        "fallback:title",
        "converted:title",
        "converted:slices[0].primary.eyebrow",
        "converted:slices[1].primary.heading",
      ].sort();
      expect(counted.sort()).toEqual(kinds);

      // Built again with nothing changed (every page kept as stored): the same notices, said again.
      const said = (found: typeof lines) =>
        found.map((line) => `${line.documentId} ${line.field} ${line.msg}`).sort();
      const first = said(notices);
      lines.length = 0;
      counted.length = 0;
      const again = await fullBuild({ client, store, siteUrl: SITE_URL, logger, renderThreads: 0 });
      expect(again.rendered).toBe(0);
      expect(said(lines.filter((line) => line.field !== undefined))).toEqual(first);
      expect(counted.sort()).toEqual(kinds);
    } finally {
      stop();
      await dir.remove();
    }
  });

  it("a publish logs the notices of the documents it publishes, once, and no others", async () => {
    const prefix = `missing-fields-publish-${process.pid}-${Date.now()}`;
    const redis = new Redis({ maxRetriesPerRequest: null });
    const lines: { msg: string; field?: string; documentId?: string }[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const counted: string[] = [];
    const stop = onContentNotice((notice) => counted.push(`${notice.documentId} ${notice.field}`));
    const ctx: PublishContext = {
      client,
      store: createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" }),
      redis,
      queuePrefix: prefix,
      siteUrl: SITE_URL,
      assets,
      logger,
    };
    try {
      await diffBuild(ctx, ref);
      lines.length = 0;
      counted.length = 0;
      // The FAQ page published again without its title; settings (fetched by every publish) unchanged.
      await service.store.publish({ upsert: [without(FAQ, "title")] });
      await redis.sadd(redisKeys(prefix).pendingIds, FAQ);
      const summary = await publish(ctx);
      expect(summary.mode).toBe("incremental");
      expect(summary.failed ?? 0).toBe(0);
      expect(lines.filter((line) => line.field !== undefined).map((line) => line.msg)).toEqual([
        `page ${FAQ} (faq) title: has no title: visitors see its meta title (“FAQ”) as its heading`,
      ]);
      expect(counted).toEqual([`${FAQ} title`]);
      const page = (await ctx.store.get("faq/index.html"))?.body.toString("utf8") ?? "";
      expect(page).toContain('<h1 class="page-header__title">FAQ</h1>');
    } finally {
      stop();
      await ctx.store.close();
      await removeKeysUnder(redis, prefix);
      await redis.quit();
    }
  });

  it("a publish counts its notices in pressroom_content_notices_total{kind}", async () => {
    const prefix = `missing-fields-metric-${process.pid}-${Date.now()}`;
    const redis = new Redis({ maxRetriesPerRequest: null });
    const logger = pino({ level: "silent" });
    const ctx: PublishContext = {
      client,
      store: createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" }),
      redis,
      queuePrefix: prefix,
      siteUrl: SITE_URL,
      assets,
      logger,
    };
    // The worker's own wiring of notices to the metric (ops/worker-ops.ts), without its queues.
    const detach = countJobs(
      { workers: [], context: ctx } as unknown as Parameters<typeof countJobs>[0],
      logger,
    );
    try {
      await diffBuild(ctx, ref);
      const before = await noticesCounted();
      // The FAQ page as an earlier model left it: its second slice of a variation since removed, its
      // meta description rich text (Key Text now).
      service = await publishUnderEarlierModel(service, [FAQ], (doc) => {
        // biome-ignore lint/suspicious/noExplicitAny: reaching into the slices
        const data = doc.data as any;
        data.slices[1].variation = "accordion";
        data.meta_description = [{ type: "paragraph", text: data.meta_description, spans: [] }];
      });
      client = localContentClient(service.endpoint);
      ref = await client.fetchMasterRef();
      await redis.sadd(redisKeys(prefix).pendingIds, FAQ);
      const summary = await publish({ ...ctx, client });
      expect(summary.mode).toBe("incremental");
      expect(summary.failed ?? 0).toBe(0);
      const after = await noticesCounted();
      const raised = (kind: string) => (after.get(kind) ?? 0) - (before.get(kind) ?? 0);
      expect(raised("unknown-variation")).toBe(1);
      expect(raised("converted")).toBe(1);
      expect(raised("unknown-slice")).toBe(0);
      const page = (await ctx.store.get("faq/index.html"))?.body.toString("utf8") ?? "";
      expect(page).toContain('<meta name="description" content="Answers to the questions we hear most');
      expect(page.match(/data-slice-type="faq"/g)).toHaveLength(1);
    } finally {
      detach();
      await ctx.store.close();
      await removeKeysUnder(redis, prefix);
      await redis.quit();
    }
  });

  it("`pressroom status` lists them, read live from the content API", async () => {
    const config = loadConfig("publisher", {
      PRISMIC_ENDPOINT: service.endpoint,
      REDIS_URL: "redis://127.0.0.1:6379",
      QUEUE_PREFIX: `missing-fields-${process.pid}-${Date.now()}`,
    });
    const status = await statusCommand(config);
    // Settings, the about and services pages; the FAQ page's too once the tests above published it.
    expect(status).toMatch(
      /content notices: {5}\d+, pages render with a fallback, a converted field or without a slice/,
    );
    expect(status).toContain(
      `settings ${SETTINGS} header_navigation: has no header navigation: the header shows the brand only`,
    );
    expect(status).toContain(`page ${ABOUT} (about) title: has no title`);
    for (const line of RETYPED) expect(status).toContain(`  ${line}`);
  });

  it("preview shows the notes on the page", async () => {
    const preview = await previewFixture(service.endpoint);
    try {
      const about = await preview.app.inject("/about");
      expect(about.statusCode).toBe(200);
      expect(about.body).toContain(
        "For editors: this page has no title: visitors see “About” (its UID) as its heading.",
      );
      expect(about.body).toContain(
        "For editors: this site&#x27;s settings document has no header navigation: the header shows the brand only.",
      );
      const services = await preview.app.inject("/services");
      expect(services.statusCode).toBe(200);
      expect(services.body).toContain(
        "For editors: this page has text in “slices[1].primary.heading”, where the model has rich text (was the field&#x27;s type changed?): shown as one heading; fill it in again and publish.",
      );
    } finally {
      await preview.app.close();
    }
  });
});
