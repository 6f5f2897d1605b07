/**
 * The site's frame rendered once and kept (web/src/components/shared-markup.tsx): every
 * route renders the same bytes and records the same dependencies with a fragment cache as without
 * one, whatever order the routes are rendered in and whatever the settings hold; and the cache
 * does its work (the footer rendered once for the whole site, counted, not timed).
 */
import type { PrismicDocument } from "@prismicio/client";
import { createElement as h } from "react";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemorySource } from "#content/source.ts";
import { buildSiteAssets, type SiteAssets } from "#web/assets.ts";
import { ContactFormView } from "#web/browser/islands/contact-form.tsx";
import { countryOptions } from "#web/browser/phone.ts";
import { createFragmentCache, type FragmentCache, SharedMarkup } from "#web/components/shared-markup.tsx";
import { renderHtml } from "#web/render-html.tsx";
import { website } from "#web/website.ts";
import { listDocuments } from "#worker/build/list-documents.ts";
import { localContentClient } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";

const SITE_URL = "https://www.northwind.example";
const ROUTES = [
  "/",
  "/about",
  "/services",
  "/pricing",
  "/faq",
  "/contact",
  "/privacy",
  "/price-list/websites",
  "/price-list/care-plans",
  "/price-list/workshops",
  "/price-list/",
  "/nope",
  "/_pressroom/500",
  "/_pressroom/503",
];

let service: LocalPrismic;
let assets: SiteAssets;
let documents: PrismicDocument[];

beforeAll(async () => {
  service = await startLocalPrismic();
  const client = localContentClient(service.endpoint, { timeoutMs: 5_000, cacheMaxEntries: 100 });
  // Every document as the API returns them (urls filled by the route resolver).
  documents = await listDocuments(client, await client.fetchMasterRef(), []);
  assets = (await buildSiteAssets()).assets;
});
afterAll(() => service.stop());

/** A cache that counts the fragments it had to render. */
function countingCache(): { cache: FragmentCache; renders: string[] } {
  const inner = createFragmentCache();
  const renders: string[] = [];
  return {
    renders,
    cache: {
      markup: (source, key, render) =>
        inner.markup(source, key, () => {
          renders.push(key);
          return render();
        }),
      inner: (source, key, render) =>
        inner.inner(source, key, () => {
          renders.push(`inner:${key}`);
          return render();
        }),
    },
  };
}

async function renderAll(docs: readonly PrismicDocument[], routes: readonly string[], cache?: FragmentCache) {
  const source = createMemorySource(docs);
  const rendered = new Map<string, { html: string; dependencies: string[] }>();
  for (const route of routes) {
    const { html, dependencies } = await website.render(route, {
      source,
      siteUrl: SITE_URL,
      assets,
      mode: "production",
      ...(cache ? { fragments: cache } : {}),
    });
    rendered.set(route, { html, dependencies });
  }
  return rendered;
}

/** The demo's documents with the settings document changed by `edit`. */
function withSettings(edit: (data: Record<string, unknown>) => void): PrismicDocument[] {
  return documents.map((doc) => {
    if (doc.type !== "settings") return doc;
    const data = structuredClone(doc.data) as Record<string, unknown>;
    edit(data);
    return { ...doc, data };
  });
}

async function expectSameEitherWay(docs: readonly PrismicDocument[]) {
  const plain = await renderAll(docs, ROUTES);
  // One cache for two passes in opposite orders: each route is rendered both from a fresh
  // fragment and from one another route made.
  const cache = createFragmentCache();
  for (const order of [ROUTES, [...ROUTES].reverse()]) {
    const cached = await renderAll(docs, order, cache);
    for (const route of ROUTES) expect(cached.get(route), route).toEqual(plain.get(route));
  }
}

describe("markup many pages share, rendered once", () => {
  it("every route renders the same bytes and dependencies with the cache as without it", async () => {
    await expectSameEitherWay(documents);
  });

  it("so do settings under other shapes: no navigation, no cookie notice, an image in the address", async () => {
    await expectSameEitherWay(
      withSettings((data) => {
        data.header_navigation = [];
        data.cookie_notice_text = [];
      }),
    );
    // Not in today's model, but sent by Prismic for a document written under an earlier one.
    await expectSameEitherWay(
      withSettings((data) => {
        data.address = [
          ...(data.address as unknown[]),
          {
            type: "image",
            url: "https://images.prismic.io/demo/office.jpg?auto=format",
            alt: "",
            copyright: null,
            dimensions: { width: 800, height: 600 },
          },
        ];
      }),
    );
  });

  it("renders the footer and cookie notice once for the whole site, the navigation once per entry marked", async () => {
    const { cache, renders } = countingCache();
    await renderAll(documents, ROUTES, cache);
    await renderAll(documents, ROUTES, cache);
    const count = (prefix: string) => renders.filter((key) => key.startsWith(prefix)).length;
    expect(count("footer:")).toBe(1);
    expect(count("island:cookie-notice:")).toBe(1); // its view (no props: no React hydrates it)
    // The header lists six entries: one variant each, and one for every route it does not list.
    const navVariants = renders.filter((key) => key.startsWith("nav:"));
    expect(new Set(navVariants).size).toBe(navVariants.length);
    expect(navVariants).toContain("nav:");
    expect(navVariants.length).toBeLessThanOrEqual(7);
    expect(count("island:mobile-menu:")).toBe(2 * navVariants.length);
    // Each price list's table once, however many pages show it (its own page, /pricing's sections).
    expect(count("div:price-table")).toBe(documents.filter((doc) => doc.type === "price_list").length);
    // The contact form's ~245 country options: once per default country, not once per form.
    expect(renders.filter((key) => key.startsWith("inner:country-options:"))).toEqual([
      "inner:country-options:US",
    ]);
  });

  it("the contact form's country options: the same bytes from the cache, the default country selected", () => {
    const countries = countryOptions();
    const form = (id: string, defaultCountry: string) =>
      h(ContactFormView, { id, action: "/api/contact", successMessage: "", defaultCountry, countries });
    const cache = createFragmentCache();
    for (const [id, country] of [
      ["a", "GB"],
      ["b", "GB"],
      ["c", ""],
      ["d", "CI"],
      ["e", ""],
    ] as const) {
      const plain = renderHtml(form(id, country));
      expect(renderHtml(form(id, country), cache), `${id} ${country}`).toBe(plain);
      if (country === "") expect(plain).toContain('<option value="" selected="">Country…</option>');
      else expect(plain).toContain(`<option value="${country}" selected="">`);
      expect(plain.match(/<option /g)?.length).toBe(countries.length + (country === "" ? 1 : 0));
      expect(plain).toContain(`id="${id}-country"`);
    }
  });

  it("a fragment whose render puts something in <head> (an eager image's preload) is rendered in place", () => {
    const source = {};
    const page = () =>
      h(
        "html",
        { lang: "en" },
        h("head"),
        h(
          "body",
          null,
          h(SharedMarkup, {
            as: "div",
            className: "logo",
            source,
            cacheKey: "eager",
            // biome-ignore lint/correctness/noChildrenProp: SharedMarkup's children is a render function, not a node
            children: () => h("img", { src: "/assets/logo.png", alt: "", loading: "eager" }),
          }),
          h(SharedMarkup, {
            as: "footer",
            source,
            cacheKey: "plain",
            // biome-ignore lint/correctness/noChildrenProp: as above
            children: () => h("p", null, "plain"),
          }),
        ),
      );
    const { cache, renders } = countingCache();
    const plain = renderHtml(page());
    expect(plain).toContain('<head><link rel="preload" as="image" href="/assets/logo.png"/></head>');
    expect(renderHtml(page(), cache)).toBe(plain);
    expect(renderHtml(page(), cache)).toBe(plain);
    // Both tried once; the eager one was never kept, so it rendered in place each time since.
    expect(renders).toEqual(["div:eager", "footer:plain"]);
  });

  it("a new settings document is a new source: nothing of the old one is served", async () => {
    const cache = createFragmentCache();
    await renderAll(documents, ["/about"], cache);
    const renamed = withSettings((data) => {
      data.brand_name = "Southwind Studio";
      data.copyright_holder = "Southwind Studio LLC";
    });
    const [about] = (await renderAll(renamed, ["/about"], cache)).values();
    expect(about?.html).toContain("© ");
    expect(about?.html).toContain("Southwind Studio LLC");
    expect(about?.html).not.toContain("Northwind Studio LLC");
  });
});
