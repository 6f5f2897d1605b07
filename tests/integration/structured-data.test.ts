import type { PrismicDocument } from "@prismicio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ContentSource, createMemorySource } from "#content/source.ts";
import { buildSiteAssets, type SiteAssets } from "#web/assets.ts";
import { website } from "#web/website.ts";
import { stub } from "#worker/build/document-hash.ts";
import { localContentClient } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { nodesOf, problemsOf } from "../support/structured-data-rules.ts";

/**
 * Structured data (JSON-LD) made from content, and the page's own SEO switches:
 * every demo route rendered from the documents the real content client returns (urls filled by
 * the route resolver), its JSON-LD parsed and held to what Google's documentation requires
 * (tests/support/structured-data-rules.ts cites each page); then the content shapes editors and
 * older documents produce: fields absent (published before the model had them), empty, unsafe.
 */
const SITE_URL = "https://www.northwind.example";
const ID = {
  settings: "Z9nWsREAACUAx1Aa",
  home: "Z9nWtBEAACQAx1Bb",
  about: "Z9nWuhEAACMAx1Cc",
  pricing: "Z9nWvxEAACUAx1Ee",
  faq: "Z9nWwREAACMAx1Ff",
  websites: "Z9nWyREAACMAx1Ii",
};
/** Every demo route → the types its JSON-LD holds, in order (pages with none of these have no script). */
const EXPECTED: Record<string, string[]> = {
  "/": ["LocalBusiness", "WebSite", "OfferCatalog"],
  "/about": ["BreadcrumbList", "WebPage"],
  "/services": ["BreadcrumbList", "WebPage"],
  "/pricing": ["BreadcrumbList", "WebPage", "OfferCatalog", "OfferCatalog", "OfferCatalog"],
  // An FAQPage is a WebPage: the page is not described twice.
  "/faq": ["BreadcrumbList", "FAQPage"],
  "/contact": ["BreadcrumbList", "WebPage"],
  "/privacy": ["BreadcrumbList", "WebPage"],
  "/price-list/": ["BreadcrumbList", "WebPage"],
  "/price-list/websites": ["BreadcrumbList", "WebPage", "OfferCatalog"],
  "/price-list/care-plans": ["BreadcrumbList", "WebPage", "OfferCatalog"],
  "/price-list/workshops": ["BreadcrumbList", "WebPage", "OfferCatalog"],
};

let service: LocalPrismic;
let assets: SiteAssets;
let documents: PrismicDocument[];

type Doc = Omit<PrismicDocument, "data"> & { data: Record<string, unknown> };
const doc = (id: string) => documents.find((d) => d.id === id) as Doc;
/** The documents with `changed` in place of those with the same ids. */
const sourceWith = (...changed: Doc[]): ContentSource =>
  createMemorySource([
    ...documents.filter((d) => !changed.some((c) => c.id === d.id)),
    ...changed,
  ] as PrismicDocument[]);
const render = (path: string, source: ContentSource = createMemorySource(documents)) =>
  website.render(path, { source, siteUrl: SITE_URL, assets, mode: "production" });

/** The JSON-LD scripts of a page: jsonForScript writes no `<` inside, so the first `</script>` ends each. */
function jsonLd(html: string): Record<string, unknown>[] {
  const scripts = [...html.matchAll(/<script type="application\/ld\+json">([^<]*)<\/script>/g)];
  return scripts.flatMap((match) => nodesOf(JSON.parse(match[1] as string)));
}
const ofType = (html: string, type: string) => jsonLd(html).filter((node) => node["@type"] === type);
const canonicalOf = (html: string) => /<link rel="canonical" href="([^"]*)"\/>/.exec(html)?.[1];

beforeAll(async () => {
  service = await startLocalPrismic();
  const client = localContentClient(service.endpoint);
  const ref = await client.fetchMasterRef();
  documents = (await client.get({ ref, pageSize: 100 })).results;
  assets = (await buildSiteAssets()).assets;
});
afterAll(() => service.stop());

describe("JSON-LD on every demo route", () => {
  it.each(Object.entries(EXPECTED))("%s: %j, each with what Google requires", async (path, types) => {
    const { html } = await render(path);
    const nodes = jsonLd(html);
    expect(
      nodes.map((node) => node["@type"]),
      path,
    ).toEqual(types);
    expect(nodes.flatMap(problemsOf), path).toEqual([]);
    // At most one script, in <head>.
    expect(html.match(/application\/ld\+json/g) ?? []).toHaveLength(types.length > 0 ? 1 : 0);
    if (types.length > 0) expect(html.indexOf("application/ld+json")).toBeLessThan(html.indexOf("</head>"));
  });

  it("the home page: the business from settings (a LocalBusiness with its address) and the site", async () => {
    const { html } = await render("/");
    const [business] = ofType(html, "LocalBusiness");
    const settings = doc(ID.settings).data as Record<string, unknown>;
    expect(business).toMatchObject({
      "@id": `${SITE_URL}/#organization`,
      name: "Northwind Studio",
      url: `${SITE_URL}/`,
      telephone: "+15035550142",
      email: "hello@northwindstudio.example",
      address: {
        "@type": "PostalAddress",
        streetAddress: "1120 SE Morrison Street, Suite 204",
        addressLocality: "Portland",
        addressRegion: "OR",
        postalCode: "97214",
        addressCountry: "US",
      },
      logo: { "@type": "ImageObject", url: (settings.logo as { url: string }).url },
      sameAs: [
        "https://www.linkedin.com/company/northwind-studio-demo",
        "https://www.instagram.com/northwindstudio.demo",
        "https://github.com/northwind-studio-demo",
        "https://www.youtube.com/@northwindstudio-demo",
      ],
    });
    expect(ofType(html, "WebSite")).toEqual([
      {
        "@type": "WebSite",
        "@id": `${SITE_URL}/#website`,
        name: "Northwind Studio",
        url: `${SITE_URL}/`,
        publisher: { "@id": `${SITE_URL}/#organization` },
      },
    ]);
    // Only the home page names the business and the site.
    for (const path of ["/about", "/faq", "/price-list/websites"]) {
      const other = (await render(path)).html;
      expect(ofType(other, "LocalBusiness").length + ofType(other, "WebSite").length, path).toBe(0);
    }
  });

  it("the FAQ page: one FAQPage with each question and its answer as text", async () => {
    const { html } = await render("/faq");
    const [faq] = ofType(html, "FAQPage");
    const questions = faq?.mainEntity as { name: string; acceptedAnswer: { text: string } }[];
    expect(questions[0]).toEqual({
      "@type": "Question",
      name: "How long does a new website take?",
      acceptedAnswer: {
        "@type": "Answer",
        text: "A Launch site usually takes four to six weeks from the first workshop to going live. Growth sites take eight to twelve weeks, depending on how much content needs to move.",
      },
    });
    // As many as the page shows.
    expect(questions).toHaveLength((html.match(/<summary class="faq__question">/g) ?? []).length);
  });

  it("a plain page: where it sits (home › the page, by the title it shows) and the page itself", async () => {
    const { html } = await render("/about");
    const about = doc(ID.about).data as { meta_title?: string; meta_description?: string };
    expect(ofType(html, "BreadcrumbList")).toEqual([
      {
        "@type": "BreadcrumbList",
        itemListElement: [
          { "@type": "ListItem", position: 1, name: "Home", item: `${SITE_URL}/` },
          {
            "@type": "ListItem",
            position: 2,
            name: /<h1[^>]*>([^<]*)<\/h1>/.exec(html)?.[1],
            item: `${SITE_URL}/about`,
          },
        ],
      },
    ]);
    expect(ofType(html, "WebPage")).toEqual([
      {
        "@type": "WebPage",
        "@id": `${SITE_URL}/about#webpage`,
        url: `${SITE_URL}/about`,
        name: about.meta_title?.trim() || expect.any(String),
        ...(about.meta_description ? { description: about.meta_description.trim() } : {}),
        inLanguage: "en",
        isPartOf: { "@id": `${SITE_URL}/#website` },
      },
    ]);
    // Its title taken away: the heading it falls back to names it; still valid.
    const untitled = await render(
      "/about",
      sourceWith({ ...doc(ID.about), data: { ...doc(ID.about).data, title: [], meta_title: null } }),
    );
    expect(jsonLd(untitled.html).flatMap(problemsOf)).toEqual([]);
    expect(ofType(untitled.html, "WebPage")[0]?.name).toBe("About");
  });

  it("a price list: where it sits (breadcrumbs) and its rows as offers with price and currency", async () => {
    const { html } = await render("/price-list/websites");
    expect(ofType(html, "BreadcrumbList")).toEqual([
      {
        "@type": "BreadcrumbList",
        itemListElement: [
          { "@type": "ListItem", position: 1, name: "Home", item: `${SITE_URL}/` },
          { "@type": "ListItem", position: 2, name: "Price lists", item: `${SITE_URL}/price-list/` },
          {
            "@type": "ListItem",
            position: 3,
            name: "Website packages",
            item: `${SITE_URL}/price-list/websites`,
          },
        ],
      },
    ]);
    const [catalog] = ofType(html, "OfferCatalog");
    expect(catalog).toMatchObject({ url: `${SITE_URL}/price-list/websites`, name: "Website packages" });
    expect((catalog?.itemListElement as unknown[] | undefined)?.[0]).toEqual({
      "@type": "Offer",
      name: "Launch",
      itemOffered: {
        "@type": "Service",
        name: "Launch",
        description: "Up to 6 page types, a starter section library, CMS setup and one editor workshop.",
        category: "Websites",
      },
      price: 6500,
      priceCurrency: "USD",
      priceSpecification: {
        "@type": "UnitPriceSpecification",
        price: 6500,
        priceCurrency: "USD",
        unitText: "per project",
      },
    });
    expect(ofType((await render("/price-list/")).html, "BreadcrumbList")).toHaveLength(1);
  });

  it("a page embedding a price list shows its offers, and depends on the list (its edit re-renders the page)", async () => {
    const before = await render("/pricing");
    expect(before.dependencies).toContain(`doc:${ID.websites}`);
    const catalog = ofType(before.html, "OfferCatalog").find(
      (c) => c.url === `${SITE_URL}/price-list/websites`,
    );
    expect(catalog).toBeDefined();
    const list = doc(ID.websites);
    const rows = (list.data.rows as Record<string, unknown>[]).map((row, i) =>
      i === 0 ? { ...row, price: 7100 } : row,
    );
    const after = await render("/pricing", sourceWith({ ...list, data: { ...list.data, rows } }));
    const edited = ofType(after.html, "OfferCatalog").find(
      (c) => c.url === `${SITE_URL}/price-list/websites`,
    );
    expect((edited?.itemListElement as { price?: number }[] | undefined)?.[0]?.price).toBe(7100);
    expect(after.dependencies).toEqual(before.dependencies);
  });
});

describe("JSON-LD from content as editors and older documents leave it", () => {
  it("settings published before the structured-data fields: an Organization, no address, no throw", async () => {
    const settings = doc(ID.settings);
    const data = { ...settings.data };
    for (const key of [
      "business_type",
      "address_street",
      "address_locality",
      "address_region",
      "address_postal_code",
      "address_country",
    ])
      delete data[key];
    const { html, status } = await render("/", sourceWith({ ...settings, data }));
    expect(status).toBe(200);
    const [organization] = ofType(html, "Organization");
    expect(organization).toMatchObject({ name: "Northwind Studio", telephone: "+15035550142" });
    expect(organization).not.toHaveProperty("address");
    expect(ofType(html, "LocalBusiness")).toEqual([]);
  });

  it("a LocalBusiness without street and city stays an Organization (Google requires the address)", async () => {
    const settings = doc(ID.settings);
    const data = { ...settings.data, address_street: null, address_locality: "" };
    const { html } = await render("/", sourceWith({ ...settings, data }));
    expect(ofType(html, "LocalBusiness")).toEqual([]);
    expect(ofType(html, "Organization")).toHaveLength(1);
  });

  it("leaves out what is unsafe or too small: a logo under 112 px, a javascript: or mailto: profile, a bad email", async () => {
    const settings = doc(ID.settings);
    const logo = settings.data.logo as { dimensions: { width: number; height: number } };
    const data = {
      ...settings.data,
      logo: { ...logo, dimensions: { width: 400, height: 100 } },
      contact_email: "not an email",
      social_links: [
        { network: "x", link: { link_type: "Web", url: "javascript:alert(1)" } },
        { network: "github", link: { link_type: "Web", url: "mailto:hello@example.com" } },
        { network: "linkedin", link: { link_type: "Web", url: "https://www.linkedin.com/company/x" } },
        { network: "youtube", link: { link_type: "Any" } },
      ],
    };
    const { html } = await render("/", sourceWith({ ...settings, data }));
    const [business] = ofType(html, "LocalBusiness");
    expect(business).not.toHaveProperty("logo");
    expect(business).not.toHaveProperty("email");
    expect(business?.sameAs).toEqual(["https://www.linkedin.com/company/x"]);
    expect(jsonLd(html).flatMap(problemsOf)).toEqual([]);
  });

  it("no brand name: no organization and no site node, the page still renders", async () => {
    const settings = doc(ID.settings);
    const { html, status } = await render(
      "/",
      sourceWith({ ...settings, data: { ...settings.data, brand_name: null } }),
    );
    expect(status).toBe(200);
    expect(ofType(html, "LocalBusiness")).toEqual([]);
    expect(ofType(html, "WebSite")).toEqual([]);
  });

  it("FAQ items without a question or an answer are left out; two FAQ slices make one FAQPage", async () => {
    const faq = doc(ID.faq);
    const slices = faq.data.slices as { slice_type: string; items: Record<string, unknown>[] }[];
    const first = slices.find((s) => s.slice_type === "faq") as (typeof slices)[number];
    const shown = slices.filter((s) => s.slice_type === "faq").flatMap((s) => s.items).length;
    const items = [
      ...first.items,
      { question: "No answer yet?", answer: [] },
      { question: null, answer: [{ type: "paragraph", text: "An answer to nothing", spans: [] }] },
    ];
    const second = {
      ...first,
      id: "faq$second",
      items: [{ question: "Second slice?", answer: [{ type: "paragraph", text: "Yes.", spans: [] }] }],
    };
    const page = {
      ...faq,
      data: { ...faq.data, slices: [...slices.map((s) => (s === first ? { ...s, items } : s)), second] },
    };
    const { html } = await render("/faq", sourceWith(page));
    const pages = ofType(html, "FAQPage");
    expect(pages).toHaveLength(1);
    const names = ((pages[0]?.mainEntity ?? []) as { name: string }[]).map((q) => q.name);
    expect(names).toHaveLength(shown + 1);
    expect(names).not.toContain("No answer yet?");
    expect(names.at(-1)).toBe("Second slice?");
  });

  it("rows without a price are offers without price; the list's currency is used", async () => {
    const list = doc(ID.websites);
    const rows = (list.data.rows as Record<string, unknown>[]).map((row, i) =>
      i === 0 ? { ...row, price: null, unit: null } : row,
    );
    const { html } = await render(
      "/price-list/websites",
      sourceWith({ ...list, data: { ...list.data, currency: "EUR", rows } }),
    );
    const offers = ofType(html, "OfferCatalog")[0]?.itemListElement as Record<string, unknown>[];
    expect(offers[0]).not.toHaveProperty("price");
    expect(offers[0]).not.toHaveProperty("priceCurrency");
    expect(offers[1]).toMatchObject({ priceCurrency: "EUR" });
    expect(jsonLd(html).flatMap(problemsOf)).toEqual([]);
  });

  it("`</script>` and `<!--` inside content cannot end the script: escaped, and the JSON reads back the same", async () => {
    const hostile = 'Northwind </script><script>alert("x")</script><!-- & </SCRIPT >';
    const settings = doc(ID.settings);
    const { html } = await render(
      "/",
      sourceWith({ ...settings, data: { ...settings.data, brand_name: hostile } }),
    );
    const start = html.indexOf('<script type="application/ld+json">');
    const end = html.indexOf("</script>", start);
    const body = html.slice(start + '<script type="application/ld+json">'.length, end);
    expect(body).not.toMatch(/[<>]/);
    expect(body).not.toContain("</");
    expect(ofType(html, "LocalBusiness")[0]?.name).toBe(hostile);
    expect(ofType(html, "WebSite")[0]?.name).toBe(hostile);
  });
});

describe("the page's SEO fields: noindex and a canonical URL override", () => {
  const about = () => doc(ID.about);
  const withData = (data: Record<string, unknown>) => ({ ...about(), data: { ...about().data, ...data } });

  it("absent (a page published before the fields existed) is today's behaviour: indexed, listed, canonical to itself", async () => {
    const data = { ...about().data };
    delete data.noindex;
    delete data.canonical_url;
    const source = sourceWith({ ...about(), data });
    const { html } = await render("/about", source);
    expect(html).not.toContain('name="robots"');
    expect(canonicalOf(html)).toBe(`${SITE_URL}/about`);
    expect((await render("/sitemap.xml", source)).html).toContain(`<loc>${SITE_URL}/about</loc>`);
  });

  it("noindex: the robots meta, and the page leaves the sitemap", async () => {
    const source = sourceWith(withData({ noindex: true }));
    const { html } = await render("/about", source);
    expect(html).toContain('<meta name="robots" content="noindex"/>');
    const sitemap = (await render("/sitemap.xml", source)).html;
    expect(sitemap).not.toContain(`${SITE_URL}/about<`);
    expect(sitemap).toContain(`<loc>${SITE_URL}/faq</loc>`);
  });

  it("a canonical override to another page: its route, absolute (it follows renames); og:url too", async () => {
    const faq = doc(ID.faq);
    const link = {
      link_type: "Document",
      id: faq.id,
      type: "page",
      uid: "faq",
      url: "/faq",
      lang: "en-us",
      tags: [],
      isBroken: false,
    };
    const { html, dependencies } = await render("/about", sourceWith(withData({ canonical_url: link })));
    expect(canonicalOf(html)).toBe(`${SITE_URL}/faq`);
    expect(html).toContain(`<meta property="og:url" content="${SITE_URL}/faq"/>`);
    // The override links to the document: its rename re-renders this page.
    expect(dependencies).toContain(`url:${faq.id}`);
  });

  it("the sitemap lists only pages canonical to themselves: an override to another page or address leaves it out", async () => {
    const faq = doc(ID.faq);
    const toFaq = {
      link_type: "Document",
      id: faq.id,
      type: "page",
      uid: "faq",
      url: "/faq",
      lang: "en-us",
      tags: [],
      isBroken: false,
    };
    // A build's sitemap reads the page's stub (its SEO facts in `website.seo.stubData`'s shape): it
    // decides as the whole document does, and records the same dependencies (where the override
    // pointed included: a publish compares it with the index).
    const listed = async (canonical_url: unknown) => {
      const page = withData({ canonical_url });
      const [whole, asStub] = await Promise.all([
        render("/sitemap.xml", sourceWith(page)),
        render("/sitemap.xml", sourceWith(stub(page as PrismicDocument) as Doc)),
      ]);
      expect(asStub, `the stub of ${JSON.stringify(canonical_url)}`).toEqual(whole);
      return whole.html.includes(`<loc>${SITE_URL}/about</loc>`);
    };
    expect(await listed(toFaq)).toBe(false);
    expect(await listed({ link_type: "Web", url: "https://partner.example/about-us" })).toBe(false);
    // Canonical to itself, or an override the page ignores (broken, unsafe): listed.
    expect(await listed({ link_type: "Web", url: `${SITE_URL}/about` })).toBe(true);
    expect(await listed({ ...toFaq, id: ID.about, uid: "about", url: "/about" })).toBe(true);
    expect(
      await listed({
        link_type: "Document",
        id: "gone",
        type: "broken_type",
        isBroken: true,
        tags: [],
        lang: "en-us",
      }),
    ).toBe(true);
    expect(await listed({ link_type: "Web", url: "javascript:alert(1)" })).toBe(true);
    expect(await listed("https://not-a-link.example/")).toBe(true);
    // Where the target is decides: the sitemap depends on it (its rename or removal re-renders it).
    const { dependencies } = await render("/sitemap.xml", sourceWith(withData({ canonical_url: toFaq })));
    expect(dependencies).toContain(`url:${faq.id}`);
  });

  it("a canonical override to a web address: as given when http(s); refused when unsafe, a media file or broken", async () => {
    const web = await render(
      "/about",
      sourceWith(withData({ canonical_url: { link_type: "Web", url: "https://partner.example/about-us" } })),
    );
    expect(canonicalOf(web.html)).toBe("https://partner.example/about-us");
    for (const canonical_url of [
      { link_type: "Web", url: "javascript:alert(1)" },
      { link_type: "Web", url: "//evil.example/" },
      { link_type: "Web", url: "mailto:someone@example.com" },
      {
        link_type: "Media",
        kind: "document",
        name: "a.pdf",
        url: "https://images.prismic.io/a.pdf",
        size: "1",
      },
      { link_type: "Document", id: "gone", type: "broken_type", isBroken: true, tags: [], lang: "en-us" },
      { link_type: "Any" },
    ]) {
      const { html } = await render("/about", sourceWith(withData({ canonical_url })));
      expect(canonicalOf(html), JSON.stringify(canonical_url)).toBe(`${SITE_URL}/about`);
    }
  });
});
