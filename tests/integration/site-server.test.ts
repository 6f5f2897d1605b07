import { brotliDecompressSync, gunzipSync } from "node:zlib";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { siteApp } from "#site/app.ts";
import { createSiteStore, type SiteStore, sha256 } from "#storage";
import { putManifest, storedManifest } from "../support/manifest.ts";

const HTML = "text/html; charset=utf-8";
let store: SiteStore;
let app: FastifyInstance;
let base: string;

async function put(key: string, body: string, contentType = HTML, cacheControl: string = CACHE_CONTROL.html) {
  await store.put(key, body, { contentType, cacheControl, contentHash: sha256(body) });
}

beforeAll(async () => {
  store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
  await put("index.html", "<h1>Home</h1>");
  await put("about/index.html", "<h1>About</h1>");
  await put("price-list/index.html", "<h1>Price lists</h1>");
  await put("price-list/websites/index.html", "<h1>Websites</h1>");
  await put("404.html", "<h1>This page could not be found</h1>");
  await put("assets/site.0123abcd.css", "body{}", "text/css; charset=utf-8", CACHE_CONTROL.immutable);
  await put("sitemap.xml", "<urlset/>", "application/xml; charset=utf-8");
  const route = (key: string) => ({ key, hash: "x", status: 200, dependencies: [] });
  await putManifest(store, {
    ref: "REF",
    builtAt: new Date().toISOString(),
    routes: {
      "/": route("index.html"),
      "/about": route("about/index.html"),
      "/price-list/": route("price-list/index.html"),
      "/price-list/websites": route("price-list/websites/index.html"),
      "/sitemap.xml": route("sitemap.xml"),
      "404": { ...route("404.html"), status: 404 },
    },
    assets: {},
    // The demo's aliases, as a build records them (website.routes.aliases).
    aliases: { "/home": "/" },
  });
  app = Fastify();
  await app.register(siteApp, { store, manifestRefreshMs: 0 });
  base = await app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await app.close();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { headers, redirect: "manual" });

describe("site server", () => {
  it("serves / from index.html and a page from <uid>/index.html, with content type and revalidating cache", async () => {
    const home = await get("/");
    expect(home.status).toBe(200);
    expect(home.headers.get("content-type")).toBe(HTML);
    expect(home.headers.get("cache-control")).toBe(CACHE_CONTROL.html);
    expect(await home.text()).toBe("<h1>Home</h1>");
    expect(await (await get("/about")).text()).toBe("<h1>About</h1>");
    expect(await (await get("/price-list/websites")).text()).toBe("<h1>Websites</h1>");
  });

  it("redirects the other spelling of a route to its canonical one, keeping the query", async () => {
    const slash = await get("/about/?utm_source=x");
    expect(slash.status).toBe(301);
    expect(slash.headers.get("location")).toBe("/about?utm_source=x");
    const index = await get("/price-list");
    expect(index.status).toBe(301);
    expect(index.headers.get("location")).toBe("/price-list/");
    expect(await (await get("/price-list/")).text()).toBe("<h1>Price lists</h1>");
  });

  it("answers /home (the home page's uid as a path) with 301 to /, keeping the query", async () => {
    for (const [path, location] of [
      ["/home", "/"],
      ["/home/", "/"],
      ["/home?utm_source=x", "/?utm_source=x"],
    ]) {
      const response = await get(path as string);
      expect(response.status, path).toBe(301);
      expect(response.headers.get("location"), path).toBe(location);
    }
    expect((await get("/homes")).status).toBe(404);
  });

  it("answers ETag revalidation with 304", async () => {
    const first = await get("/about");
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    const again = await get("/about", { "if-none-match": etag as string });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect((await get("/about", { "if-none-match": '"other"' })).status).toBe(200);
  });

  it("compresses text for clients that accept it (brotli, else gzip), once per object and encoding", async () => {
    const page = `export const slides=[${'"We design and build marketing websites",'.repeat(200)}];`;
    const JS = "text/javascript; charset=utf-8";
    await put("assets/js/chunk.ABCD1234.js", page, JS, CACHE_CONTROL.immutable);
    await put("assets/logo.0123abcd.png", "\x89PNG".padEnd(4096, "x"), "image/png", CACHE_CONTROL.immutable);
    const request = (url: string, headers: Record<string, string>) =>
      app.inject({ method: "GET", url, headers });

    const br = await request("/assets/js/chunk.ABCD1234.js", { "accept-encoding": "gzip, deflate, br" });
    expect(br.statusCode).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("accept-encoding");
    expect(brotliDecompressSync(br.rawPayload).toString("utf8")).toBe(page);
    expect(br.rawPayload.length).toBeLessThan(page.length / 10);
    // The same content in another encoding: the weak form of the object's ETag, which revalidates.
    const etag = br.headers.etag as string;
    expect(etag).toMatch(/^W\/"/);
    expect(
      (await request("/assets/js/chunk.ABCD1234.js", { "accept-encoding": "br", "if-none-match": etag }))
        .statusCode,
    ).toBe(304);

    const gz = await request("/assets/js/chunk.ABCD1234.js", { "accept-encoding": "gzip;q=1, br;q=0" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.rawPayload).toString("utf8")).toBe(page);

    const identity = await request("/assets/js/chunk.ABCD1234.js", {});
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(identity.headers.etag).toBe(etag.slice(2));
    expect(identity.payload).toBe(page);
    // Images are compressed already; tiny bodies are not worth it.
    const png = await request("/assets/logo.0123abcd.png", { "accept-encoding": "br" });
    expect(png.headers["content-encoding"]).toBeUndefined();
    expect(png.headers.vary).toBeUndefined();
    expect(
      (await request("/about", { "accept-encoding": "br" })).headers["content-encoding"],
    ).toBeUndefined();
  });

  it("serves hashed assets as immutable and XML with its type", async () => {
    const css = await get("/assets/site.0123abcd.css");
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(css.headers.get("cache-control")).toBe(CACHE_CONTROL.immutable);
    expect((await get("/sitemap.xml")).headers.get("content-type")).toBe("application/xml; charset=utf-8");
  });

  it("answers anything missing with 404.html and status 404", async () => {
    for (const path of [
      "/nope",
      "/assets/missing.css",
      "/about/team",
      "/%2e%2e/etc/passwd",
      "/..%2f..%2fetc",
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).toContain("This page could not be found");
    }
  });

  it("never serves the build's metadata", async () => {
    expect((await get("/.pressroom/manifest.json")).status).toBe(404);
  });

  it("sends security headers on every answer", async () => {
    for (const path of ["/", "/nope", "/assets/site.0123abcd.css"]) {
      const response = await get(path);
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("content-security-policy"), path).toContain("default-src 'self'");
      expect(response.headers.get("referrer-policy"), path).toBe("strict-origin-when-cross-origin");
    }
  });

  it("answers HEAD without a body, and reports health", async () => {
    const head = await fetch(`${base}/about`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const health = await get("/_pressroom/healthz");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await get("/_pressroom/readyz");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ok", checks: { storage: "ok" } });
    // The old path is a page name like any other now: the site's 404.
    expect((await get("/healthz")).status).toBe(404);
  });

  it("sees a new build's routes without a restart", async () => {
    await put("careers/index.html", "<h1>Careers</h1>");
    const manifest = await storedManifest(store);
    if (!manifest) throw new Error("no manifest");
    manifest.routes["/careers"] = { key: "careers/index.html", hash: "y", status: 200 };
    await putManifest(store, manifest);
    expect(await (await get("/careers")).text()).toBe("<h1>Careers</h1>");
  });
});
