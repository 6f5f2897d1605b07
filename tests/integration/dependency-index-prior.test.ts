/**
 * `DependencyIndex.prior`: what a publish learns from the index before it asks the content API, read
 * in one round trip by a script. Real Redis, an index written by hand in its layout, so
 * that each rule of the read is seen: listings left out, too many routes, links that saw a document
 * elsewhere, a document the index does not know.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listingSlotOf } from "#content/dependencies.ts";
import { isListingRoute } from "#worker/publish/context.ts";
import { DependencyIndex } from "#worker/publish/dependency-index.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";

const PREFIX = `test-index-prior-${process.pid}-${Date.now()}`;
const key = (name: string) => `${PREFIX}:index:${name}`;
const entry = (route: string, dependencies: string[]) => ({
  key: `${route}/index.html`,
  hash: "h",
  dependencies,
});

let redis: Redis;
let index: DependencyIndex;

beforeAll(async () => {
  redis = new Redis({ maxRetriesPerRequest: null });
  index = new DependencyIndex(redis, PREFIX);
  await redis
    .multi()
    .hset(key("docs"), {
      page: JSON.stringify({ id: "page", type: "page", route: "/page", hash: "a" }),
      prices: JSON.stringify({ id: "prices", type: "price_list", route: "/price-list/prices", hash: "b" }),
      settings: JSON.stringify({ id: "settings", type: "settings", route: null, hash: "c" }),
    })
    .hset(key("routes"), {
      "/page": JSON.stringify(entry("/page", ["doc:page", "doc:settings"])),
      "/other": JSON.stringify(entry("/other", ["doc:other", "doc:page", "doc:settings"])),
      "/price-list/prices": JSON.stringify(entry("/price-list/prices", ["doc:prices"])),
      "/sitemap.xml": JSON.stringify(entry("/sitemap.xml", ["routes:page"])),
    })
    // The page is shown by its own route, another page and the sitemap, linked to from two pages,
    // one of which saw it where it is now.
    .sadd(key("dep:doc:page"), "/page", "/other", "/sitemap.xml")
    .sadd(key("dep:url:page"), "/linking", "/linking-too")
    .sadd(key("dep:sees:page:/page"), "/linking")
    .sadd(key("dep:type:page"), "/price-list/")
    .sadd(key("dep:routes:page"), "/sitemap.xml")
    // Settings: shown everywhere, linked from one route that saw it at no route.
    .sadd(key("dep:doc:settings"), ...Array.from({ length: 12 }, (_, i) => `/route-${i}`))
    .sadd(key("dep:url:settings"), "/linking", "/seen-nowhere")
    .sadd(key("dep:sees:settings:"), "/seen-nowhere")
    // The price list: shown by its route and by more sitemap parts than the script reads past the limit.
    .sadd(
      key("dep:doc:prices"),
      "/price-list/prices",
      ...Array.from({ length: 40 }, (_, i) => `/sitemap-${i + 1}-of-64.xml`),
    )
    // The part of a divided sitemap holding the page's slot, and the index counting pages.
    .sadd(key(`dep:routes:page@${listingSlotOf("page")}`), "/sitemap-3-of-64.xml")
    .sadd(key(`dep:routes:page@${(listingSlotOf("page") + 1) % 256}`), "/sitemap-4-of-64.xml")
    .sadd(key("dep:count:page"), "/sitemap.xml")
    .exec();
});

afterAll(async () => {
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
});

describe("DependencyIndex.prior", () => {
  it("reads the documents, who shows and links to them, the routes' entries and the listings, listings' entries left out", async () => {
    const prior = await index.prior(["page", "unknown"], { maxRoutes: 10, isListing: isListingRoute });
    expect([...prior.known.keys()]).toEqual(["page"]);
    expect(prior.dependents.get("doc:page")).toEqual(["/other", "/page", "/sitemap.xml"]);
    // The links are counted, not read: a publish reads them only for a document that moved.
    expect(prior.linkedBy.get("page")).toBe(2);
    expect(prior.dependents.has("url:page")).toBe(false);
    expect(prior.dependents.get("doc:unknown")).toEqual([]);
    expect(prior.linkedBy.has("unknown")).toBe(false);
    expect(prior.dependents.get("type:page")).toEqual(["/price-list/"]);
    expect(prior.dependents.get("routes:page")).toEqual(["/sitemap.xml"]);
    expect(prior.dependents.get("count:page")).toEqual(["/sitemap.xml"]);
    // The divided listing's part of the page's own slot, not its neighbour's.
    expect(prior.dependents.get(`routes:page@${listingSlotOf("page")}`)).toEqual(["/sitemap-3-of-64.xml"]);
    expect(prior.dependents.has(`routes:page@${(listingSlotOf("page") + 1) % 256}`)).toBe(false);
    expect(prior.dependents.has("type:undefined")).toBe(false);
    // Its own route and the page showing it; not the sitemap, a listing.
    expect([...prior.entries.keys()].sort()).toEqual(["/other", "/page"]);
    expect(prior.entries.get("/other")?.dependencies).toEqual(["doc:other", "doc:page", "doc:settings"]);
    // Of the two pages linking to it, the one that saw it elsewhere than at /page.
    expect(prior.linkedElsewhere.get("page")).toEqual({ route: "/page", routes: ["/linking-too"] });
    expect(prior.linkedElsewhere.has("unknown")).toBe(false);
  });

  it("counts the routes linking to a document however many, and names only those that saw it elsewhere", async () => {
    // Every route's navigation links to the page; one route saw it at an older route.
    const routes = Array.from({ length: 5_000 }, (_, i) => `/nav-${i}`);
    await redis
      .multi()
      .hset(key("docs"), "nav", JSON.stringify({ id: "nav", type: "page", route: "/nav", hash: "n" }))
      .sadd(key("dep:url:nav"), ...routes)
      .sadd(key("dep:sees:nav:/nav"), ...routes.slice(1))
      .sadd(key("dep:sees:nav:/nav-old"), routes[0] as string)
      .exec();
    const prior = await index.prior(["nav"], { maxRoutes: 10, isListing: isListingRoute });
    expect(prior.linkedBy.get("nav")).toBe(5_000);
    expect(prior.dependents.has("url:nav")).toBe(false);
    expect(prior.linkedElsewhere.get("nav")).toEqual({ route: "/nav", routes: ["/nav-0"] });

    // Once that route saw it where it is, none did elsewhere.
    await redis
      .multi()
      .srem(key("dep:sees:nav:/nav-old"), routes[0] as string)
      .sadd(key("dep:sees:nav:/nav"), routes[0] as string)
      .exec();
    const after = await index.prior(["nav"], { maxRoutes: 10, isListing: isListingRoute });
    expect(after.linkedElsewhere.get("nav")).toEqual({ route: "/nav", routes: [] });
  });

  it("reads no entry when more routes than maxRoutes show the documents", async () => {
    const prior = await index.prior(["settings"], { maxRoutes: 10, isListing: isListingRoute });
    expect(prior.dependents.get("doc:settings")).toHaveLength(12);
    expect(prior.entries.size).toBe(0);
    // A document without a route: the links that saw it at no route are not "elsewhere".
    expect(prior.linkedElsewhere.get("settings")).toEqual({ route: null, routes: ["/linking"] });
  });

  it("reads the entries of the routes that are not listings when listings crowd the candidates", async () => {
    // 41 candidates, 40 of them listings: more than the script reads with maxRoutes 5; the one
    // route that is not a listing is read apart.
    const prior = await index.prior(["prices"], { maxRoutes: 5, isListing: isListingRoute });
    expect(prior.dependents.get("doc:prices")).toHaveLength(41);
    expect([...prior.entries.keys()]).toEqual(["/price-list/prices"]);
  });

  it("reads nothing but the documents and their dependents when asked for no entries", async () => {
    const prior = await index.prior(["page"], { maxRoutes: 0, isListing: () => true });
    expect(prior.known.get("page")?.route).toBe("/page");
    expect(prior.entries.size).toBe(0);
  });
});
