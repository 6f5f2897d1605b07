/**
 * The one rule by which the site server tags an answer and the worker purges it. Every
 * spelling of a URL the site server answers the same is one key (else a purge misses copies the
 * edge keeps under another spelling); keys never hold xkey's separators (space, comma).
 */
import { describe, expect, it } from "vitest";
import { cloudFrontPaths, parsePurgeUrl, purgeKeys, routeKey, surrogateKeys } from "#edge";

describe("routeKey", () => {
  it.each([
    ["/", "/"],
    ["/about", "/about"],
    ["/about/", "/about"],
    ["/about?utm_source=newsletter", "/about"],
    ["/about/?x=1#top", "/about"],
    ["/%61bout", "/about"],
    ["/price-list/", "/price-list"],
    ["/price-list", "/price-list"],
    ["/price-list/care-plans", "/price-list/care-plans"],
    ["/caf%C3%A9", "/caf%C3%A9"],
    ["/caf%c3%a9", "/caf%C3%A9"],
    ["/café", "/caf%C3%A9"],
    ["/sitemap.xml", "/sitemap.xml"],
    ["/a%20b,c", "/a%20b%2Cc"],
    // Another case and the page's stored key are spellings the site server answers with a 301 to the route.
    ["/ABOUT", "/about"],
    ["/Price-List/", "/price-list"],
    ["/CAF%C3%89", "/caf%C3%A9"],
    ["/about/index.html", "/about"],
    ["/ABOUT/index.html?x=1", "/about"],
    ["/index.html", "/"],
    ["/404.html", "/404.html"],
    ["/bad%zzescape", "/bad%25zzescape"],
    ["404", "404"],
  ])("%s → %s", (path, key) => {
    expect(routeKey(path)).toBe(key);
    expect(routeKey(path)).not.toMatch(/[ ,]/);
  });

  it("tags an answer with its route, the not-found key when it is the 404 page, and the site-wide key", () => {
    expect(surrogateKeys("/about?x=1")).toBe("/about all");
    expect(surrogateKeys("/careers", { notFound: true })).toBe("/careers 404 all");
    // A hostile URL's key would overflow the edge's header limit: it goes by 404 and all only.
    expect(surrogateKeys(`/${"a".repeat(5_000)}`, { notFound: true })).toBe("404 all");
    // An answer that depends on another route (`/home` goes where `/` goes) is purged by its key too.
    expect(surrogateKeys("/home/?x=1", { alsoRoutes: ["/"] })).toBe("/home / all");
    expect(surrogateKeys("/", { alsoRoutes: ["/"] })).toBe("/ all");
  });

  it("purges each route's key once, whatever the spelling the worker has", () => {
    expect(purgeKeys(["/price-list/", "/price-list", "/about", "404"])).toEqual([
      "/price-list",
      "/about",
      "404",
    ]);
  });
});

describe("CloudFront paths", () => {
  it("invalidates each route's URL and the key a bucket origin's function rewrites it to", () => {
    expect(cloudFrontPaths(["/about", "/", "/price-list/", "/sitemap.xml", "/caf%C3%A9"])).toEqual([
      "/about",
      "/about/index.html",
      "/",
      "/index.html",
      "/price-list/",
      "/price-list/index.html",
      "/sitemap.xml",
      "/caf%C3%A9",
      "/caf%C3%A9/index.html",
    ]);
  });

  it("needs /* for the not-found page (cached under every URL that answered 404), nothing for 500/503", () => {
    expect(cloudFrontPaths(["/about", "404"])).toBeUndefined();
    expect(cloudFrontPaths(["500", "503"])).toEqual([]);
  });
});

describe("CDN_PURGE_URL", () => {
  it.each([
    ["varnish://edge-purge:8080", { kind: "varnish", host: "edge-purge", port: 8080 }],
    ["varnish://127.0.0.1", { kind: "varnish", host: "127.0.0.1", port: 80 }],
    ["varnish://[::1]:6081", { kind: "varnish", host: "::1", port: 6081 }],
    ["cloudfront://E2QWRUHAPOMQZL", { kind: "cloudfront", distributionId: "E2QWRUHAPOMQZL" }],
  ])("%s", (url, target) => {
    expect(parsePurgeUrl(url)).toEqual(target);
  });

  it("is no edge when unset, and refuses what it cannot purge, saying how to fix it", () => {
    expect(parsePurgeUrl(undefined)).toBeUndefined();
    expect(() => parsePurgeUrl("fastly://service")).toThrow(/Set CDN_PURGE_URL to varnish:\/\/<host>:<port>/);
    expect(() => parsePurgeUrl("varnish://user@edge:80")).toThrow(/no path, query or user/);
  });
});
