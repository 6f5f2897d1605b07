/**
 * A rebuild with nothing changed costs what finding that out costs: it lists every document's
 * version without its content, and reads whole only what every render shares (the frame's and the
 * shared types' documents, the redirects), whatever the site's size. Counted, not timed: on a
 * generated site of N pages and one of 4N, the same documents read whole, no route rendered (not
 * even the listings and the sitemap, which show every page: what they read is unchanged), nothing
 * written but the build's records. A change to one document renders the listings again.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PrismicDocument } from "@prismicio/client";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_IMAGES_DIR } from "#local-prismic/demo.ts";
import { generateRepository } from "#local-prismic/generate.ts";
import { createSiteStore } from "#storage";
import { website } from "#website";
import { fullBuild } from "#worker/build/full-build.ts";
import { localContentClient } from "../support/content-client.ts";
import { startLocalPrismic } from "../support/local-prismic.ts";
import { publish } from "../support/second-site-stack.ts";
import { tempDir } from "../support/temp-dir.ts";

const logger = pino({ level: "silent" });
const PRICE_LISTS = 3;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Documents the content service answered whole (a search without `fetch`), and searches made. */
function countingFetch() {
  const counts = { whole: 0, listed: 0, searches: 0 };
  const counted: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(String(input instanceof Request ? input.url : input));
    if (url.pathname.endsWith("/documents/search")) {
      counts.searches++;
      const { results } = (await response.clone().json()) as { results: unknown[] };
      if (url.searchParams.has("fetch")) counts.listed += results.length;
      else counts.whole += results.length;
    }
    return response;
  };
  return { counts, fetch: counted };
}

/** Builds a generated site of `pages` pages twice into one folder; answers what the second build cost. */
async function noOpRebuild(pages: number) {
  const repo = await tempDir("no-op-repo");
  cleanups.push(repo.remove);
  mkdirSync(join(repo.path, "documents"));
  let edited: PrismicDocument | undefined;
  for (const generated of generateRepository({ pages, priceLists: PRICE_LISTS, seed: 1 })) {
    let doc = generated;
    if (doc.type === "page" && doc.uid !== "home" && !edited) {
      // The newest publication of the repository: a rebuild can tell it unchanged only by its ref.
      doc = { ...doc, last_publication_date: "2026-11-27T23:59:59+0000" };
      edited = doc;
    }
    writeFileSync(join(repo.path, "documents", `${doc.id}.json`), JSON.stringify(doc));
  }
  cpSync(DEMO_IMAGES_DIR, join(repo.path, "images"), { recursive: true });
  const service = await startLocalPrismic({ seedDir: repo.path });
  cleanups.push(service.stop);
  const site = await tempDir("no-op-site");
  cleanups.push(site.remove);
  const store = createSiteStore({ url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
  cleanups.push(() => store.close());
  const build = async () => {
    const { counts, fetch } = countingFetch();
    const client = localContentClient(service.endpoint, {}, { fetch });
    const summary = await fullBuild({
      client,
      store,
      siteUrl: "https://www.example.com",
      logger,
      renderThreads: 1,
    });
    return { summary, counts };
  };
  const first = await build();
  const second = await build();
  // One page published anew (the content service's edit API, as an editor's publish): the next
  // build renders it and the listings (they show its date), nothing else.
  const page = edited as PrismicDocument;
  await publish(service.url, { upsert: [{ ...page, data: { ...page.data, meta_title: "Edited" } }] });
  const third = await build();
  return { first, second, third };
}

describe("a rebuild with nothing changed", () => {
  it("reads and renders as much for 4N pages as for N: no page's document, no page", async () => {
    const small = await noOpRebuild(40);
    const large = await noOpRebuild(160);
    // The first builds read every document whole; the rebuilds list them all, read none of them.
    expect(large.first.counts.whole - small.first.counts.whole).toBe(120);
    expect(small.second.counts.listed).toBe(small.first.counts.whole);
    expect(large.second.counts.listed).toBe(large.first.counts.whole);
    expect(large.second.counts.whole).toBe(small.second.counts.whole);
    // At the ref the first build read nothing was published since: only what every build reads whole
    // (the frame's singletons and the shared price lists), never a page whose links' targets are new.
    expect(small.second.counts.whole).toBe(website.frame.length + PRICE_LISTS);
    for (const { first, second } of [small, large]) {
      expect(second.summary.rendered).toBe(0);
      expect(second.summary.reused).toBe(first.summary.rendered);
      expect(second.summary.written).toBe(0);
      expect(second.summary.deleted).toBe(0);
      // It started no render thread (a first build started one, as asked).
      expect(second.summary.renderThreads).toBe(0);
      expect(first.summary.renderThreads).toBe(1);
    }
    // After one page's publish: that page and every listing, as many for 4N pages as for N.
    expect(small.third.summary.rendered).toBe(1 + website.routes.listings.length);
    expect(large.third.summary.rendered).toBe(small.third.summary.rendered);
  }, 120_000);
});
