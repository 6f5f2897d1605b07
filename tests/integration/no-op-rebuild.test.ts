/**
 * A rebuild with nothing changed costs what finding that out costs, whatever the site's size.
 * Counted, not timed, on a generated site of N pages and one of 4N:
 * - at the ref the last build read, with storage as it left it, the rebuild lists no document: it
 *   reads only what every build reads whole (the frame's and the shared types' documents, the
 *   redirects), renders nothing, writes nothing;
 * - when it cannot trust storage (an object no build wrote is there), it lists every document's
 *   version without its content, still reads no page's document and renders no page (not even the
 *   listings and the sitemap, which show every page: what they read is unchanged), and deletes the
 *   stray object;
 * - after one page's publish it lists every version and reads that one page and the shared ones
 *   whole, and renders that page and the listings;
 * - a document as new as the last build's newest publication is read again to tell whether it was
 *   published again within that second, but the pages linking to it are not.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PrismicDocument } from "@prismicio/client";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_IMAGES_DIR } from "#local-prismic/demo.ts";
import { generateRepository } from "#local-prismic/generate.ts";
import { createSiteStore, sha256 } from "#storage";
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
  const generated = [...generateRepository({ pages, priceLists: PRICE_LISTS, seed: 1 })];
  // The pages whose links show a document: the API writes its facts into them.
  const linkingTo = (target: PrismicDocument) =>
    generated.filter(
      (doc) =>
        doc.id !== target.id &&
        !website.frame.includes(doc.type) &&
        !website.shared.includes(doc.type) &&
        JSON.stringify(doc.data).includes(`"${target.id}"`),
    );
  // The newest publications of the repository (a page other pages link to, and a price list, in the
  // same second): a rebuild can tell them unchanged only by its ref, or by reading them.
  const newestAt = (index: number) => {
    if (index < 0) throw new Error("the generated site lacks a page other pages link to, or a price list");
    const doc = {
      ...(generated[index] as PrismicDocument),
      last_publication_date: "2026-11-27T23:59:59+0000",
    };
    generated[index] = doc;
    return doc;
  };
  const page = newestAt(
    generated.findIndex((doc) => doc.type === "page" && doc.uid !== "home" && linkingTo(doc).length > 0),
  );
  const newestShared = newestAt(generated.findIndex((doc) => website.shared.includes(doc.type)));
  for (const doc of generated)
    writeFileSync(join(repo.path, "documents", `${doc.id}.json`), JSON.stringify(doc));
  // Another page, published after the edit of `page`.
  const other = generated.find((doc) => doc.type === "page" && doc.uid !== "home" && doc.id !== page.id);
  if (!other) throw new Error("the generated site has one page besides home");
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
  // An object no build wrote: the rebuild cannot keep the site as the last build left it.
  await store.put("stray/index.html", "<!doctype html><title>stray</title>", {
    contentType: "text/html; charset=utf-8",
    cacheControl: "no-store",
    contentHash: sha256("<!doctype html><title>stray</title>"),
  });
  const strayed = await build();
  // One page published anew (the content service's edit API, as an editor's publish): the next
  // build renders it and the listings (they show its date), nothing else.
  await publish(service.url, { upsert: [{ ...page, data: { ...page.data, meta_title: "Edited" } }] });
  const edited = await build();
  // Another page published: the edited page is now the newest the last build read, in the second of
  // this publication or before it; it is read again to tell, and the pages linking to it are not.
  await publish(service.url, { upsert: [{ ...other, data: { ...other.data, meta_title: "Edited" } }] });
  const later = await build();
  return {
    first,
    second,
    strayed,
    edited,
    later,
    linking: {
      page: linkingTo(page).length,
      shared: linkingTo(newestShared).length,
      // The other page, its linking pages, and the edited page (which may be one of them), read whole.
      later: new Set([other.id, page.id, ...linkingTo(other).map((doc) => doc.id)]).size,
    },
  };
}

describe("a rebuild with nothing changed", () => {
  it("reads and renders as much for 4N pages as for N: no page's document, no page", async () => {
    const small = await noOpRebuild(40);
    const large = await noOpRebuild(160);
    /** What every build reads whole: the frame's singletons and the shared price lists. */
    const shared = website.frame.length + PRICE_LISTS;
    // The first builds read every document whole.
    expect(large.first.counts.whole - small.first.counts.whole).toBe(120);
    for (const { first, second, strayed, edited, later, linking } of [small, large]) {
      // At the ref the first build read, with storage as it left it: not one document listed.
      expect(second.counts).toMatchObject({ whole: shared, listed: 0 });
      expect(second.summary).toMatchObject({ rendered: 0, written: 0, deleted: 0, renderThreads: 0 });
      expect(second.summary.reused).toBe(first.summary.rendered);
      expect(first.summary.renderThreads).toBe(1); // as asked
      // A stray object in storage: every version listed, no page read (not even the one at the
      // newest date: nothing was published since that build's ref), none rendered, the stray deleted.
      expect(strayed.counts).toMatchObject({ whole: shared, listed: first.counts.whole });
      expect(strayed.summary).toMatchObject({ rendered: 0, written: 0, deleted: 1, renderThreads: 0 });
      // After one page's publish: every version listed; that page read whole, and those whose
      // links show it (to check what the API wrote into them); it and every listing rendered.
      // Not those linking to the price list published in the same second as the page before the
      // first build: the shared documents are read whole, and found as that build read them.
      expect(linking.shared).toBeGreaterThan(0);
      expect(edited.counts).toMatchObject({ listed: first.counts.whole, whole: shared + 1 + linking.page });
      expect(edited.summary.rendered).toBe(1 + website.routes.listings.length);
      // So few pages render on the build's own thread: starting a render thread would cost more.
      expect(edited.summary.renderThreads).toBe(0);
      // After another page's publish: that page and those linking to it read whole, and the edited
      // page (the newest the last build read: its date proves nothing), but not the pages linking
      // to it, which its unchanged hash settles.
      expect(linking.page).toBeGreaterThan(0);
      expect(later.counts).toMatchObject({ listed: first.counts.whole, whole: shared + linking.later });
      expect(later.summary.rendered).toBe(1 + website.routes.listings.length);
    }
  }, 120_000);
});
