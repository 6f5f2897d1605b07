import { readFileSync } from "node:fs";
import * as prismic from "@prismicio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContentApiError } from "#errors";
import { website } from "#website";
import { localContentClient } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO = `${ROOT}services/local-prismic/demo/documents`;
const ID = {
  settings: "Z9nWsREAACUAx1Aa",
  home: "Z9nWtBEAACQAx1Bb",
  about: "Z9nWuhEAACMAx1Cc",
  pricing: "Z9nWvxEAACUAx1Ee",
  websites: "Z9nWyREAACMAx1Ii",
  carePlans: "Z9nWzBEAACQAx1Jj",
  workshops: "Z9nWzxEAACUAx1Kk",
};
const demoDoc = (id: string) =>
  JSON.parse(readFileSync(`${DEMO}/${id}.json`, "utf8")) as prismic.PrismicDocument;

/** The real @prismicio/client, as a third party would use it against Prismic. */
const rawClient = (service: LocalPrismic) =>
  prismic.createClient("demo", {
    documentAPIEndpoint: service.endpoint,
    routes: [...website.routes.resolver],
  });

const publish = async (service: LocalPrismic, edit: unknown) => {
  const response = await fetch(`${service.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(edit),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

const tagged = (id: string, uid: string, tags: string[], metaTitle: string | null = "Tagged") => {
  const about = demoDoc(ID.about);
  return { ...about, id, uid, tags, data: { ...about.data, meta_title: metaTitle } };
};

describe("local content service: reading through @prismicio/client", () => {
  let service: LocalPrismic;
  let client: prismic.Client;
  beforeAll(async () => {
    service = await startLocalPrismic();
    client = rawClient(service);
    // Tags to filter on: three extra pages published through the edit API.
    const result = await publish(service, {
      upsert: [
        tagged("TagAlphaBeta0001", "tag-a-b", ["alpha", "beta"]),
        tagged("TagAlpha00000002", "tag-a", ["alpha"]),
        tagged("TagGamma00000003", "tag-g", ["gamma"], null),
      ],
    });
    expect(result.status).toBe(200);
  });
  afterAll(() => service.stop());

  it("answers /api/v2 with Prismic's repository shape", async () => {
    const repo = await client.getRepository();
    expect(repo.refs).toContainEqual(
      expect.objectContaining({ id: "master", isMasterRef: true, label: "Master" }),
    );
    expect(repo.types).toMatchObject({
      page: expect.any(String),
      price_list: expect.any(String),
      settings: expect.any(String),
    });
    expect(repo.languages).toEqual([{ id: "en-us", name: "English - United States", is_master: true }]);
    expect(repo.integrationFieldsRef).toBeNull();
    expect(repo.tags).toEqual(expect.arrayContaining(["alpha", "beta", "gamma"]));
    expect(repo.forms.everything?.action).toBe(`${service.endpoint}/documents/search`);
    expect(Object.keys(repo.forms.everything?.fields ?? {})).toEqual(
      expect.arrayContaining([
        "ref",
        "q",
        "lang",
        "page",
        "pageSize",
        "after",
        "fetch",
        "fetchLinks",
        "graphQuery",
        "orderings",
        "access_token",
      ]),
    );
  });

  it("fills urls through the route resolver, on documents and on document links", async () => {
    expect((await client.getByUID("page", "home")).url).toBe("/");
    expect((await client.getByUID("page", "about")).url).toBe("/about");
    expect((await client.getByUID("price_list", "websites")).url).toBe("/price-list/websites");
    const settings = await client.getSingle("settings");
    const links = (settings.data.header_navigation as { link: prismic.FilledContentRelationshipField }[]).map(
      (i) => i.link,
    );
    expect(links.find((l) => l.id === ID.carePlans)?.url).toBe("/price-list/care-plans");
    expect(links.find((l) => l.id === ID.about)?.url).toBe("/about");
    // Without routes, Prismic leaves url null.
    const bare = prismic.createClient("demo", { documentAPIEndpoint: service.endpoint });
    expect((await bare.getByUID("page", "about")).url).toBeNull();
  });

  it.each([
    [
      "at document.type",
      [prismic.filter.at("document.type", "price_list")],
      [ID.websites, ID.carePlans, ID.workshops],
    ],
    ["at document.id", [prismic.filter.at("document.id", ID.home)], [ID.home]],
    [
      "at document.tags (all of)",
      [prismic.filter.at("document.tags", ["alpha", "beta"])],
      ["TagAlphaBeta0001"],
    ],
    [
      "any document.tags",
      [prismic.filter.any("document.tags", ["beta", "gamma"])],
      ["TagAlphaBeta0001", "TagGamma00000003"],
    ],
    ["in document.id", [prismic.filter.in("document.id", [ID.home, ID.websites])], [ID.home, ID.websites]],
    ["in my.page.uid", [prismic.filter.in("my.page.uid", ["about", "pricing"])], [ID.about, ID.pricing]],
    [
      "not, with another filter",
      [prismic.filter.at("document.type", "price_list"), prismic.filter.not("document.id", ID.websites)],
      [ID.carePlans, ID.workshops],
    ],
    [
      "at my.price_list.currency",
      [prismic.filter.at("my.price_list.currency", "USD")],
      [ID.websites, ID.carePlans, ID.workshops],
    ],
    ["has my.settings.contact_phone", [prismic.filter.has("my.settings.contact_phone")], [ID.settings]],
    [
      "missing my.page.meta_title",
      [prismic.filter.missing("my.page.meta_title"), prismic.filter.any("document.tags", ["alpha", "gamma"])],
      ["TagGamma00000003"],
    ],
    [
      "has my.page.meta_title",
      [prismic.filter.has("my.page.meta_title"), prismic.filter.any("document.tags", ["alpha", "gamma"])],
      ["TagAlphaBeta0001", "TagAlpha00000002"],
    ],
  ])("filters: %s", async (_name, filters, expected) => {
    const found = await client.get({ filters, pageSize: 100 });
    expect(found.results.map((d) => d.id).sort()).toEqual([...expected].sort());
  });

  it("orders, pages and walks with `after` as Prismic does", async () => {
    const byTitle = await client.getAllByType("price_list", {
      orderings: [{ field: "my.price_list.title", direction: "desc" }],
    });
    const titles = byTitle.map((d) => prismic.asText(d.data.title as prismic.RichTextField));
    expect(titles).toEqual([...titles].sort().reverse());

    const first = await client.get({ pageSize: 4, page: 1 });
    const second = await client.get({ pageSize: 4, page: 2 });
    expect(first.total_results_size).toBe(16);
    expect(first.total_pages).toBe(4);
    expect(first.next_page).toContain("page=2");
    expect(first.prev_page).toBeNull();
    const afterFourth = await client.get({ pageSize: 4, after: first.results[3]?.id });
    expect(afterFourth.results.map((d) => d.id)).toEqual(second.results.map((d) => d.id));
  });

  it("fetches data of linked documents with fetchLinks", async () => {
    const pricing = await client.getByUID("page", "pricing", {
      fetchLinks: ["price_list.title", "price_list.currency"],
    });
    const tables = (pricing.data.slices as prismic.Slice[]).filter(
      (s) => s.slice_type === "price_list_table",
    );
    const link = tables[0]?.primary.price_list as prismic.FilledContentRelationshipField<
      string,
      string,
      { title: unknown; currency: unknown }
    >;
    expect(link.url).toMatch(/^\/price-list\//);
    expect(link.data).toEqual({ title: expect.any(Array), currency: "USD" });
  });

  it("filters by language, and accepts lang=*", async () => {
    expect((await client.get({ lang: "fr-fr" })).total_results_size).toBe(0);
    expect((await client.get({ lang: "*" })).total_results_size).toBe(16);
  });

  it("answers bad queries as Prismic does: parsing error, not-implemented, bad page size, unknown ref", async () => {
    await expect(client.get({ filters: ["[at(document.type, "] })).rejects.toBeInstanceOf(
      prismic.ParsingError,
    );
    const unsupported = await client
      .get({ filters: [prismic.filter.fulltext("document", "design")] })
      .catch((e: unknown) => e);
    expect(unsupported).toBeInstanceOf(prismic.ParsingError);
    expect((unsupported as Error).message).toMatch(/does not implement/i);
    const direct = await fetch(
      `${service.endpoint}/documents/search?ref=${service.store.masterRef}&pageSize=101`,
    );
    expect(direct.status).toBe(400);
    // The client reads the master ref out of the 404's message and retries with it, as it does with Prismic.
    expect((await client.get({ ref: "NoSuchRef0000001" })).total_results_size).toBe(16);
    const unknownRef = await fetch(`${service.endpoint}/documents/search?ref=NoSuchRef0000001`);
    expect(unknownRef.status).toBe(404);
    expect(await unknownRef.json()).toMatchObject({
      type: "api_notfound_error",
      message: expect.stringContaining(`Master ref is: ${service.store.masterRef}`),
    });
  });

  it("gives the product's content client status-carrying errors for the same answers", async () => {
    const ours = localContentClient(service.endpoint, {
      timeoutMs: 5_000,
      cacheTtlMs: 5_000,
      cacheMaxEntries: 100,
    });
    const error = (await ours.get({ ref: "NoSuchRef0000001" }).catch((e: unknown) => e)) as ContentApiError;
    expect(error).toBeInstanceOf(ContentApiError);
    expect(error.status).toBe(404);
    expect(error.type).toBe("api_notfound_error");
    expect((await ours.getByUID("page", "about")).url).toBe("/about");
  });
});

describe("local content service: pagination across 250 documents", () => {
  let service: LocalPrismic;
  let seed: { path: string; remove: () => Promise<void> };
  beforeAll(async () => {
    const { tempDir } = await import("../support/temp-dir.ts");
    const { mkdir, writeFile } = await import("node:fs/promises");
    seed = await tempDir("seed");
    await mkdir(`${seed.path}/documents`);
    const about = demoDoc(ID.about);
    await writeFile(`${seed.path}/documents/settings.json`, JSON.stringify(demoDoc(ID.settings)));
    for (let i = 0; i < 250; i++) {
      const n = String(i).padStart(3, "0");
      const doc = { ...about, id: `BulkPage00000${n}`, uid: i === 0 ? "home" : `page-${n}`, slugs: [] };
      await writeFile(`${seed.path}/documents/${doc.id}.json`, JSON.stringify(doc));
    }
    service = await startLocalPrismic({ seedDir: seed.path });
  });
  afterAll(async () => {
    await service.stop();
    await seed.remove();
  });

  it("returns every document exactly once across pages of 100, with Prismic's page counts", async () => {
    const client = rawClient(service);
    const pages = await Promise.all(
      [1, 2, 3].map((page) => client.getByType("page", { page, pageSize: 100 })),
    );
    expect(pages.map((p) => p.results_size)).toEqual([100, 100, 50]);
    expect(pages[0]).toMatchObject({ total_results_size: 250, total_pages: 3, results_per_page: 100 });
    expect(pages[2]?.next_page).toBeNull();
    const ids = pages.flatMap((p) => p.results.map((d) => d.id));
    expect(new Set(ids).size).toBe(250);
    // A settings link to a page that does not exist in this repository resolves as a broken link.
    const settings = await client.getSingle("settings", { brokenRoute: "/not-found" });
    const nav = settings.data.header_navigation as { link: prismic.ContentRelationshipField }[];
    expect(nav[0]?.link).toMatchObject({ link_type: "Document", isBroken: true, url: "/not-found" });
  });
});
