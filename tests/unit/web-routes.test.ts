import { describe, expect, it } from "vitest";
import {
  isSafeUid,
  keyForRoute,
  NOT_FOUND_ROUTE,
  parseRoute,
  pathForRoute,
  type Route,
  routeForDocument,
  routeProblem,
  uidProblem,
} from "#web/routes.ts";

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
    ["/sitemap-1-of-2.xml", { kind: "sitemap-part", part: 1, of: 2 }],
    ["/sitemap-12-of-16.xml?x=1", { kind: "sitemap-part", part: 12, of: 16 }],
    ["/sitemap-256-of-256.xml", { kind: "sitemap-part", part: 256, of: 256 }],
    ["/robots.txt", { kind: "robots" }],
    // Query strings and fragments do not change the route.
    ["/about?utm_source=x", { kind: "page", uid: "about" }],
    ["/?preview=1", { kind: "home" }],
    ["/faq#payments", { kind: "page", uid: "faq" }],
    // Every uid Prismic accepts that is safe as a path segment: `_`, and dashes anywhere.
    ["/about_us", { kind: "page", uid: "about_us" }],
    ["/a--b", { kind: "page", uid: "a--b" }],
    ["/-about", { kind: "page", uid: "-about" }],
    ["/about-", { kind: "page", uid: "about-" }],
    ["/_draft", { kind: "page", uid: "_draft" }],
    ["/404", { kind: "page", uid: "404" }],
    ["/price-list/care_plans", { kind: "price-list", uid: "care_plans" }],
    // Lowercase letters beyond ASCII, in their canonical percent-encoding.
    ["/%C3%BCber-uns", { kind: "page", uid: "über-uns" }],
    ["/price-list/caf%C3%A9", { kind: "price-list", uid: "café" }],
    ["/%E6%97%A5%E6%9C%AC", { kind: "page", uid: "日本" }],
  ])("%s → %o", (path, route) => {
    expect(parseRoute(path)).toEqual(route);
  });

  it.each([
    ["/home", "the home page lives at / only"],
    ["/home/", "nor with a slash"],
    ["/Bad_Uid", "uppercase"],
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
    ["/%2e%2e/etc", "an encoded parent segment"],
    ["/%2E%2E", "an encoded parent segment, uppercase"],
    ["/%2e", "an encoded dot"],
    ["/%61bout", "an encoded ASCII letter (not the canonical spelling)"],
    ["/%c3%bcber", "lowercase hex (not the canonical spelling)"],
    ["/about%2Fteam", "an encoded slash"],
    ["/about%5Cteam", "an encoded backslash"],
    ["/about%00", "an encoded NUL"],
    ["/%25", "an encoded percent sign"],
    ["/%C3%9Cber", "an encoded uppercase letter (Ü)"],
    ["/%C3", "a broken UTF-8 sequence"],
    ["/%ZZ", "a broken escape"],
    ["/u%CC%88ber", "a uid not in NFC (u + combining diaeresis)"],
    ["/about%20us", "an encoded space"],
    ["/about.html", "a dot"],
    ["/index.html", "a storage key is not a route"],
    ["/404.html", "the 404 key is not a route"],
    [`/${"a".repeat(101)}`, "longer than 100 characters"],
    ["/price-list-x/y", "a look-alike prefix"],
    ["/assets", "a reserved uid: the asset folder"],
    ["/api", "a reserved uid: the site API"],
    ["/_pressroom", "a reserved uid: operational endpoints"],
    ["/_pressroom/healthz", "operational endpoints are no page"],
    ["/healthz", "a reserved uid: a former operational path"],
    ["/slice-simulator", "a reserved uid: the preview server's simulator"],
    ["/sitemap.xml/", "the sitemap with a slash"],
    ["/sitemap-0-of-2.xml", "sitemap parts count from 1"],
    ["/sitemap-01-of-2.xml", "a sitemap part spelled with a leading zero"],
    ["/sitemap-1-of-02.xml", "a division spelled with a leading zero"],
    ["/sitemap-1-of-2.xml/", "a sitemap part with a slash"],
    ["/sitemap-3-of-2.xml", "a part beyond its division"],
    ["/sitemap-1-of-3.xml", "a division that is not a power of two"],
    ["/sitemap-1-of-1.xml", "one part is no division"],
    ["/sitemap-1-of-512.xml", "more parts than listing slots"],
    ["/sitemap-1.xml", "a part without its division"],
    ["", "an empty path"],
    ["about", "a path without a leading slash"],
    [NOT_FOUND_ROUTE, "the 404 route's name"],
    ["/ about", "a space"],
    ["/über", "a non-ASCII letter, not percent-encoded"],
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
    ["/sitemap-3-of-4.xml", "sitemap-3-of-4.xml"],
    ["/robots.txt", "robots.txt"],
    [NOT_FOUND_ROUTE, "404.html"],
    ["500", "500.html"],
    ["503", "503.html"],
    ["/nope/nope", "404.html"],
    ["/home", "404.html"],
    ["/../etc/passwd", "404.html"],
    ["/%2e%2e%2fetc", "404.html"],
    ["/about_us", "about_us/index.html"],
    ["/%C3%BCber-uns", "über-uns/index.html"],
    ["/price-list/caf%C3%A9", "price-list/café/index.html"],
  ])("%s → %s", (path, key) => {
    expect(keyForRoute(path)).toBe(key);
  });

  it("never leaves the site's key space", () => {
    const hostile = [
      "/..",
      "/../..",
      "/./about",
      "/price-list/..",
      "/\\..\\",
      "/%00",
      "/a/../../b",
      "/%2e%2e",
      "/price-list/%2E%2E",
      "/%2F..%2F",
      "/.pressroom-tmp",
      "/%2Epressroom-x",
      "/_pressroom",
    ];
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
    [{ kind: "sitemap-part", part: 2, of: 4 }, "/sitemap-2-of-4.xml"],
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
    [{ type: "page", uid: "about_us" }, "/about_us"],
    [{ type: "page", uid: "über-uns" }, "/%C3%BCber-uns"],
    [{ type: "price_list", uid: "care_plans" }, "/price-list/care_plans"],
    [{ type: "page", uid: "_pressroom" }, null],
    [{ type: "page", uid: "healthz" }, null],
    [{ type: "page", uid: "slice-simulator" }, null],
    [{ type: "page", uid: "api" }, null],
    [{ type: "price_list", uid: "api" }, "/price-list/api"],
    [{ type: "page", uid: "a.b" }, null],
    [{ type: "page", uid: "a%2fb" }, null],
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
    ["-", true],
    ["a_b", true],
    ["über", true],
    ["a.b", false],
    ["a%20b", false],
    ["a\\b", false],
    ["\u00e9t\u00e9", true],
    ["e\u0301", false],
    ["a b", false],
    ["A", false],
    [null, false],
    [42, false],
  ])("%o → %s", (uid, safe) => {
    expect(isSafeUid(uid)).toBe(safe);
  });
});

describe("uidProblem: the one rule the edit API, the build and the preview server share", () => {
  it.each<[string, unknown, RegExp | undefined]>([
    ["page", "about", undefined],
    ["page", "about_us", undefined],
    ["page", "über-uns", undefined],
    ["page", "home", undefined],
    ["page", "a".repeat(100), undefined],
    ["page", "a".repeat(101), /longer than 100 characters/],
    ["page", "日".repeat(86), /longer than 255 bytes in UTF-8/],
    ["page", "日".repeat(85), undefined],
    ["page", "About", /cannot be a path segment: use lowercase letters, digits, "-" and "_" only/],
    ["page", "a b", /cannot be a path segment/],
    ["page", "a/b", /cannot be a path segment/],
    ["page", "..", /cannot be a path segment/],
    ["page", "a.b", /cannot be a path segment/],
    ["page", "a%2Fb", /cannot be a path segment/],
    ["page", "e\u0301t\u00e9", /not in Unicode normal form/],
    ["page", "", /has no uid/],
    ["page", null, /has no uid/],
    ["page", "_pressroom", /reserved for the site's own routes/],
    ["page", "healthz", /reserved/],
    ["page", "slice-simulator", /reserved/],
    ["page", "price-list", /reserved/],
    ["page", "assets", /reserved/],
    ["page", "api", /reserved/],
    ["price_list", "api", undefined],
  ])("%s %o → %s", (type, uid, problem) => {
    const found = uidProblem(type, uid);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });

  it.each<[string, string, RegExp | undefined]>([
    // Invisible: default-ignorable characters a browser shows as nothing (a letter or mark to the regex).
    ["a Hangul filler alone", "\u3164", /invisible character \(U\+3164\)/],
    ["a Hangul filler inside", "about\u3164", /invisible character \(U\+3164\)/],
    ["a choseong filler", "\u115f-x", /invisible character \(U\+115F\)/],
    ["a halfwidth filler", "\uffa0", /invisible character \(U\+FFA0\)/],
    ["a combining grapheme joiner", "ab\u034fc", /invisible character \(U\+034F\)/],
    ["a variation selector", "about\ufe0f", /invisible character \(U\+FE0F\)/],
    ["a Mongolian variation selector", "a\u180bb", /invisible character \(U\+180B\)/],
    ["a Khmer inherent vowel", "\u17b4ab", /invisible character \(U\+17B4\)/],
    ["a zero-width space", "ab\u200bc", /cannot be a path segment|invisible/],
    ["a zero-width joiner", "ab\u200dc", /cannot be a path segment|invisible/],
    ["a soft hyphen", "ab\u00adc", /cannot be a path segment|invisible/],
    ["a word joiner", "ab\u2060c", /cannot be a path segment|invisible/],
    // Mixed scripts: Latin with a script whose letters look like Latin ones.
    ["about with a Cyrillic а", "\u0430bout", /mixes Latin letters with Cyrillic ones \(а\)/],
    ["pricing with a Cyrillic і", "pr\u0456cing", /mixes Latin letters with Cyrillic ones/],
    ["a Greek ο among Latin", "bl\u03bfg", /mixes Latin letters with Greek ones \(ο\)/],
    ["an Armenian օ among Latin", "l\u0585go", /mixes Latin letters with Armenian ones/],
    // One script, or scripts no one confuses: valid, whatever the site's language.
    ["all Cyrillic", "о-нас", undefined],
    ["all Cyrillic with digits", "москва-2024", undefined],
    ["all Greek", "σχετικά-με-εμάς", undefined],
    ["all Armenian", "մեր-մասին", undefined],
    ["Latin with accents", "café-crème", undefined],
    ["Japanese with Latin", "会社-about", undefined],
    ["Korean", "회사-소개", undefined],
    ["Arabic", "من-نحن", undefined],
    ["Hindi with a combining sign", "हमारे-बारे-में", undefined],
  ])("%s (%o)", (_name, uid, problem) => {
    const found = uidProblem("page", uid);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });

  it("a uid refused for how it looks is no route, and no path reaches it", () => {
    expect(routeForDocument({ type: "page", uid: "\u0430bout" })).toBeNull();
    expect(parseRoute(`/${encodeURIComponent("\u0430bout")}`)).toEqual({ kind: "not-found" });
    expect(parseRoute(`/${encodeURIComponent("about\u3164")}`)).toEqual({ kind: "not-found" });
    expect(parseRoute(`/${encodeURIComponent("о-нас")}`)).toEqual({ kind: "page", uid: "о-нас" });
  });

  it("is why routeForDocument gives no route, and says nothing for documents without routes", () => {
    expect(routeProblem({ type: "page", uid: "healthz" })).toMatch(/reserved/);
    expect(routeForDocument({ type: "page", uid: "healthz" })).toBeNull();
    expect(routeProblem({ type: "settings", uid: null })).toBeUndefined();
  });
});
