import { buildQueryURL, filter, type Route } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { createMatchCache } from "#local-prismic/answer-cache.ts";
import {
  ApiError,
  type PrismicDocument,
  type SearchContext,
  type SearchResponse,
  searchDocuments,
} from "#local-prismic/query/index.ts";
import type { MatchCache } from "#local-prismic/query/types.ts";

const BASE = "http://127.0.0.1:4100/api/v2";
const SEARCH = `${BASE}/documents/search`;
const context: SearchContext = {
  ref: "master-ref",
  apiBase: BASE,
  masterLang: "en-us",
  knownTypes: ["page", "settings", "price_list"],
};

// ---------------------------------------------------------------------------
// Fixture: a dozen documents in creation order. Deep-frozen, so any mutation by
// the engine throws (ES modules run in strict mode).
// ---------------------------------------------------------------------------

const title = (text: string) => [{ type: "heading1", text, spans: [] }];
/** A stored Document link with deliberately stale metadata: the engine must refresh it. */
const link = (id: string, extra: Record<string, unknown> = {}) => ({
  link_type: "Document",
  id,
  type: "stale",
  tags: ["stale"],
  lang: "xx-xx",
  slug: "stale",
  isBroken: false,
  ...extra,
});

let day = 0;
function doc(
  fields: Pick<PrismicDocument, "id" | "type"> & Partial<Omit<PrismicDocument, "id" | "type">>,
): PrismicDocument {
  day++;
  const uid = fields.uid ?? null;
  return {
    uid,
    url: null,
    href: "stale-href",
    tags: [],
    first_publication_date: `2024-01-${String(day).padStart(2, "0")}T10:00:00+0000`,
    last_publication_date: `2024-03-${String(13 - day).padStart(2, "0")}T10:00:00+0000`,
    slugs: [uid ?? fields.id],
    linked_documents: [],
    lang: "en-us",
    alternate_languages: [],
    data: {},
    ...fields,
  };
}

const fixture: readonly PrismicDocument[] = deepFreeze([
  doc({
    id: "home",
    type: "page",
    uid: "home",
    tags: ["featured"],
    data: {
      title: title("Welcome"),
      order: 1,
      visible: true,
      category: "landing",
      hero: link("pl-basic"),
      body: [
        {
          type: "paragraph",
          text: "See about and the old page",
          spans: [
            { start: 4, end: 9, type: "hyperlink", data: link("about") },
            { start: 18, end: 26, type: "hyperlink", data: link("gone") },
            { start: 0, end: 3, type: "strong" },
          ],
        },
      ],
      slices: [
        {
          slice_type: "cta",
          variation: "default",
          primary: { link: link("about", { text: "Read more" }) },
          items: [{ link: link("pl-pro") }],
        },
      ],
    },
  }),
  doc({
    id: "about",
    type: "page",
    uid: "about",
    tags: ["company", "featured"],
    data: { title: title("About us"), order: 3, visible: false, category: "company", parent: link("home") },
  }),
  doc({
    id: "contact",
    type: "page",
    uid: "contact",
    data: { title: title("Contact"), order: null, category: null, parent: link("gone") },
  }),
  doc({
    id: "about-fr",
    type: "page",
    uid: "a-propos",
    lang: "fr-fr",
    data: { title: title("À propos"), order: 4 },
  }),
  doc({
    id: "settings",
    type: "settings",
    data: {
      site_name: "Pressroom",
      tagline: 'Say "hi"',
      footer_link: link("contact"),
      web: { link_type: "Web", url: "https://example.com" },
    },
  }),
  doc({
    id: "pl-basic",
    type: "price_list",
    uid: "basic",
    tags: ["pricing"],
    data: { title: title("Basic"), currency: "EUR", amount: 10 },
  }),
  doc({
    id: "pl-pro",
    type: "price_list",
    uid: "pro",
    tags: ["pricing", "featured"],
    data: { title: title("Pro"), currency: "USD", amount: 50 },
  }),
  doc({
    id: "pl-enterprise",
    type: "price_list",
    uid: "enterprise",
    tags: ["pricing"],
    data: { title: title("Enterprise"), currency: "EUR", amount: 200 },
  }),
  doc({
    id: "pl-fr",
    type: "price_list",
    uid: "basique",
    lang: "fr-fr",
    tags: ["pricing"],
    data: { title: title("Basique"), currency: "EUR", amount: 10 },
  }),
  doc({
    id: "blog",
    type: "page",
    uid: "blog",
    data: { title: title("Blog"), order: 2, category: "content", parent: { link_type: "Any" } },
  }),
  doc({ id: "legal", type: "page", uid: "legal", data: { title: [], order: 5, category: "" } }),
  doc({
    id: "faq",
    type: "page",
    uid: "faq",
    tags: ["company"],
    data: { title: title("FAQ"), order: 2, category: "content", parent: link("about") },
  }),
]);

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

type Params = Record<string, string> | Array<[string, string]>;

function search(params: Params = {}): SearchResponse {
  return searchDocuments(fixture, new URLSearchParams(params), context);
}

/**
 * The fixture's documents with `field` behind a getter that counts its reads, as the store keeps
 * `data` (stored-document.ts, read from disk each time).
 */
function countingReads(field: "lang" | "data"): { documents: PrismicDocument[]; reads: () => number } {
  let count = 0;
  const documents = fixture.map((doc) => {
    const { [field]: value, ...rest } = doc;
    return Object.defineProperty({ ...rest }, field, {
      get: () => {
        count++;
        return value;
      },
      enumerable: true,
    }) as PrismicDocument;
  });
  return { documents, reads: () => count };
}

const ids = (params: Params = {}): string[] => search(params).results.map((d) => d.id);

function apiError(params: Params): ApiError {
  try {
    search(params);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error(`expected an ApiError for ${new URLSearchParams(params).toString()}`);
}

const byId = (response: SearchResponse, id: string): PrismicDocument => {
  const found = response.results.find((d) => d.id === id);
  if (!found) throw new Error(`${id} not in results`);
  return found;
};

const EN_ALL = [
  "home",
  "about",
  "contact",
  "settings",
  "pl-basic",
  "pl-pro",
  "pl-enterprise",
  "blog",
  "legal",
  "faq",
];
const EN_PAGES = ["home", "about", "contact", "blog", "legal", "faq"];

const routes: Route[] = [
  { type: "page", uid: "home", path: "/" },
  { type: "page", path: "/:uid" },
  { type: "price_list", path: "/price-list/:uid" },
];
const ROUTES = JSON.stringify(routes);

// ---------------------------------------------------------------------------

describe("q predicates", () => {
  it.each<[string, Params, string[]]>([
    ["no q: every master-language document in creation order", {}, EN_ALL],
    ["empty query", { q: "[]" }, EN_ALL],
    ["at document.type", { q: '[[at(document.type, "page")]]' }, EN_PAGES],
    ["at document.type of an unknown type (no error)", { q: '[[at(document.type, "nope")]]' }, []],
    [
      "not document.type",
      { q: '[[not(document.type, "page")]]' },
      ["settings", "pl-basic", "pl-pro", "pl-enterprise"],
    ],
    [
      "any document.type",
      { q: '[[any(document.type, ["settings", "price_list"])]]' },
      ["settings", "pl-basic", "pl-pro", "pl-enterprise"],
    ],
    ["at document.id", { q: '[[at(document.id, "about")]]' }, ["about"]],
    ["not document.id", { q: '[[not(document.id, "home")]]' }, EN_ALL.slice(1)],
    ["any document.id keeps creation order", { q: '[[any(document.id, ["faq", "home"])]]' }, ["home", "faq"]],
    ["in document.id", { q: '[[in(document.id, ["faq", "home", "missing"])]]' }, ["home", "faq"]],
    // Read from the index by id (search.ts), every other predicate still applies to those documents.
    [
      "in document.id with another predicate",
      { q: '[[in(document.id, ["faq", "home", "pl-pro"])][at(document.type, "price_list")]]' },
      ["pl-pro"],
    ],
    ["at document.id of no document", { q: '[[at(document.id, "missing")]]' }, []],
    [
      "at document.tags with one tag",
      { q: '[[at(document.tags, "featured")]]' },
      ["home", "about", "pl-pro"],
    ],
    [
      "at document.tags with a list: all of them",
      { q: '[[at(document.tags, ["company", "featured"])]]' },
      ["about"],
    ],
    [
      "any document.tags",
      { q: '[[any(document.tags, ["company", "pricing"])]]' },
      ["about", "pl-basic", "pl-pro", "pl-enterprise", "faq"],
    ],
    [
      "not document.tags",
      { q: '[[not(document.tags, "pricing")]]' },
      ["home", "about", "contact", "settings", "blog", "legal", "faq"],
    ],
    ["at document.lang", { q: '[[at(document.lang, "fr-fr")]]', lang: "*" }, ["about-fr", "pl-fr"]],
    [
      "at first_publication_date, a day",
      { q: '[[at(document.first_publication_date, "2024-01-02")]]' },
      ["about"],
    ],
    [
      "at first_publication_date, epoch ms",
      { q: `[[at(document.first_publication_date, ${Date.UTC(2024, 0, 3, 10)})]]` },
      ["contact"],
    ],
    [
      "not last_publication_date",
      { q: '[[not(document.last_publication_date, "2024-03-12T10:00:00+0000")][at(document.type, "page")]]' },
      EN_PAGES.slice(1),
    ],
    ["at my.<type>.uid", { q: '[[at(my.page.uid, "home")]]' }, ["home"]],
    ["any my.<type>.uid", { q: '[[any(my.page.uid, ["contact", "about"])]]' }, ["about", "contact"]],
    ["in my.<type>.uid", { q: '[[in(my.page.uid, ["faq", "legal"])]]' }, ["legal", "faq"]],
    [
      "my.<type>.uid is scoped to the type",
      { q: '[[in(my.price_list.uid, ["basic", "home"])]]' },
      ["pl-basic"],
    ],
    ["not my.<type>.uid only returns that type", { q: '[[not(my.page.uid, "home")]]' }, EN_PAGES.slice(1)],
    ["at a select field", { q: '[[at(my.page.category, "company")]]' }, ["about"]],
    ["at a number field", { q: "[[at(my.price_list.amount, 10)]]" }, ["pl-basic"]],
    ["at a boolean field (true)", { q: "[[at(my.page.visible, true)]]" }, ["home"]],
    ["at a boolean field (false)", { q: "[[at(my.page.visible, false)]]" }, ["about"]],
    ["any a text field", { q: '[[any(my.price_list.currency, ["USD", "GBP"])]]' }, ["pl-pro"]],
    ["not a text field (same type only)", { q: '[[not(my.price_list.currency, "EUR")]]' }, ["pl-pro"]],
    ["at a link field compares the linked id", { q: '[[at(my.page.parent, "home")]]' }, ["about"]],
    ["any a link field", { q: '[[any(my.page.parent, ["about", "gone"])]]' }, ["contact", "faq"]],
    [
      "has a link field (empty link is not filled)",
      { q: "[[has(my.page.parent)]]" },
      ["about", "contact", "faq"],
    ],
    ["missing a link field", { q: "[[missing(my.page.parent)]]" }, ["home", "blog", "legal"]],
    [
      "has a rich text field ([] is not filled)",
      { q: "[[has(my.page.title)]]" },
      EN_PAGES.filter((id) => id !== "legal"),
    ],
    ['missing a select field (null and "")', { q: "[[missing(my.page.category)]]" }, ["contact", "legal"]],
    ["has my.<type>.uid", { q: "[[has(my.price_list.uid)]]" }, ["pl-basic", "pl-pro", "pl-enterprise"]],
    [
      "predicates AND together",
      {
        q: '[[at(document.type, "page")][any(document.tags, ["featured", "company"])][not(my.page.uid, "faq")]]',
      },
      ["home", "about"],
    ],
    [
      "several q values AND together",
      [
        ["q", '[[at(document.type, "page")]]'],
        ["q", '[[at(document.tags, "company")]]'],
      ],
      ["about", "faq"],
    ],
    [
      "whitespace and escaped quotes",
      { q: ' [ [ at ( my.settings.tagline ,\n "Say \\"hi\\"" ) ] [has(my.settings.web)] ] ' },
      ["settings"],
    ],
    ["the :d = binding of Prismic's href", { q: '[[:d = at(document.id, "faq") ]]' }, ["faq"]],
  ])("%s", (_name, params, expected) => {
    expect(ids(params)).toEqual(expected);
  });
});

describe("lang", () => {
  it.each<[string, Params, string[]]>([
    ["defaults to the master language", {}, EN_ALL],
    ["exact match", { lang: "fr-fr" }, ["about-fr", "pl-fr"]],
    ["* is every language", { lang: "*" }, fixture.map((d) => d.id)],
    ["an unknown language matches nothing", { lang: "de-de" }, []],
    ["applies together with q", { lang: "fr-fr", q: '[[at(document.type, "price_list")]]' }, ["pl-fr"]],
  ])("%s", (_name, params, expected) => {
    expect(ids(params)).toEqual(expected);
  });
});

describe("pagination", () => {
  it("defaults to page 1 of 20", () => {
    const response = search();
    expect(response).toMatchObject({
      page: 1,
      results_per_page: 20,
      results_size: 10,
      total_results_size: 10,
      total_pages: 1,
      next_page: null,
      prev_page: null,
      version: expect.any(String),
      license: "All Rights Reserved",
    });
  });

  it.each<[string, Params, Partial<SearchResponse>, string[]]>([
    [
      "first page",
      { pageSize: "4" },
      { page: 1, results_size: 4, total_pages: 3, next_page: `${SEARCH}?pageSize=4&page=2`, prev_page: null },
      EN_ALL.slice(0, 4),
    ],
    [
      "middle page",
      { pageSize: "4", page: "2" },
      { page: 2, next_page: `${SEARCH}?pageSize=4&page=3`, prev_page: `${SEARCH}?pageSize=4&page=1` },
      EN_ALL.slice(4, 8),
    ],
    [
      "last page",
      { page: "3", pageSize: "4" },
      { results_size: 2, total_results_size: 10, next_page: null, prev_page: `${SEARCH}?page=2&pageSize=4` },
      EN_ALL.slice(8),
    ],
    [
      "past the last page",
      { page: "5", pageSize: "4" },
      { results_size: 0, total_pages: 3, next_page: null, prev_page: `${SEARCH}?page=4&pageSize=4` },
      [],
    ],
    ["page size 1", { pageSize: "1", page: "10" }, { total_pages: 10, next_page: null }, ["faq"]],
    ["page size 100", { pageSize: "100" }, { results_per_page: 100, total_pages: 1 }, EN_ALL],
    [
      "no results",
      { q: '[[at(document.type, "nope")]]' },
      { total_results_size: 0, total_pages: 0, next_page: null },
      [],
    ],
  ])("%s", (_name, params, expected, expectedIds) => {
    const response = search(params);
    expect(response).toMatchObject(expected);
    expect(response.results.map((d) => d.id)).toEqual(expectedIds);
  });

  it("keeps every other parameter in next_page and prev_page", () => {
    const q = '[[at(document.type, "page")]]';
    const response = search([
      ["ref", "master-ref"],
      ["q", q],
      ["page", "2"],
      ["pageSize", "2"],
      ["orderings", "[my.page.order]"],
    ]);
    const next = new URL(response.next_page ?? "");
    expect(`${next.origin}${next.pathname}`).toBe(SEARCH);
    expect([...next.searchParams]).toEqual([
      ["ref", "master-ref"],
      ["q", q],
      ["page", "3"],
      ["pageSize", "2"],
      ["orderings", "[my.page.order]"],
    ]);
    // Following the URL gives the next page.
    const following = searchDocuments(fixture, next.searchParams, context);
    expect(following.results.map((d) => d.id)).toEqual(["legal", "contact"]);
    expect(new URL(response.prev_page ?? "").searchParams.get("page")).toBe("1");
  });

  it.each<[string, Params, string[], number]>([
    [
      "after a document in creation order",
      { q: '[[at(document.type, "page")]]', after: "about" },
      EN_PAGES.slice(2),
      4,
    ],
    [
      "after follows the ordering",
      { q: '[[at(document.type, "page")]]', orderings: "[my.page.order desc]", after: "about" },
      ["blog", "faq", "home", "contact"],
      4,
    ],
    ["after the last document", { after: "faq" }, [], 0],
    ["after an unknown id: empty, not from the start", { after: "nope" }, [], 0],
    [
      "after a document the query filtered out: empty",
      { q: '[[at(document.type, "page")]]', after: "settings" },
      [],
      0,
    ],
    ["after with a page size", { after: "home", pageSize: "2" }, ["about", "contact"], 9],
  ])("%s", (_name, params, expected, total) => {
    const response = search(params);
    expect(response.results.map((d) => d.id)).toEqual(expected);
    expect(response.total_results_size).toBe(total);
  });
});

describe("orderings", () => {
  const pages = '[[at(document.type, "page")]]';
  it.each<[string, Params, string[]]>([
    [
      "number ascending, nulls last",
      { q: pages, orderings: "[my.page.order]" },
      ["home", "blog", "faq", "about", "legal", "contact"],
    ],
    [
      "explicit asc",
      { q: pages, orderings: "[my.page.order asc]" },
      ["home", "blog", "faq", "about", "legal", "contact"],
    ],
    [
      "number descending: ties keep creation order, nulls still last",
      { q: pages, orderings: "[my.page.order desc]" },
      ["legal", "about", "blog", "faq", "home", "contact"],
    ],
    [
      "rich text by plain text, empty last",
      { q: pages, orderings: "[my.page.title]" },
      ["about", "blog", "contact", "faq", "home", "legal"],
    ],
    [
      "rich text descending",
      { q: pages, orderings: "[my.page.title desc]" },
      ["home", "faq", "contact", "blog", "about", "legal"],
    ],
    [
      "several keys",
      { q: pages, orderings: "[my.page.order desc, my.page.title desc]" },
      ["legal", "about", "faq", "blog", "home", "contact"],
    ],
    [
      "first_publication_date desc",
      { q: pages, orderings: "[document.first_publication_date desc]" },
      [...EN_PAGES].reverse(),
    ],
    [
      "last_publication_date (decreasing with creation here)",
      { q: pages, orderings: "[document.last_publication_date]" },
      [...EN_PAGES].reverse(),
    ],
    [
      "document.id",
      { q: pages, orderings: "[document.id desc]" },
      ["legal", "home", "faq", "contact", "blog", "about"],
    ],
    [
      "a field of another type: those documents sort last",
      { orderings: "[my.price_list.amount desc]" },
      ["pl-enterprise", "pl-pro", "pl-basic", "home", "about", "contact", "settings", "blog", "legal", "faq"],
    ],
    [
      "legacy form: several orderings values, with or without brackets",
      [
        ["q", '[[at(document.type, "price_list")]]'],
        ["orderings", "my.price_list.currency"],
        ["orderings", "[my.price_list.amount desc]"],
      ],
      ["pl-enterprise", "pl-basic", "pl-pro"],
    ],
    ["empty orderings: creation order", { q: pages, orderings: "[]" }, EN_PAGES],
  ])("%s", (_name, params, expected) => {
    expect(ids(params)).toEqual(expected);
  });
});

describe("route resolver", () => {
  it("fills url on documents", () => {
    const response = search({ routes: ROUTES, lang: "*" });
    const urls = Object.fromEntries(response.results.map((d) => [d.id, d.url]));
    expect(urls).toMatchObject({
      home: "/",
      about: "/about",
      "about-fr": "/a-propos",
      "pl-basic": "/price-list/basic",
      settings: null,
    });
  });

  it.each<[string, Route[], Record<string, string | null>]>([
    [
      ":lang?/:uid omits the master language",
      [{ type: "page", path: "/:lang?/:uid" }],
      { about: "/about", "about-fr": "/fr-fr/a-propos" },
    ],
    [
      ":lang/:uid always has it",
      [{ type: "page", path: "/:lang/:uid" }],
      { about: "/en-us/about", "about-fr": "/fr-fr/a-propos" },
    ],
    [
      "a lang-scoped route",
      [
        { type: "page", lang: "fr-fr", path: "/fr/:uid" },
        { type: "page", path: "/:uid" },
      ],
      { about: "/about", "about-fr": "/fr/a-propos" },
    ],
    [
      "the first fitting route wins",
      [
        { type: "page", path: "/:uid" },
        { type: "page", uid: "home", path: "/" },
      ],
      { home: "/home" },
    ],
    [
      "no route for the type: null",
      [{ type: "price_list", path: "/p/:uid" }],
      { home: null, "pl-basic": "/p/basic" },
    ],
    ["a document without uid skips a :uid route", [{ type: "settings", path: "/:uid" }], { settings: null }],
    [
      "an optional :uid? is left out",
      [{ type: "settings", path: "/settings/:uid?" }],
      { settings: "/settings" },
    ],
    ["an empty resolvers object is fine", [{ type: "page", path: "/:uid", resolvers: {} }], { faq: "/faq" }],
  ])("%s", (_name, routeList, expected) => {
    const response = search({ routes: JSON.stringify(routeList), lang: "*" });
    const urls = Object.fromEntries(response.results.map((d) => [d.id, d.url]));
    expect(urls).toMatchObject(expected);
  });

  it("refreshes document links in fields, slices and rich text spans", () => {
    const home = byId(search({ routes: ROUTES }), "home");
    expect(home.data.hero).toEqual({
      link_type: "Document",
      id: "pl-basic",
      uid: "basic",
      type: "price_list",
      tags: ["pricing"],
      lang: "en-us",
      slug: "basic",
      first_publication_date: "2024-01-06T10:00:00+0000",
      last_publication_date: "2024-03-07T10:00:00+0000",
      url: "/price-list/basic",
      isBroken: false,
    });
    const data = home.data as {
      body: Array<{ spans: Array<{ data?: Record<string, unknown> }> }>;
      slices: Array<{
        primary: { link: Record<string, unknown> };
        items: Array<{ link: Record<string, unknown> }>;
      }>;
    };
    expect(data.body[0]?.spans[0]?.data).toMatchObject({
      id: "about",
      type: "page",
      url: "/about",
      isBroken: false,
    });
    expect(data.body[0]?.spans[2]).toEqual({ start: 0, end: 3, type: "strong" });
    expect(data.slices[0]?.primary.link).toMatchObject({ id: "about", url: "/about", text: "Read more" });
    expect(data.slices[0]?.items[0]?.link).toMatchObject({
      id: "pl-pro",
      url: "/price-list/pro",
      tags: ["pricing", "featured"],
    });
  });

  it("links in other documents and Web links", () => {
    const settings = byId(search({ routes: ROUTES }), "settings");
    expect(settings.data.footer_link).toMatchObject({ id: "contact", url: "/contact" });
    expect(settings.data.web).toEqual({ link_type: "Web", url: "https://example.com" });
  });

  const broken = {
    link_type: "Document",
    id: "gone",
    type: "broken_type",
    tags: [],
    slug: "-",
    lang: "en-us",
    first_publication_date: null,
    last_publication_date: null,
    isBroken: true,
  };

  it.each<[string, Params, string | null]>([
    ["broken link with brokenRoute", { routes: ROUTES, brokenRoute: "/404" }, "/404"],
    ["broken link without brokenRoute", { routes: ROUTES }, null],
    ["brokenRoute without routes is not used", { brokenRoute: "/404" }, null],
  ])("%s", (_name, params, url) => {
    const response = search(params);
    expect(byId(response, "contact").data.parent).toEqual({ ...broken, url });
    const span = (byId(response, "home").data.body as Array<{ spans: Array<{ data: unknown }> }>)[0]?.spans[1]
      ?.data;
    expect(span).toEqual({ ...broken, url });
  });

  it("without routes every url is null but links are still refreshed", () => {
    const response = search();
    expect(response.results.every((d) => d.url === null)).toBe(true);
    expect(byId(response, "about").data.parent).toMatchObject({
      id: "home",
      type: "page",
      uid: "home",
      url: null,
    });
  });

  it("sets Prismic's href and never mutates the input", () => {
    const about = byId(search({ routes: ROUTES }), "about");
    const href = new URL(about.href);
    expect(`${href.origin}${href.pathname}`).toBe(SEARCH);
    expect([...href.searchParams]).toEqual([
      ["ref", "master-ref"],
      ["q", '[[:d = at(document.id, "about") ]]'],
    ]);
    // Following the href finds the document again.
    const again = searchDocuments(fixture, new URL(about.href).searchParams, context);
    expect(again.results.map((d) => d.id)).toEqual(["about"]);
    // The fixture is frozen: reaching here means nothing was written to it.
    expect(fixture[1]?.href).toBe("stale-href");
    expect(about.data).not.toBe(fixture[1]?.data);
  });
});

describe("fetchLinks and fetch", () => {
  it("adds the listed fields of linked documents of that type", () => {
    const home = byId(search({ fetchLinks: "price_list.title,price_list.currency" }), "home");
    expect((home.data.hero as { data?: unknown }).data).toEqual({ title: title("Basic"), currency: "EUR" });
    const slices = home.data.slices as Array<{ items: Array<{ link: { data?: unknown } }> }>;
    expect(slices[0]?.items[0]?.link.data).toEqual({ title: title("Pro"), currency: "USD" });
    // A link to a page gets no data: only price_list fields were asked for.
    const spans = (home.data.body as Array<{ spans: Array<{ data: object }> }>)[0]?.spans;
    expect(spans?.[0]?.data).not.toHaveProperty("data");
  });

  it.each<[string, Params, unknown]>([
    ["bracketed form", { fetchLinks: "[page.title]" }, { title: title("Welcome") }],
    [
      "a field the target lacks is left out",
      { fetchLinks: "page.title,page.nope" },
      { title: title("Welcome") },
    ],
    [
      "several values",
      [
        ["fetchLinks", "page.order"],
        ["fetchLinks", "page.visible"],
      ],
      { order: 1, visible: true },
    ],
  ])("%s", (_name, params, expected) => {
    expect((byId(search(params), "about").data.parent as { data?: unknown }).data).toEqual(expected);
  });

  it("fetch keeps only the listed data fields", () => {
    const response = search({
      fetch: "page.title,page.order",
      q: '[[any(document.type, ["page", "settings"])]]',
    });
    expect(byId(response, "about").data).toEqual({ title: title("About us"), order: 3 });
    expect(byId(response, "settings").data).toEqual({});
  });

  it("pages a listing at an immutable ref from one filtering of the repository, not one per page", () => {
    // Each document's `lang` read counted: every filtering reads it once per document.
    const { documents: counted, reads: langReads } = countingReads("lang");
    let reads = 0;
    const page = (matches: MatchCache | undefined, n: number) =>
      searchDocuments(counted, new URLSearchParams({ pageSize: "2", page: String(n) }), {
        ...context,
        ...(matches ? { matches } : {}),
      });
    const pages = page(undefined, 1).total_pages;
    expect(pages).toBeGreaterThan(3);
    reads = langReads();
    const uncached = Array.from({ length: pages }, (_, i) => page(undefined, i + 1).results.map((d) => d.id));
    // Every page filtered every document.
    const uncachedReads = langReads() - reads;
    expect(uncachedReads).toBeGreaterThanOrEqual(pages * fixture.length);
    reads = langReads();
    const matches = createMatchCache();
    const cached = Array.from({ length: pages }, (_, i) => page(matches, i + 1).results.map((d) => d.id));
    reads = langReads() - reads;
    expect(cached).toEqual(uncached);
    // One filtering for all of them: every page but the first skipped reading every document.
    expect(uncachedReads - reads).toBeGreaterThanOrEqual((pages - 1) * fixture.length);
  });

  it("fetch of uid alone (a build listing versions) leaves every document's data unread", () => {
    // As the store keeps documents (stored-document.ts): `data` read from disk by a getter, counted.
    const { documents: stored, reads } = countingReads("data");
    const list = (fetch: string) =>
      searchDocuments(
        stored,
        new URLSearchParams({ fetch, q: '[[any(document.type, ["page", "settings"])]]' }),
        context,
      );
    const versions = list("page.uid,settings.uid");
    expect(versions.results.length).toBeGreaterThan(2);
    expect(versions.results.every((doc) => Object.keys(doc.data).length === 0)).toBe(true);
    expect(reads()).toBe(0);
    // A data field named: each page's data is read (the settings' is not: none of its fields is named).
    const titles = list("page.uid,page.title");
    expect(reads()).toBe(titles.results.filter((doc) => doc.type === "page").length);
  });
});

describe("errors", () => {
  it("a parsing error carries its position as Prismic's bodies do: top level, and under pos", () => {
    const error = apiError({ q: '[[at(document.type "page")]]' });
    expect(error.status).toBe(400);
    const position = {
      line: 1,
      column: 20,
      id: 19,
      location: `[[at(document.type "page")]]\n${" ".repeat(19)}^`,
    };
    // Every key of Prismic's parsing-error body (ParsingErrorAPIResponse of @prismicio/client ≤ 7.20).
    expect(Object.keys(error.body).sort()).toEqual([
      "column",
      "id",
      "line",
      "location",
      "message",
      "pos",
      "type",
    ]);
    expect(error.body).toMatchObject({
      type: "parsing-error",
      message: expect.stringContaining('Unexpected "\\"page\\""'),
      ...position,
      pos: position,
    });
  });

  it.each<[string, Params, string, string, number?]>([
    ["unclosed query", { q: '[[at(document.type, "page")]' }, "parsing-error", "Unexpected end of input", 29],
    [
      "unterminated string",
      { q: '[[at(document.type, "page)]]' },
      "parsing-error",
      "Unterminated string",
      21,
    ],
    ["single quotes", { q: "[[at(document.type, 'page')]]" }, "parsing-error", "Unexpected character", 21],
    [
      "trailing garbage",
      { q: '[[at(document.type, "page")]] x' },
      "parsing-error",
      "expected the end of the query",
      31,
    ],
    [
      "no brackets",
      { q: 'at(document.type, "page")' },
      "parsing-error",
      "expected a query starting with [",
      1,
    ],
    ["nested list", { q: "[[any(document.id, [[1]])]]" }, "parsing-error", "expected a string, a number", 21],
    ["malformed number", { q: "[[at(my.page.order, 1x)]]" }, "parsing-error", "Malformed number", 21],
    ["wrong arity", { q: "[[at(document.type)]]" }, "parsing-error", "at() takes 2 arguments, got 1", 3],
    ["value where a path belongs", { q: '[[at("page", "page")]]' }, "parsing-error", "expects a path", 6],
    [
      "a list for a single-value path",
      { q: '[[at(document.type, ["page"])]]' },
      "parsing-error",
      "any()",
      21,
    ],
    [
      "a number for document.type",
      { q: "[[at(document.type, 1)]]" },
      "parsing-error",
      "a string for document.type",
      21,
    ],
    ["any without a list", { q: '[[any(document.type, "page")]]' }, "parsing-error", "a list", 22],
    ["a bad date", { q: '[[at(document.first_publication_date, "soon")]]' }, "parsing-error", "a date", 39],
    [
      "in on document.type",
      { q: '[[in(document.type, ["page"])]]' },
      "parsing-error",
      "in() only accepts document.id or my.<type>.uid",
      6,
    ],
    ["in on a field", { q: '[[in(my.page.category, ["a"])]]' }, "parsing-error", "in() only accepts", 6],
    ["has on a document path", { q: "[[has(document.tags)]]" }, "parsing-error", "has() only accepts my.", 7],
    ["an invalid path", { q: '[[at(foo.bar, "x")]]' }, "parsing-error", "Invalid path foo.bar", 6],
    ["my.<type> without field", { q: '[[at(my.page, "x")]]' }, "parsing-error", "Invalid path my.page", 6],
  ])("%s", (_name, params, type, message, column) => {
    const error = apiError(params);
    expect(error.status).toBe(400);
    expect(error.body.type).toBe(type);
    expect(error.body.message).toContain(message);
    if (column !== undefined) {
      expect(error.body).toMatchObject({ line: 1, column });
      expect(error.body.pos).toMatchObject({ line: 1, column });
    }
  });

  it.each<[string, Params, string]>([
    ["fulltext", { q: '[[fulltext(document, "hello")]]' }, "does not implement fulltext(...)"],
    ["similar", { q: '[[similar("home", 10)]]' }, "does not implement similar(...)"],
    ["number.lt", { q: "[[number.lt(my.price_list.amount, 100)]]" }, "does not implement number.lt(...)"],
    [
      "date.after",
      { q: "[[date.after(document.first_publication_date, 0)]]" },
      "does not implement date.after(...)",
    ],
    ["date.day-of-month", { q: "[[date.day-of-month(my.page.date, 3)]]" }, "date.day-of-month(...)"],
    [
      "geopoint.near",
      { q: "[[geopoint.near(my.page.place, 1, 2, 3)]]" },
      "does not implement geopoint.near(...)",
    ],
    ["an unknown predicate", { q: '[[foo(document.id, "x")]]' }, "Unknown predicate foo(...)"],
    ["a group sub-field path", { q: '[[at(my.page.group.field, "x")]]' }, "only top-level fields"],
    ["another document path", { q: '[[at(document.uid, "x")]]' }, "does not implement the path document.uid"],
    ["at on rich text", { q: '[[at(my.page.title, "Welcome")]]' }, "on a rich text field"],
    [
      "ordering by a link",
      { orderings: "[my.page.parent]", q: '[[at(document.type, "page")]]' },
      "cannot order by my.page.parent",
    ],
    ["ordering by a nested path", { orderings: "[my.page.group.field]" }, "only top-level fields"],
    [
      "route resolvers",
      { routes: '[{"type":"page","path":"/:parent/:uid","resolvers":{"parent":"parent"}}]' },
      "route resolvers",
    ],
    [
      "an unknown route placeholder",
      { routes: '[{"type":"page","path":"/:category/:uid"}]' },
      "placeholder :category",
    ],
    ["graphQuery", { graphQuery: "{ page { title } }" }, "does not implement graphQuery"],
    ["fetchLinks of a group field", { fetchLinks: "page.group.field" }, "inside groups"],
    ["an unknown parameter", { foo: "bar" }, "Unknown parameter: foo"],
  ])("unsupported: %s", (_name, params, message) => {
    const error = apiError(params);
    expect(error.status).toBe(400);
    expect(error.body.type).toBe("api_unsupported_error");
    expect(error.body.message).toContain(message);
  });

  it.each<[string, Params, string]>([
    ["pageSize 101", { pageSize: "101" }, "pageSize must be an integer between 1 and 100, got 101"],
    ["pageSize 0", { pageSize: "0" }, "between 1 and 100"],
    ["pageSize not an integer", { pageSize: "2.5" }, "pageSize must be an integer"],
    ["page 0", { page: "0" }, "page must be an integer of at least 1"],
    ["page not a number", { page: "two" }, "page must be an integer"],
    ["routes not JSON", { routes: "[{type:page}]" }, "routes is not valid JSON"],
    ["routes not an array", { routes: '{"type":"page","path":"/:uid"}' }, "routes must be a JSON array"],
    [
      "a route without path",
      { routes: '[{"type":"page"}]' },
      "routes[0].path must be a string starting with /",
    ],
    ["a route without type", { routes: '[{"path":"/"}]' }, "routes[0].type"],
    ["a route with a bad uid", { routes: '[{"type":"page","path":"/","uid":1}]' }, "routes[0].uid"],
    ["fetchLinks of an unknown type", { fetchLinks: "author.name" }, 'unknown type "author"'],
    ["fetchLinks without field", { fetchLinks: "price_list" }, "expected <type>.<field>"],
    ["fetch of an unknown type", { fetch: "author.name" }, 'unknown type "author"'],
    ["ordering with a bad direction", { orderings: "[my.page.order up]" }, "Invalid ordering"],
    ["ordering by an invalid path", { orderings: "[title]" }, "Invalid path title"],
    ["ordering by tags", { orderings: "[document.tags]" }, "Cannot order by document.tags"],
    ["unbalanced orderings", { orderings: "[my.page.order" }, "unbalanced brackets"],
  ])("invalid: %s", (_name, params, message) => {
    const error = apiError(params);
    expect(error.status).toBe(400);
    expect(error.body.type).toBe("api_validation_error");
    expect(error.body.message).toContain(message);
  });

  it("accepts and ignores what the client sends besides the query", () => {
    expect(
      ids({
        ref: "x",
        access_token: "t",
        integrationFieldsRef: "i",
        referer: "r",
        "x-c": "js-7.22.0",
        "x-d": "1",
      }),
    ).toEqual(EN_ALL);
  });
});

describe("requests built by @prismicio/client 7.22", () => {
  const run = (args: Parameters<typeof buildQueryURL>[1]) =>
    searchDocuments(fixture, new URL(buildQueryURL(BASE, args)).searchParams, context);

  it("a query with every parameter the client sends", () => {
    const response = run({
      ref: "master-ref",
      integrationFieldsRef: "integration-ref",
      accessToken: "secret",
      filters: [
        filter.at("document.type", "page"),
        filter.not("my.page.uid", "home"),
        filter.any("document.tags", ["company", "featured"]),
      ],
      orderings: [{ field: "my.page.order", direction: "desc" }, { field: "my.page.title" }],
      routes,
      brokenRoute: "/404",
      fetchLinks: ["page.title", "page.order"],
      fetch: ["page.title", "page.parent"],
      lang: "en-us",
      pageSize: 1,
      page: 1,
    });
    expect(response.results.map((d) => d.id)).toEqual(["about"]);
    expect(response.total_results_size).toBe(2);
    const about = byId(response, "about");
    expect(about.url).toBe("/about");
    expect(about.data).toEqual({
      title: title("About us"),
      parent: expect.objectContaining({ id: "home", url: "/", data: { title: title("Welcome"), order: 1 } }),
    });
    // The client's own next_page URL works too.
    const next = searchDocuments(fixture, new URL(response.next_page ?? "").searchParams, context);
    expect(next.results.map((d) => d.id)).toEqual(["faq"]);
  });

  it.each<[string, string[], string[]]>([
    ["getByUID", [filter.at("document.type", "page"), filter.at("my.page.uid", "about")], ["about"]],
    [
      "getByUIDs",
      [filter.at("document.type", "page"), filter.in("my.page.uid", ["faq", "home"])],
      ["home", "faq"],
    ],
    ["getByIDs", [filter.in("document.id", ["pl-pro", "settings"])], ["settings", "pl-pro"]],
    ["getAllByTag", [filter.any("document.tags", ["pricing"])], ["pl-basic", "pl-pro", "pl-enterprise"]],
    ["getAllByEveryTag", [filter.at("document.tags", ["pricing", "featured"])], ["pl-pro"]],
    ["has / missing", [filter.has("my.page.parent"), filter.missing("my.page.category")], ["contact"]],
    ["a number", [filter.at("my.price_list.amount", 50)], ["pl-pro"]],
    ["a boolean (not: unset fields count)", [filter.not("my.page.visible", true)], EN_PAGES.slice(1)],
    ["a value with a quote", [filter.at("my.settings.tagline", 'Say "hi"')], ["settings"]],
    [
      "a date as epoch ms",
      [filter.at("document.first_publication_date", new Date(Date.UTC(2024, 0, 2, 10)))],
      ["about"],
    ],
  ])("%s", (_name, filters, expected) => {
    expect(run({ ref: "master-ref", filters }).results.map((d) => d.id)).toEqual(expected);
  });

  it.each<[string, string]>([
    ["fulltext", filter.fulltext("document", "price")],
    ["dateAfter", filter.dateAfter("document.first_publication_date", new Date(0))],
    ["numberInRange", filter.numberInRange("my.price_list.amount", 1, 100)],
    ["similar", filter.similar("home", 10)],
  ])("refuses %s clearly", (_name, unsupported) => {
    expect(() => run({ ref: "master-ref", filters: [unsupported] })).toThrow(/does not implement/);
  });
});
