import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { redisKeys } from "#jobs/catalog.ts";
import { createSiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import { statusCommand } from "#worker/inspect.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { publish } from "#worker/publish/publish.ts";
import { localContentClient } from "../support/content-client.ts";
import { publishUnderEarlierModel } from "../support/earlier-model.ts";
import { expectEqualsFullBuild, siteObjects } from "../support/full-build-reference.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { demoDoc, previewFixture, putDraft } from "../support/preview-fixture.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";

const ABOUT = "Z9nWuhEAACMAx1Cc";
const WEBSITES = "Z9nWyREAACMAx1Ii";

const services: LocalPrismic[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.stop();
});

/**
 * Real Prismic accepts uids the site cannot route (`healthz`, 101 characters), and the local content
 * service's edit API refuses them; so the stored documents are edited on disk between two runs, as
 * if Prismic had published them.
 */
async function contentHolding(uids: Record<string, string>): Promise<LocalPrismic> {
  const first = await startLocalPrismic();
  await first.close();
  const state = JSON.parse(await readFile(join(first.dataDir, "state.json"), "utf8"));
  for (const [id, uid] of Object.entries(uids)) {
    const file = join(first.dataDir, "objects", state.documents[id]);
    const doc = JSON.parse(await readFile(file, "utf8"));
    await writeFile(file, JSON.stringify({ ...doc, uid, slugs: [uid] }));
  }
  const service = await startLocalPrismic({ dataDir: first.dataDir });
  services.push(service);
  return service;
}

describe("a document whose uid cannot be a route is visible to editors", () => {
  it("`pressroom status` lists it with the reason, in words an editor can act on", async () => {
    const long = "x".repeat(101);
    const service = await contentHolding({ [ABOUT]: "healthz", [WEBSITES]: long });
    const config = loadConfig("publisher", {
      PRISMIC_ENDPOINT: service.endpoint,
      REDIS_URL: "redis://127.0.0.1:6379",
      QUEUE_PREFIX: `refused-${process.pid}-${Date.now()}`,
    });
    const status = await statusCommand(config);
    expect(status).toContain("refused documents:   2, fix their uid in Prismic and publish again:");
    expect(status).toContain(
      `page ${ABOUT} gets no page: uid "healthz" is reserved for the site's own routes (reserved: _pressroom, api,`,
    );
    expect(status).toContain(
      `price_list ${WEBSITES} gets no page: uid "${"x".repeat(40)}…" is longer than 100 characters`,
    );
  });

  it("says none when every uid routes", async () => {
    const service = await contentHolding({ [ABOUT]: "about_us" });
    const config = loadConfig("publisher", {
      PRISMIC_ENDPOINT: service.endpoint,
      REDIS_URL: "redis://127.0.0.1:6379",
      QUEUE_PREFIX: `refused-${process.pid}-${Date.now()}`,
    });
    expect(await statusCommand(config)).toContain("refused documents:   none");
  });
});

describe("the preview of a document whose uid cannot be a route", () => {
  it("says why and how to fix it, instead of a 404", async () => {
    const service = await contentHolding({ [ABOUT]: "healthz" });
    const preview = await previewFixture(service.endpoint);
    try {
      // Any draft opens a preview session; the about page (published as "healthz") is seen at its ref.
      const token = await putDraft(service.url, {
        ...demoDoc(WEBSITES),
        data: { ...demoDoc(WEBSITES).data },
      });
      const link = await preview.app.inject(
        `/api/preview?token=${encodeURIComponent(token)}&documentId=${ABOUT}`,
      );
      expect(link.statusCode).toBe(422);
      expect(link.headers["set-cookie"]).toBeDefined();
      expect(link.body).toContain("This document has no page on the site");
      expect(link.body).toContain("uid &#34;healthz&#34; is reserved for the site&#39;s own routes");
      expect(link.body).toContain("Change the UID in the content editor");
      // A document whose uid routes still opens its page.
      const fine = await preview.app.inject(
        `/api/preview?token=${encodeURIComponent(token)}&documentId=${WEBSITES}`,
      );
      expect(fine.statusCode).toBe(302);
      expect(fine.headers.location).toBe("/price-list/websites");
    } finally {
      await preview.app.close();
    }
  });
});

describe("a uid that looks like another, or holds what no one sees", () => {
  it("is refused by the publish: no page, the old one gone, and `pressroom status` says why", async () => {
    const SITE_URL = "https://www.example.com";
    const prefix = `refused-lookalike-${process.pid}-${Date.now()}`;
    const first = await startLocalPrismic();
    const dir = await tempDir("refused-lookalike");
    const store = createSiteStore({
      url: `file://${dir.path}`,
      s3Endpoint: undefined,
      s3Region: "us-east-1",
    });
    const redis = new Redis({ maxRetriesPerRequest: null });
    let service = first;
    try {
      const ctx: PublishContext = {
        client: localContentClient(first.endpoint),
        store,
        redis,
        queuePrefix: prefix,
        siteUrl: SITE_URL,
        assets: (await buildSiteAssets()).assets,
        logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
      };
      await diffBuild(ctx, await ctx.client.fetchMasterRef());
      expect(await store.head("about/index.html")).toBeDefined();

      // Prismic accepts both: "about" with a Cyrillic а, and a price list's uid ending in a Hangul filler.
      const lookalike = "\u0430bout";
      const invisible = "websites\u3164";
      service = await publishUnderEarlierModel(first, [ABOUT, WEBSITES], (doc) => {
        doc.uid = doc.id === ABOUT ? lookalike : invisible;
        doc.slugs = [doc.uid];
      });
      services.push(service);
      ctx.client = localContentClient(service.endpoint);
      await redis.sadd(redisKeys(prefix).pendingIds, ABOUT, WEBSITES);
      expect((await publish(ctx)).mode).toBe("incremental");

      const keys = [...(await siteObjects(store)).keys()];
      expect(keys.filter((key) => key.includes(lookalike) || key.includes(invisible))).toEqual([]);
      expect(keys).not.toContain("about/index.html");
      expect(keys).not.toContain("price-list/websites/index.html");
      const routes = Object.keys((await storedManifest(store))?.routes ?? {});
      expect(routes.filter((route) => route.includes("bout") || route.includes("websites"))).toEqual([]);
      await expectEqualsFullBuild(store, service.endpoint, service.store.masterRef, SITE_URL);

      const status = await statusCommand(
        loadConfig("publisher", {
          PRISMIC_ENDPOINT: service.endpoint,
          REDIS_URL: "redis://127.0.0.1:6379",
          QUEUE_PREFIX: prefix,
        }),
      );
      expect(status).toContain("refused documents:   2, fix their uid in Prismic and publish again:");
      expect(status).toContain(
        `page ${ABOUT} gets no page: uid "${lookalike}" mixes Latin letters with Cyrillic ones (\u0430), which can look the same: write it in one script`,
      );
      expect(status).toContain(
        `price_list ${WEBSITES} gets no page: uid "${invisible}" holds an invisible character (U+3164)`,
      );
    } finally {
      await removeKeysUnder(redis, prefix);
      await redis.quit();
      await store.close();
      await dir.remove();
    }
  }, 120_000);
});
