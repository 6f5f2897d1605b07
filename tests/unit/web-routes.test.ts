import { describe, expect, it } from "vitest";
import {
  isSafeUid,
  keyForRoute,
  NOT_FOUND_ROUTE,
  parseRoute,
  pathForRoute,
  type Route,
  routeForDocument,
} from "../../web/src/routes.ts";

const NOT_FOUND: Route = { kind: "not-found" };

describe("parseRoute", () => {
  it.each<[string, Route]>([
    ["/", { kind: "home" }],
    ["/about", { kind: "page", uid: "about" }],
    ["/about/", { kind: "page", uid: "about" }],
    ["/care-plans-2", { kind: "page", uid: "care-plans-2" }],
    ["/price-list/websites", { kind: "price-list", uid: "websites" }],
    ["/price-list/websites/", { kind: "price-list", uid: "websites" }],
    ["/price-list/", { kind: "price-list-index" }],
    ["/price-list", { kind: "price-list-index" }],
    ["/sitemap.xml", { kind: "sitemap" }],
    ["/robots.txt", { kind: "robots" }],
    // Query strings and fragments do not change the route.
    ["/about?utm_source=x", { kind: "page", uid: "about" }],
    ["/?preview=1", { kind: "home" }],
    ["/faq#payments", { kind: "page", uid: "faq" }],
  ])("%s → %o", (path, route) => {
    expect(parseRoute(path)).toEqual(route);
  });

  it.each([
    ["/home", "the home page lives at / only"],
    ["/home/", "nor with a slash"],
    ["/Bad_Uid", "uppercase and underscore"],
    ["/About", "uppercase"],
    ["/about//", "two trailing slashes"],
    ["//about", "an empty segment"],
    ["/about/team", "pages are one segment deep"],
    ["/price-list/websites/rows", "price lists are one segment below /price-list/"],
    ["/price-list//", "an empty price list uid"],
    ["/price-list/Websites", "an uppercase price list uid"],
    ["/../etc", "a parent segment"],
    ["/..", "a bare parent segment"],
    ["/price-list/../about", "a parent segment inside a price list path"],
    ["/%2e%2e/etc", "an encoded parent segment (never decoded)"],
    ["/%61bout", "an encoded letter (never decoded)"],
    ["/about%2Fteam", "an encoded slash"],
    ["/a--b", "a double dash"],
    ["/-about", "a leading dash"],
    ["/about-", "a trailing dash"],
    ["/about.html", "a dot"],
    ["/index.html", "a storage key is not a route"],
    ["/404.html", "the 404 key is not a route"],
    [`/${"a".repeat(101)}`, "longer than 100 characters"],
    ["/price-list-x/y", "a look-alike prefix"],
    ["/assets", "a reserved uid: the asset folder"],
    ["/api", "a reserved uid: the site API"],
    ["/sitemap.xml/", "the sitemap with a slash"],
    ["", "an empty path"],
    ["about", "a path without a leading slash"],
    [NOT_FOUND_ROUTE, "the 404 route's name"],
    ["/ about", "a space"],
    ["/über", "a non-ASCII letter"],
  ])("%s is not found (%s)", (path) => {
    expect(parseRoute(path)).toEqual(NOT_FOUND);
  });

  it("accepts a uid of exactly 100 characters", () => {
    const uid = "a".repeat(100);
    expect(parseRoute(`/${uid}`)).toEqual({ kind: "page", uid });
  });
});

describe("keyForRoute", () => {
  it.each([
    ["/", "index.html"],
    ["/about", "about/index.html"],
    ["/about/", "about/index.html"],
    ["/price-list/websites", "price-list/websites/index.html"],
    ["/price-list/", "price-list/index.html"],
    ["/price-list", "price-list/index.html"],
    ["/sitemap.xml", "sitemap.xml"],
    ["/robots.txt", "robots.txt"],
    [NOT_FOUND_ROUTE, "404.html"],
    ["500", "500.html"],
    ["503", "503.html"],
    ["/nope/nope", "404.html"],
    ["/home", "404.html"],
    ["/../etc/passwd", "404.html"],
    ["/%2e%2e%2fetc", "404.html"],
  ])("%s → %s", (path, key) => {
    expect(keyForRoute(path)).toBe(key);
  });

  it("never leaves the site's key space", () => {
    const hostile = ["/..", "/../..", "/./about", "/price-list/..", "/\\..\\", "/%00", "/a/../../b"];
    for (const path of hostile) {
      const key = keyForRoute(path);
      expect(key).not.toMatch(/(^|\/)\.\.?(\/|$)|^\/|\\|%/);
    }
  });
});

describe("pathForRoute", () => {
  it.each<[Route, string]>([
    [{ kind: "home" }, "/"],
    [{ kind: "page", uid: "about" }, "/about"],
    [{ kind: "price-list", uid: "websites" }, "/price-list/websites"],
    [{ kind: "price-list-index" }, "/price-list/"],
    [{ kind: "sitemap" }, "/sitemap.xml"],
    [{ kind: "robots" }, "/robots.txt"],
    [{ kind: "not-found" }, NOT_FOUND_ROUTE],
    [{ kind: "error", status: 500 }, "500"],
    [{ kind: "error", status: 503 }, "503"],
  ])("%o → %s, which parses back to it", (route, path) => {
    expect(pathForRoute(route)).toBe(path);
    if (route.kind !== "not-found") expect(parseRoute(path)).toEqual(route);
  });
});

describe("routeForDocument", () => {
  it.each<[{ type: string; uid: string | null }, string | null]>([
    [{ type: "page", uid: "home" }, "/"],
    [{ type: "page", uid: "about" }, "/about"],
    [{ type: "price_list", uid: "websites" }, "/price-list/websites"],
    [{ type: "price_list", uid: "home" }, "/price-list/home"],
    [{ type: "settings", uid: null }, null],
    [{ type: "page", uid: null }, null],
    [{ type: "page", uid: "Bad_Uid" }, null],
    [{ type: "page", uid: "../etc" }, null],
    [{ type: "page", uid: "a/b" }, null],
    [{ type: "page", uid: "" }, null],
    [{ type: "page", uid: "x".repeat(101) }, null],
    [{ type: "page", uid: "price-list" }, null],
    [{ type: "page", uid: "assets" }, null],
    [{ type: "price_list", uid: "Care Plans" }, null],
    [{ type: "unknown_type", uid: "about" }, null],
  ])("%o → %s", (doc, route) => {
    expect(routeForDocument(doc)).toBe(route);
  });

  it("gives routes that parse back to the same document", () => {
    expect(parseRoute(routeForDocument({ type: "page", uid: "about" }) as string)).toEqual({
      kind: "page",
      uid: "about",
    });
    expect(parseRoute(routeForDocument({ type: "page", uid: "home" }) as string)).toEqual({ kind: "home" });
    expect(parseRoute(routeForDocument({ type: "price_list", uid: "websites" }) as string)).toEqual({
      kind: "price-list",
      uid: "websites",
    });
  });
});

describe("isSafeUid", () => {
  it.each([
    ["about", true],
    ["care-plans", true],
    ["a1-b2-c3", true],
    ["0", true],
    ["", false],
    ["-", false],
    ["a_b", false],
    ["a b", false],
    ["A", false],
    [null, false],
    [42, false],
  ])("%o → %s", (uid, safe) => {
    expect(isSafeUid(uid)).toBe(safe);
  });
});
