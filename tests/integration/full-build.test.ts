import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { access, readdir } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSiteStore, type SiteStore, sha256 } from "#storage";
import { JS_BUDGET } from "#web/js-budget.ts";
import { fullBuild } from "#worker/build/full-build.ts";
import { localContentClient } from "../support/content-client.ts";
import { DEMO_REDIRECTS, DEMO_TEMPORARY_REDIRECTS } from "../support/demo-redirects.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const ABOUT = "Z9nWuhEAACMAx1Cc";
const WORKSHOPS = "Z9nWzxEAACUAx1Kk";
const logger = pino({ level: "silent" });

let service: LocalPrismic;
let site: { path: string; remove: () => Promise<void> };
let store: SiteStore;

let client: ReturnType<typeof localContentClient>;
/**
 * One client for every build, and no ref given: the build must find the newest master ref itself,
 * as `pressroom build` does (the client's cached repository would still name the previous one).
 */
const build = (options: { verify?: boolean } = {}) =>
  fullBuild({ client, store, siteUrl: "https://www.example.com", logger, ...options });
const keys = async () => {
  const all: string[] = [];
  for await (const object of store.list()) all.push(object.key);
  return all.sort();
};
const publish = async (edit: unknown) => {
  const response = await fetch(`${service.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(edit),
  });
  expect(response.status).toBe(200);
};

beforeAll(async () => {
  service = await startLocalPrismic();
  client = localContentClient(service.endpoint);
  site = await tempDir("site");
  store = createSiteStore({ url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
});
afterAll(async () => {
  await store.close();
  await service.stop();
  await site.remove();
});

describe("full build", () => {
  it("writes every route, the assets and a manifest into a folder", async () => {
    const summary = await build();
    // 7 pages and 3 price lists, the price-list index, sitemap.xml, robots.txt and the 404, 500 and
    // 503 pages.
    expect(summary.routes).toBe(16);
    const manifest = await storedManifest(store);
    // Every route, every asset and the demo's two redirects.
    expect(manifest?.redirects).toEqual(DEMO_REDIRECTS);
    expect(manifest?.temporaryRedirects).toEqual(DEMO_TEMPORARY_REDIRECTS);
    expect(summary.written).toBe(
      summary.rendered + Object.keys(manifest?.assets ?? {}).length + Object.keys(DEMO_REDIRECTS).length,
    );
    const stored = await keys();
    for (const key of [
      "index.html",
      "about/index.html",
      "price-list/index.html",
      "price-list/websites/index.html",
      "sitemap.xml",
      "robots.txt",
      "404.html",
      "500.html",
      "503.html",
    ]) {
      expect(stored).toContain(key);
      await access(join(site.path, key));
    }
    expect(stored.some((k) => /^assets\/site\.[0-9a-f]{8,}\.css$/.test(k))).toBe(true);
    expect(manifest?.ref).toBe(service.store.masterRef);
    expect(manifest?.routes["/about"]).toMatchObject({
      key: "about/index.html",
      status: 200,
      documentId: ABOUT,
    });
    // Dependencies live in the worker's index, not in the manifest every publish rewrites.
    expect(manifest?.routes["/about"]).not.toHaveProperty("dependencies");
    expect(readFileSync(join(site.path, "about/index.html"), "utf8")).toContain("<!doctype html>");
    // The JavaScript budget, counted from what the pages really reference: within it, and said.
    const { heaviest, plain, initial, overBudget, lines } = summary.javascript;
    expect(overBudget).toEqual([]);
    // Before any interaction a plain page runs the entry alone, and never React (island-wake.ts), on
    // a first visit too: the cookie notice is no island with a chunk of its own.
    expect(initial?.bytes).toBeLessThanOrEqual(JS_BUDGET.initial);
    expect(initial?.react).toBe(false);
    expect(lines.join("\n")).toMatch(
      /before any interaction \(first visit or returning visitor, no carousel or contact form\), at most \d+\.\d KB \(\/[a-z-/]*\), budget 10\.0 KB, no React/,
    );
    expect(heaviest?.bytes).toBeLessThanOrEqual(JS_BUDGET.heaviest);
    expect(plain?.bytes).toBeLessThanOrEqual(JS_BUDGET.plain);
    // Pages with a heavy island load more than the plainest, which loads at least the entry.
    expect(heaviest?.bytes).toBeGreaterThan(plain?.bytes ?? Infinity);
    expect(lines.join("\n")).toMatch(/heaviest page \d+\.\d KB \(\/[a-z-/]*\), budget 110\.0 KB/);
  });

  it("stores one file per object: no metadata file beside a page, an asset or the manifest (a permanent redirect has one)", async () => {
    // Counted, not timed: a metadata file beside each page would double a build's file work.
    const files: string[] = [];
    const walk = async (folder: string, base: string): Promise<void> => {
      for (const entry of await readdir(folder, { withFileTypes: true })) {
        if (entry.isDirectory()) await walk(join(folder, entry.name), `${base}${entry.name}/`);
        else files.push(`${base}${entry.name}`);
      }
    };
    await walk(site.path, "");
    // Only a permanent redirect's object carries metadata its key does not imply: its location.
    expect(files.filter((file) => file.startsWith(".pressroom-meta/"))).toEqual([
      ".pressroom-meta/team/index.html",
    ]);
    expect(files.filter((file) => !file.startsWith(".pressroom-meta/")).sort()).toEqual(await keys());
  });

  it("writes nothing the second time (idempotent)", async () => {
    const summary = await build();
    expect(summary).toMatchObject({ written: 0, deleted: 0 });
    expect(summary.unchanged).toBeGreaterThanOrEqual(summary.rendered);
  });

  it("rewrites only what an edit changed", async () => {
    const about = JSON.parse(
      readFileSync(`${ROOT}services/local-prismic/demo/documents/${ABOUT}.json`, "utf8"),
    );
    await publish({
      upsert: [
        { ...about, data: { ...about.data, meta_description: "A new description for the about page." } },
      ],
    });
    const summary = await build();
    // The about page itself, and the sitemap (its lastmod moved).
    expect(summary.written).toBe(2);
    expect(readFileSync(join(site.path, "about/index.html"), "utf8")).toContain(
      "A new description for the about page.",
    );
  });

  it("deletes the route of an unpublished document, and objects no route produces", async () => {
    await store.put("old-page/index.html", "stale", {
      contentType: "text/html",
      cacheControl: "no-cache",
      contentHash: sha256("stale"),
    });
    await publish({ remove: [WORKSHOPS] });
    const summary = await build();
    // Its page, the stale object, and the demo's redirect to it (/spring-workshops: its target is gone).
    expect(summary.deleted).toBe(3);
    const stored = await keys();
    expect(stored).not.toContain("price-list/workshops/index.html");
    expect(stored).not.toContain("old-page/index.html");
    expect(stored).not.toContain("spring-workshops/index.html");
    expect(readFileSync(join(site.path, "sitemap.xml"), "utf8")).not.toContain("/price-list/workshops");
  });

  it("rewrites an object removed behind its back, and with verify one changed behind its back", async () => {
    await store.delete("about/index.html");
    expect((await build()).written).toBe(1);
    await store.put("robots.txt", "tampered", {
      contentType: "text/plain",
      cacheControl: "no-cache",
      contentHash: sha256("tampered"),
    });
    // Without verify the manifest's hashes are trusted: reading every object's metadata is what verify costs.
    expect((await build()).written).toBe(0);
    const summary = await build({ verify: true });
    expect(summary.written).toBe(1);
    expect(readFileSync(join(site.path, "robots.txt"), "utf8")).toContain("Sitemap:");
  });

  it("keeps no temporary file open once it ends, whether it finished or failed", async () => {
    // The build's spilled entries, stubs and last page inputs (spill-file.ts): unlinked at once, so
    // only the process's open descriptors show them.
    const spilled = () =>
      readdirSync("/proc/self/fd").filter((fd) => {
        try {
          return /\/pressroom-[a-z-]+-\d+-[0-9a-f-]+ \(deleted\)$/.test(readlinkSync(`/proc/self/fd/${fd}`));
        } catch {
          return false; // closed between the listing and the read
        }
      }).length;
    await build(); // a site to keep pages of: the next builds read its page inputs
    const before = spilled();
    await build();
    expect(spilled()).toBe(before);
    // Failing once it has read the last build's records (a ref the content API refuses)…
    const badRef = fullBuild({
      client,
      store,
      siteUrl: "https://www.example.com",
      logger,
      ref: "no-such-ref",
    });
    await expect(badRef).rejects.toThrow();
    expect(spilled()).toBe(before);
    // …and halfway through its pages (storage refuses to write the one page that changed).
    const failing = new Proxy(store, {
      get: (target, name, receiver) =>
        name === "put"
          ? async () => {
              throw new Error("no space left on the device");
            }
          : Reflect.get(target, name, receiver),
    });
    const about = JSON.parse(
      readFileSync(`${ROOT}services/local-prismic/demo/documents/${ABOUT}.json`, "utf8"),
    );
    await publish({ upsert: [{ ...about, data: { ...about.data, meta_description: "Spilled." } }] });
    await expect(
      fullBuild({ client, store: failing, siteUrl: "https://www.example.com", logger, renderThreads: 0 }),
    ).rejects.toThrow(/no space left/);
    expect(spilled()).toBe(before);
  });

  it("a build that fails before it renders stops the render threads it started, and writes nothing", async () => {
    // The render threads start loading with the build, before it has read what they render from.
    const threads = () => readdirSync("/proc/self/task").length;
    const failing = () =>
      fullBuild({
        client,
        store,
        siteUrl: "https://www.example.com",
        logger,
        ref: "no-such-ref",
        renderThreads: 1,
      });
    await expect(failing()).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 500)); // a terminated thread leaves /proc
    const stored = await keys();
    const before = threads();
    await expect(failing()).rejects.toThrow();
    await until("the failed build's threads to leave /proc", () => threads() === before, {
      timeoutMs: 500,
      intervalMs: 20,
    });
    expect(threads()).toBe(before);
    expect(await keys()).toEqual(stored);
  });
});
