/**
 * A publish purges every route whose stored object it changed and nothing
 * else; everything at once only when that is most of the site; a build's changed keys map to
 * their routes. Table tests of the pure decisions (worker/src/publish/purge-plan.ts).
 */
import { describe, expect, it } from "vitest";
import {
  changedRoutes,
  purgeEverything,
  routesOfKeys,
  servedBeforeCommit,
} from "#worker/publish/purge-plan.ts";

const entry = (key: string, hash: string) => ({ key, hash });

describe("changedRoutes", () => {
  const previous = new Map([
    ["/about", entry("about/index.html", "a1")],
    ["/pricing", entry("pricing/index.html", "p1")],
    ["/sitemap.xml", entry("sitemap.xml", "s1")],
  ]);

  it("is the routes written with other bytes, never those rendered to the same bytes", () => {
    const rendered = new Map([
      ["/about", entry("about/index.html", "a2")], // edited
      ["/pricing", entry("pricing/index.html", "p1")], // re-rendered, same bytes: its edge copy stays
      ["/sitemap.xml", entry("sitemap.xml", "s2")], // lastmod moved
      ["/careers", entry("careers/index.html", "c1")], // new page (both ends of a rename: this one)
    ]);
    expect(changedRoutes(rendered, previous)).toEqual(["/about", "/sitemap.xml", "/careers"]);
  });

  it("purges early what the site server serves before the manifest names it: the same key, or its path's", () => {
    expect(servedBeforeCommit("/about", entry("about/index.html", "a2"), previous)).toBe(true);
    // A new route (a renamed page's) at its path's key: served at once, even while no manifest can be written.
    expect(servedBeforeCommit("/careers", entry("careers/index.html", "c1"), previous)).toBe(true);
    expect(servedBeforeCommit("/%C3%BCber-uns", entry("über-uns/index.html", "u1"), previous)).toBe(true);
    // Elsewhere, or spelled with a trailing slash: only once the manifest names it.
    expect(servedBeforeCommit("/careers", entry("jobs/index.html", "c1"), previous)).toBe(false);
    expect(servedBeforeCommit("/events/", entry("events/index.html", "e1"), previous)).toBe(false);
  });
});

describe("purgeEverything", () => {
  it.each([
    [1, 16, false],
    [16, 16, false], // a small site: every route one by one, still few
    [100, 150, false],
    [101, 150, true], // most of the site and more than 100
    [5_000, 10_000, false],
    [5_001, 10_000, true], // a settings change: one site-wide key instead of 10,000 requests
    [300, 10_000, false], // a price list embedded in 300 of 10,000 pages: exact
  ])("%i of %i routes → %s", (routes, site, everything) => {
    expect(purgeEverything(routes, site)).toBe(everything);
  });
});

describe("routesOfKeys", () => {
  it("names a build's changed keys by their routes, assets and metadata aside", () => {
    const known = new Map([
      ["price-list/index.html", "/price-list/"],
      ["faq/index.html", "/faq"],
    ]);
    expect(
      routesOfKeys(
        [
          "index.html",
          "about/index.html",
          "price-list/index.html",
          "price-list/care-plans/index.html",
          "café/index.html",
          "404.html",
          "sitemap.xml",
          "assets/site.0123abcd.css",
          ".pressroom/manifest.json",
          "faq/index.html",
        ],
        known,
      ),
    ).toEqual([
      "/",
      "/about",
      "/caf%C3%A9",
      "/faq",
      "/price-list/",
      "/price-list/care-plans",
      "/sitemap.xml",
      "404",
    ]);
  });
});
