/**
 * What the site server sends an edge that keeps pages until they change. Every answer
 * names its surrogate keys; pages, redirects and the stored 404 page carry the page policy (shared
 * caches keep them, browsers revalidate); and since the edge fetches a route the moment a publish
 * purges it, the server never answers a purged route from a manifest read before the publish: a
 * path it does not know, or knows as a redirect, is looked up in a manifest read after the
 * request arrived, and a redirect object a stale manifest still calls a page answers 301.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { redirectPage } from "#manifest/redirects.ts";
import { siteApp } from "#site/app.ts";
import { createSiteStore, type SiteStore, sha256 } from "#storage";
import { putManifest } from "../support/manifest.ts";

const HTML = "text/html; charset=utf-8";
const NOT_FOUND = '<h1>This page could not be found</h1><p class="error-page__reference" hidden></p>';
let store: SiteStore;
let app: FastifyInstance;
let base: string;

async function put(key: string, body: string, options: { redirectLocation?: string } = {}) {
  await store.put(key, body, {
    contentType: HTML,
    cacheControl: CACHE_CONTROL.html,
    contentHash: sha256(body),
    ...options,
  });
}
const route = (key: string) => ({ key, hash: "x", status: 200, dependencies: [] });
async function manifest(routes: Record<string, string>, redirects?: Record<string, string>) {
  await putManifest(store, {
    ref: "REF",
    builtAt: new Date().toISOString(),
    routes: Object.fromEntries(Object.entries(routes).map(([path, key]) => [path, route(key)])),
    assets: {},
    // The demo's aliases, as a build records them (website.routes.aliases).
    aliases: { "/home": "/" },
    ...(redirects ? { redirects } : {}),
  });
}
const PAGES = {
  "/": "index.html",
  "/about": "about/index.html",
  "/faq": "faq/index.html",
  "404": "404.html",
};

beforeAll(async () => {
  store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
  await put("index.html", "<h1>Home</h1>");
  await put("about/index.html", "<h1>About</h1>");
  await put("faq/index.html", "<h1>FAQ</h1>");
  await put("404.html", NOT_FOUND);
  await manifest(PAGES);
  app = Fastify();
  // As in production: the manifest is re-read on its own once a second at most (here: a minute,
  // so that only the server's own fresh lookups can explain a fresh answer).
  await app.register(siteApp, { store, manifestRefreshMs: 60_000 });
  base = await app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await app.close();
  await store.close();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { headers, redirect: "manual" });

describe("the site server behind an edge", () => {
  it("names every answer's surrogate keys: its route (every spelling one key) and the site-wide key", async () => {
    const page = await get("/about?utm_source=newsletter");
    expect(page.headers.get("surrogate-key")).toBe("/about all");
    expect(page.headers.get("cache-control")).toBe(CACHE_CONTROL.html);
    expect(CACHE_CONTROL.html).toBe(
      "public, max-age=0, must-revalidate, s-maxage=31536000, stale-if-error=86400",
    );
    const other = await get("/about/");
    expect(other.status).toBe(301);
    expect(other.headers.get("surrogate-key")).toBe("/about all");
    expect(other.headers.get("cache-control")).toBe(CACHE_CONTROL.html);
  });

  it("answers /home (the home page's uid as a path) like every redirect: kept by the edge, purged by its keys", async () => {
    for (const path of ["/home", "/home/", "/home?utm_source=newsletter"]) {
      const moved = await get(path);
      expect(moved.status, path).toBe(301);
      expect(moved.headers.get("location"), path).toBe(path.includes("?") ? "/?utm_source=newsletter" : "/");
      // Without its keys, a copy the edge kept could outlive `pressroom purge --all`; with `/`'s, a
      // publish that makes `/` a redirect (the home page's uid renamed) purges it too.
      expect(moved.headers.get("surrogate-key"), path).toBe("/home / all");
      expect(moved.headers.get("cache-control"), path).toBe(CACHE_CONTROL.html);
    }
  });

  it("answers a missing page with the stored 404 page, kept by the edge like a page until it changes", async () => {
    const missing = await get("/careers", { accept: "text/html" });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("cache-control")).toBe(CACHE_CONTROL.html);
    // Its route's key (a publish creating /careers purges it) and the not-found page's.
    expect(missing.headers.get("surrogate-key")).toBe("/careers 404 all");
    // Not a failure and shared by everyone: served as stored, no request id.
    expect(await missing.text()).toBe(NOT_FOUND);
    expect(missing.headers.get("x-request-id")).toBeNull();
    // Anything else a 404 answers stays uncached, with its reference.
    const post = await fetch(`${base}/careers`, { method: "POST", body: "x" });
    expect(post.status).toBe(404);
    expect(post.headers.get("cache-control")).toBe("no-store");
    const json = await get("/careers", { accept: "application/json" });
    expect(json.headers.get("cache-control")).toBe("no-store");
    expect(json.headers.get("x-request-id")).toBeTruthy();
  });

  it("finds a route published after its manifest was read (a purged new page is never a cached 404)", async () => {
    expect((await get("/pricing")).status).toBe(404);
    await put("pricing/index.html", "<h1>Pricing</h1>");
    await manifest({ ...PAGES, "/pricing": "pricing/index.html" });
    const page = await get("/pricing");
    expect(page.status).toBe(200);
    expect(await page.text()).toBe("<h1>Pricing</h1>");
  });

  it("answers 301 for a redirect object its manifest still calls a page (a rename published since)", async () => {
    expect(await (await get("/faq")).text()).toBe("<h1>FAQ</h1>");
    await put("faq-v2/index.html", "<h1>FAQ</h1>");
    await put("faq/index.html", redirectPage("/faq-v2"), { redirectLocation: "/faq-v2" });
    const { "/faq": _moved, ...others } = PAGES;
    await manifest({ ...others, "/faq-v2": "faq-v2/index.html" }, { "/faq": "/faq-v2" });
    const moved = await get("/faq?utm_source=newsletter");
    expect(moved.status).toBe(301);
    expect(moved.headers.get("location")).toBe("/faq-v2?utm_source=newsletter");
    expect(moved.headers.get("surrogate-key")).toBe("/faq all");
    expect(moved.headers.get("cache-control")).toBe(CACHE_CONTROL.html);
  });

  it("serves the page again at a route a page took back, though it knew the route as a redirect", async () => {
    expect((await get("/faq")).status).toBe(301);
    await put("faq/index.html", "<h1>FAQ is back</h1>");
    await manifest({ ...PAGES, "/faq": "faq/index.html" });
    const page = await get("/faq");
    expect(page.status).toBe(200);
    expect(await page.text()).toBe("<h1>FAQ is back</h1>");
  });
});
