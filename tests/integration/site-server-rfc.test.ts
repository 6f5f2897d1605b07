import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { type RunningSite, startSite } from "#site/server.ts";
import { createSiteStore, type SiteStore, sha256 } from "#storage";
import { putManifest } from "../support/manifest.ts";
import { tempDir } from "../support/temp-dir.ts";

/**
 * HTTP as RFC 9110 says, against the real site server (startSite) over a site folder: conditional
 * requests by date, the case of an address, and storage keys asked for as addresses.
 */
const HTML = "text/html; charset=utf-8";
const NOT_FOUND = "<h1>This page could not be found</h1>";

let dir: Awaited<ReturnType<typeof tempDir>>;
let site: RunningSite;

const storeAt = (path: string) =>
  createSiteStore({ url: `file://${path}`, s3Endpoint: undefined, s3Region: "us-east-1" });

async function put(
  store: SiteStore,
  key: string,
  body: string,
  contentType = HTML,
  cacheControl: string = CACHE_CONTROL.html,
) {
  await store.put(key, body, { contentType, cacheControl, contentHash: sha256(body) });
}

async function start(): Promise<RunningSite> {
  const config = loadConfig("site", {
    PORT: "0",
    HOST: "127.0.0.1",
    OPS_PORT: "off",
    STORAGE_URL: `file://${dir.path}`,
    REDIS_URL: "redis://127.0.0.1:6379",
    QUEUE_PREFIX: `site-rfc-${process.pid}-${Date.now()}`,
  });
  return startSite(config, pino({ level: "silent" }), storeAt(dir.path));
}

beforeAll(async () => {
  dir = await tempDir("site-rfc");
  const store = storeAt(dir.path);
  await put(store, "index.html", "<h1>Home</h1>");
  await put(store, "about/index.html", "<h1>About</h1>");
  await put(store, "price-list/index.html", "<h1>Price lists</h1>");
  await put(store, "price-list/websites/index.html", "<h1>Websites</h1>");
  await put(store, "über-uns/index.html", "<h1>Über uns</h1>");
  await put(store, "会社/index.html", "<h1>会社</h1>");
  await put(store, "404.html", NOT_FOUND);
  await put(store, "500.html", "<h1>Something went wrong</h1>");
  await put(store, "503.html", "<h1>Briefly unavailable</h1>");
  await put(store, "assets/site.0123abcd.css", "body{}", "text/css; charset=utf-8", CACHE_CONTROL.immutable);
  await put(store, "sitemap.xml", "<urlset/>", "application/xml; charset=utf-8");
  const route = (key: string, status = 200) => ({ key, hash: "x", status, dependencies: [] });
  await putManifest(store, {
    ref: "REF",
    builtAt: new Date().toISOString(),
    routes: {
      "/": route("index.html"),
      "/about": route("about/index.html"),
      "/price-list/": route("price-list/index.html"),
      "/price-list/websites": route("price-list/websites/index.html"),
      "/%C3%BCber-uns": route("über-uns/index.html"),
      "/%E4%BC%9A%E7%A4%BE": route("会社/index.html"),
      "/sitemap.xml": route("sitemap.xml"),
      "404": route("404.html", 404),
      "500": route("500.html", 500),
      "503": route("503.html", 503),
    },
    redirects: { "/old-promo": "/about", "/summer": "/price-list/" },
    temporaryRedirects: ["/summer"],
    assets: {},
  });
  await store.close();
  site = await start();
}, 30_000);
afterAll(async () => {
  await site?.close();
  await dir?.remove();
});

const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  fetch(`${site.url}${path}`, { method, headers, redirect: "manual" });

/** The HTTP-date `seconds` away from `date` (an HTTP-date). */
const shifted = (date: string, seconds: number) => new Date(Date.parse(date) + seconds * 1000).toUTCString();

describe("If-Modified-Since (RFC 9110 §13.1.3), evaluated when there is no If-None-Match", () => {
  it("answers 304, no body, with the page's validators and cache policy, when the page is not newer", async () => {
    const first = await get("/about");
    const lastModified = first.headers.get("last-modified") as string;
    expect(lastModified).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    for (const since of [lastModified, shifted(lastModified, 1), shifted(lastModified, 86_400)]) {
      const again = await get("/about", { "if-modified-since": since });
      expect(again.status, since).toBe(304);
      expect(await again.text()).toBe("");
      expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
      expect(again.headers.get("last-modified")).toBe(lastModified);
      expect(again.headers.get("cache-control")).toBe(CACHE_CONTROL.html);
    }
    const head = await get("/about", { "if-modified-since": lastModified }, "HEAD");
    expect(head.status).toBe(304);
  });

  it("takes the three HTTP-date formats", async () => {
    const lastModified = (await get("/about")).headers.get("last-modified") as string;
    const date = new Date(Date.parse(lastModified) + 1000);
    const [weekday, , month, , time] = date.toUTCString().split(" ");
    const day = String(date.getUTCDate()).padStart(2, "0");
    const longDay = date.toLocaleDateString("en-US", { weekday: "long", timeZone: "UTC" });
    const rfc850 = `${longDay}, ${day}-${month}-${String(date.getUTCFullYear()).slice(2)} ${time} GMT`;
    const asctime = `${weekday?.slice(0, 3)} ${month} ${String(date.getUTCDate()).padStart(2, " ")} ${time} ${date.getUTCFullYear()}`;
    for (const since of [rfc850, asctime])
      expect((await get("/about", { "if-modified-since": since })).status, since).toBe(304);
  });

  it("answers 200 with the page when it is newer, the date is not an HTTP-date, or If-None-Match differs", async () => {
    const lastModified = (await get("/about")).headers.get("last-modified") as string;
    for (const headers of <Record<string, string>[]>[
      { "if-modified-since": shifted(lastModified, -1) },
      { "if-modified-since": "yesterday" },
      { "if-modified-since": `${lastModified}, ${lastModified}` },
      { "if-modified-since": lastModified, "if-none-match": '"another"' },
    ]) {
      const response = await get("/about", headers);
      expect(response.status, JSON.stringify(headers)).toBe(200);
      expect(await response.text()).toBe("<h1>About</h1>");
    }
  });

  it("works for assets and the sitemap too", async () => {
    for (const path of ["/assets/site.0123abcd.css", "/sitemap.xml", "/"]) {
      const lastModified = (await get(path)).headers.get("last-modified") as string;
      expect((await get(path, { "if-modified-since": lastModified })).status, path).toBe(304);
    }
  });

  it("keeps Last-Modified across a restart: the date storage keeps, not the server's", async () => {
    const before = (await get("/about")).headers.get("last-modified") as string;
    await site.close();
    site = await start();
    expect((await get("/about")).headers.get("last-modified")).toBe(before);
    expect((await get("/about", { "if-modified-since": before })).status).toBe(304);
  });
});

describe("an address in another case: 301 to the route as it is stored (lower case)", () => {
  it.each([
    ["/ABOUT", "/about", 301, "/about"],
    ["/About?utm_source=x&b=1", "/about?utm_source=x&b=1", 301, "/about"],
    ["/ABOUT/", "/about", 301, "/about"],
    ["/PRICE-LIST", "/price-list/", 301, "/price-list"],
    ["/Price-List/", "/price-list/", 301, "/price-list"],
    ["/Price-List/Websites", "/price-list/websites", 301, "/price-list/websites"],
    ["/%C3%9CBER-UNS", "/%C3%BCber-uns", 301, "/%C3%BCber-uns"],
    // An editor's redirect in another case goes straight to its target, with its status.
    ["/OLD-PROMO", "/about", 301, "/old-promo"],
    ["/Summer?x=1", "/price-list/?x=1", 302, "/summer"],
  ])("%s → %s", async (path, location, status, key) => {
    const response = await get(path);
    expect(response.status).toBe(status);
    expect(response.headers.get("location")).toBe(location);
    // The edge keeps it under the route's key: a publish that changes the route purges it.
    expect(response.headers.get("surrogate-key")?.split(" ")).toContain(key);
  });

  it("a route outside ASCII, in its other spelling, goes to its percent-encoded address", async () => {
    for (const [path, location] of [
      ["/%C3%BCber-uns/", "/%C3%BCber-uns"],
      ["/%E4%BC%9A%E7%A4%BE/?x=1", "/%E4%BC%9A%E7%A4%BE?x=1"],
      ["/%E4%BC%9A%E7%A4%BE/index.html", "/%E4%BC%9A%E7%A4%BE"],
    ]) {
      const response = await get(path as string);
      expect(response.status, path).toBe(301);
      expect(response.headers.get("location"), path).toBe(location);
    }
  });

  it("a path that differs only in case from no route is still the 404 page; the routes themselves are unchanged", async () => {
    for (const path of ["/NOPE", "/About-Us", "/PRICE-LIST/NOPE"]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(await response.text()).toBe(NOT_FOUND);
    }
    expect(await (await get("/about")).text()).toBe("<h1>About</h1>");
    expect((await get("/%C3%BCber-uns")).status).toBe(200);
  });
});

describe("storage keys are not addresses", () => {
  it.each([
    ["/index.html", "/"],
    ["/about/index.html", "/about"],
    ["/about/index.html?utm_source=x", "/about?utm_source=x"],
    ["/price-list/index.html", "/price-list/"],
    ["/price-list/websites/index.html", "/price-list/websites"],
    ["/%C3%BCber-uns/index.html", "/%C3%BCber-uns"],
    ["/old-promo/index.html", "/about"],
  ])("%s → 301 %s (the page at its one address)", async (path, location) => {
    const response = await get(path);
    expect(response.status).toBe(301);
    expect(response.headers.get("location")).toBe(location);
  });

  it.each(["/404.html", "/500.html", "/503.html", "/nope/index.html", "/about/INDEX.HTML", "/about.html"])(
    "%s → the 404 page",
    async (path) => {
      const response = await get(path);
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toBe(HTML);
      expect(await response.text()).toBe(NOT_FOUND);
    },
  );

  it("files that are addresses are still served", async () => {
    expect((await get("/sitemap.xml")).status).toBe(200);
    expect((await get("/assets/site.0123abcd.css")).status).toBe(200);
  });
});
