/**
 * What a publish reads by type and uid, and what its layered source answers first: both must hold
 * for any website (the engine knows no type by name), so the queries name each type's uid field, and
 * the layered source keys by type and uid whatever the types are called.
 */
import type { Client, PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { createMemorySource } from "#content/source.ts";
import { documentsByUid, fetchByUid } from "#worker/publish/fetch-documents.ts";
import { layeredSource } from "#worker/publish/layered-source.ts";

const doc = (id: string, type: string, uid: string | null) =>
  ({ id, type, uid, url: null, lang: "en-us", data: {} }) as unknown as PrismicDocument;

/** A client that records the filters of each query and answers nothing. */
function recordingClient(): { client: Client; filters: string[][] } {
  const filters: string[][] = [];
  const client = {
    get: async (query: { filters: string[] }) => {
      filters.push(query.filters);
      return { results: [] };
    },
  } as unknown as Client;
  return { client, filters };
}

describe("documents by type and uid", () => {
  it("names the demo's routed documents, once each, and no listing nor a type read whole", () => {
    expect(
      documentsByUid(["/", "/about", "/about", "/price-list/websites", "/price-list/", "/sitemap.xml"]),
    ).toEqual([
      { type: "page", uid: "home" },
      { type: "page", uid: "about" },
    ]);
  });

  it("asks each type on its own uid field, 100 uids a request", async () => {
    const { client, filters } = recordingClient();
    const posts = Array.from({ length: 101 }, (_, i) => ({ type: "post", uid: `p${i}` }));
    await fetchByUid(client, "ref", [{ type: "page", uid: "about" }, ...posts, { type: "page", uid: "faq" }]);
    expect(filters.map((f) => f[0]?.slice(0, f[0].indexOf(","))).sort()).toEqual([
      "[in(my.page.uid",
      "[in(my.post.uid",
      "[in(my.post.uid",
    ]);
    expect(filters.find((f) => f[0]?.includes("my.page.uid"))?.[0]).toContain('"about", "faq"');
  });
});

describe("layeredSource: the fetched documents first, of whatever type", () => {
  const fallback = createMemorySource([
    doc("cfg-old", "site_config", null),
    doc("p-old", "post", "hello"),
    doc("q", "post", "other"),
  ]);

  it("answers a singleton, a uid and an id from what was fetched, the rest from the fallback", async () => {
    const source = layeredSource(
      [doc("cfg", "site_config", null), doc("p", "post", "hello")],
      new Set(["gone"]),
      fallback,
    );
    expect((await source.getSingle("site_config"))?.id).toBe("cfg");
    expect((await source.getByUID("post", "hello"))?.id).toBe("p");
    expect((await source.getByUID("post", "other"))?.id).toBe("q");
    expect(await source.getByID("gone")).toBeUndefined();
    expect(Array.from(await source.getAllByType("post"), (d) => d.id)).toEqual(["p-old", "q"]);
  });

  it("answers a listing of a type from the stubs it was given", async () => {
    const stubs = [doc("s", "post", "stub")];
    const source = layeredSource([], new Set(), fallback, new Map([["post", stubs]]));
    expect(await source.getAllByType("post")).toBe(stubs);
    expect((await source.getSingle("site_config"))?.id).toBe("cfg-old");
  });
});
