import { readFileSync } from "node:fs";
import type { PrismicDocument } from "@prismicio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContentClient } from "#content";
import { type ContentSource, createClientSource, createMemorySource } from "#content/source.ts";
import { withRequestId } from "#http/error-pages.ts";
import { buildSiteAssets, bundleSiteAssets, type SiteAssets } from "#web/assets.ts";
import { documentNotices } from "#web/content/index.ts";
import { RenderError, type RenderMode, renderRouteWithClient } from "#web/render.ts";
import { website } from "#web/website.ts";
import { localContentClient } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO = `${ROOT}services/local-prismic/demo/documents`;
const SITE_URL = "https://www.northwind.example";
const ID = {
  settings: "Z9nWsREAACUAx1Aa",
  home: "Z9nWtBEAACQAx1Bb",
  about: "Z9nWuhEAACMAx1Cc",
  services: "Z9nWvBEAACQAx1Dd",
  pricing: "Z9nWvxEAACUAx1Ee",
  faq: "Z9nWwREAACMAx1Ff",
  contact: "Z9nWxBEAACQAx1Gg",
  privacy: "Z9nWxxEAACUAx1Hh",
  websites: "Z9nWyREAACMAx1Ii",
  carePlans: "Z9nWzBEAACQAx1Jj",
  workshops: "Z9nWzxEAACUAx1Kk",
};
/** Every demo route → the document it shows. */
const DEMO_ROUTES: Record<string, string | undefined> = {
  "/": ID.home,
  "/about": ID.about,
  "/services": ID.services,
  "/pricing": ID.pricing,
  "/faq": ID.faq,
  "/contact": ID.contact,
  "/privacy": ID.privacy,
  "/price-list/websites": ID.websites,
  "/price-list/care-plans": ID.carePlans,
  "/price-list/workshops": ID.workshops,
  "/price-list/": undefined,
};
const ALL_ROUTES = [...Object.keys(DEMO_ROUTES), "/sitemap.xml", "/robots.txt", "/nope"];

const demoDoc = (id: string) => JSON.parse(readFileSync(`${DEMO}/${id}.json`, "utf8")) as PrismicDocument;

/** What a visitor reads: tags and React's text separators gone, entities decoded. */
const textOf = (html: string) =>
  html
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
const titleOf = (html: string) => textOf(/<title>([\s\S]*?)<\/title>/.exec(html)?.[1] ?? "");
/** The attributes of every `<name …>` tag, in any order (React decides the order). */
const elements = (html: string, name: string) =>
  [...html.matchAll(new RegExp(`<${name}\\b([^>]*?)/?>`, "g"))].map((m) =>
    Object.fromEntries([...(m[1] ?? "").matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])),
  ) as Record<string, string>[];
/** Documents a render showed (`doc:`) and documents it only linked to (`url:`). */
const deps = (...ids: string[]) => ids.map((id) => `doc:${id}`);
/** Where the demo's links point: a link records its target (`url:`) and where it pointed (`sees:`). */
const ROUTE: Record<string, string> = {
  [ID.about]: "/about",
  [ID.services]: "/services",
  [ID.pricing]: "/pricing",
  [ID.faq]: "/faq",
  [ID.contact]: "/contact",
  [ID.privacy]: "/privacy",
  [ID.carePlans]: "/price-list/care-plans",
  [ID.workshops]: "/price-list/workshops",
};
const urls = (...ids: string[]) => ids.flatMap((id) => [`url:${id}`, `sees:${id}:${ROUTE[id]}`]);
/** The footer's copyright year: every render with the layout records it (re-rendered when it turns). */
const YEAR = `year:${new Date().getUTCFullYear()}`;
/** What the navigation and footer (settings) link to: every route with the layout records them. */
const NAVIGATION = [
  ID.about,
  ID.services,
  ID.pricing,
  ID.faq,
  ID.contact,
  ID.privacy,
  ID.carePlans,
  ID.workshops,
];
const islandProps = (html: string, id: string) => {
  const match = new RegExp(`<script type="application/json" data-island-props="${id}">([^<]*)</script>`).exec(
    html,
  );
  return match ? JSON.parse(match[1] as string) : undefined;
};

function makeClient(service: LocalPrismic, fetchImpl?: typeof fetch): ContentClient {
  return localContentClient(
    service.endpoint,
    { timeoutMs: 5_000, cacheMaxEntries: 100 },
    fetchImpl ? { fetch: fetchImpl } : {},
  );
}

interface Warning {
  details: Record<string, unknown>;
  message?: string;
}

function collectingLogger() {
  const warnings: Warning[] = [];
  const errors: Warning[] = [];
  return {
    warnings,
    errors,
    logger: {
      warn: (details: object, message?: string) =>
        warnings.push({ details: details as Record<string, unknown>, message }),
      error: (details: object, message?: string) =>
        errors.push({ details: details as Record<string, unknown>, message }),
    },
  };
}

let service: LocalPrismic;
let client: ContentClient;
/** The demo content's ref, fixed before any test publishes. */
let demoRef: string;
let assets: SiteAssets;
/** Every document at demoRef, as the API returns them (urls filled). */
let documents: PrismicDocument[];

const render = (
  path: string,
  source: ContentSource = createClientSource(client, demoRef),
  mode: RenderMode = "production",
) => website.render(path, { source, siteUrl: SITE_URL, assets, mode });

beforeAll(async () => {
  service = await startLocalPrismic();
  client = makeClient(service);
  demoRef = await client.fetchMasterRef();
  assets = (await buildSiteAssets()).assets;
  documents = (await client.get({ ref: demoRef, pageSize: 100 })).results;
});
afterAll(() => service.stop());

describe("website.render through the content client: every demo route", () => {
  it.each(Object.entries(DEMO_ROUTES))(
    "%s renders a complete page with the layout",
    async (path, documentId) => {
      const result = await render(path);
      expect(result.status).toBe(200);
      expect(result.contentType).toBe("text/html; charset=utf-8");
      expect(result.documentId).toBe(documentId);
      const { html } = result;
      expect(html.startsWith('<!doctype html><html lang="en">')).toBe(true);
      expect(titleOf(html)).toMatch(/^.+ · Northwind Studio$/);
      expect(html).toContain('<meta charSet="utf-8"/>');
      expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
      expect(html).toContain(`<link rel="canonical" href="${SITE_URL}${path}"/>`);
      expect(html).toContain(`<meta property="og:url" content="${SITE_URL}${path}"/>`);
      expect(html).toContain('<meta property="og:site_name" content="Northwind Studio"/>');
      expect(html).toContain('<meta property="og:type" content="website"/>');
      expect(html).toContain(`<link rel="stylesheet" href="${assets.css}"/>`);
      expect(html).toContain(`<link rel="icon" href="${assets.favicon}" type="image/svg+xml"/>`);
      expect(html).toContain('<meta name="theme-color"');
      expect(html).not.toContain('name="robots"');
      // Exactly one h1 per page.
      expect(html.match(/<h1[\s>]/g)).toHaveLength(1);

      // Header: logo, brand, navigation resolved to routes, the no-JS mobile menu island.
      expect(html).toContain('<header class="site-header">');
      expect(html).toMatch(/<a class="brand" href="\/"/);
      expect(html).toMatch(/<a [^>]*href="\/services">Services<\/a>/);
      expect(html).toMatch(/<a [^>]*href="\/price-list\/care-plans">Care plans<\/a>/);
      expect(html).toMatch(/<div data-island="mobile-menu" data-island-id="mobile-menu"[^>]*><details/);
      // Footer: address, phone (international, dialled as E.164), email, social links with names, copyright.
      const text = textOf(html);
      expect(text).toContain("1120 SE Morrison Street, Suite 204");
      expect(html).toContain(
        '<a class="address__line address__contact" href="tel:+15035550142">+1 503 555 0142</a>',
      );
      expect(html).toContain('href="mailto:hello@northwindstudio.example"');
      expect(html).toContain('aria-label="Northwind Studio on LinkedIn"');
      expect(html).toContain('aria-label="Northwind Studio on GitHub"');
      expect(html).toContain('href="https://status.northwindstudio.example/"');
      expect(html).toContain(
        `<p class="copyright">© ${new Date().getUTCFullYear()} Northwind Studio LLC</p>`,
      );
      // Cookie notice: the settings text, the policy link, an island marker, and its two choices
      // hidden until the entry makes it live (no React: no props to hydrate from beside it).
      expect(html).toContain('data-island="cookie-notice"');
      expect(text).toContain("We use a few cookies to keep this site working");
      expect(html).toContain('<a href="/privacy">privacy policy</a>');
      expect(html).toContain(
        '<div class="cookie-notice__actions" hidden=""><button type="button" class="cookie-notice__choice" value="accepted">Accept</button><button type="button" class="cookie-notice__choice" value="declined">Decline</button></div>',
      );
      expect(html).not.toContain('data-island-props="cookie-notice"');
      expect(islandProps(html, "mobile-menu")).toMatchObject({ items: expect.any(Array) });

      // The page shows settings and itself (doc:), and links to what the navigation links to (url:,
      // or doc: where it also shows that document, e.g. its own route or an embedded price list).
      expect(result.dependencies).toEqual([...result.dependencies].sort());
      expect(result.dependencies).toContain(`doc:${ID.settings}`);
      for (const id of NAVIGATION) {
        expect(result.dependencies).toContain(
          id === documentId || result.dependencies.includes(`doc:${id}`) ? `doc:${id}` : `url:${id}`,
        );
      }
      if (documentId) expect(result.dependencies).toContain(`doc:${documentId}`);
    },
  );

  it("/ shows the hero, text, carousel and embedded price list", async () => {
    const { html, dependencies } = await render("/");
    const text = textOf(html);
    expect(titleOf(html)).toBe("Design and web studio in Portland, Oregon · Northwind Studio");
    expect(html).toContain('<h1 class="sr-only">Websites your team can keep up to date</h1>');
    expect(html).toContain('<p class="eyebrow">Design and web studio in Portland, Oregon</p>');
    expect(html).toContain('<h2 class="hero__heading">Websites that are a pleasure to run</h2>');
    expect(text).toContain("Eight people, one studio, and no hand-offs to strangers.");
    expect(html).toContain('<a class="button" href="/pricing">See our prices</a>');
    expect(html).toContain(
      '<a class="button button--secondary" href="/contact">Tell us about your project</a>',
    );
    // The first hero image is the page's main image; the others wait for the viewport.
    expect(html).toMatch(
      /<img src="http:\/\/127\.0\.0\.1:\d+\/assets\/images\/hero-studio\.jpg"[^>]*loading="eager" fetchPriority="high"/,
    );
    expect(html).toMatch(
      /<img src="[^"]*work-harbor-coffee\.jpg"[^>]*width="1600" height="900" loading="lazy"/,
    );
    expect(html).toContain('<meta property="og:image" content="http://127.0.0.1');
    // Text section: lists and a rich-text link resolved to its route.
    expect(text).toContain("Weekly demos on a working site, not a slide deck");
    expect(html).toContain('<a href="/services">services page</a>');
    // Carousel: every slide server-rendered, captions, external links, the island and its props.
    for (const caption of [
      "Harbor Coffee Roasters — a new shop and subscription site, launched in six weeks.",
      "Fernline Bikes — online repair booking for three workshops across the city.",
      "Alder Family Clinic — clear, accessible pages for patients in English and Spanish.",
      "Tidewater Books — an events calendar the staff update themselves, every single day.",
    ]) {
      expect(text).toContain(caption);
    }
    expect(html).toMatch(
      /<a target="_blank" class="carousel__link" href="https:\/\/harborcoffee\.example\/" rel="noreferrer">/,
    );
    const carouselId = "carousel-69ac2e75-0546-44f9-a6bc-6d75453a51fb";
    expect(html).toContain(`<div data-island="carousel" data-island-id="${carouselId}">`);
    const carousel = islandProps(html, carouselId) as { slides: Record<string, unknown>[] };
    expect(carousel).toMatchObject({
      label: "Recent work: slides",
      autoplay: true,
      delay: 3000,
      speed: 300,
      pauseOnHover: true,
      loop: true,
    });
    // The props carry what the view renders: image, resolved link, caption as HTML.
    expect(carousel.slides).toHaveLength(4);
    expect(carousel.slides[0]).toMatchObject({
      src: expect.stringMatching(/work-harbor-coffee\.jpg$/),
      width: 1600,
      height: 900,
      href: "https://harborcoffee.example/",
      target: "_blank",
      rel: "noreferrer",
      captionHtml: expect.stringContaining("<strong>Harbor Coffee Roasters</strong>"),
    });
    expect(html).toContain('<ul class="carousel__track" tabindex="0" aria-label="Recent work: slides">');
    // The embedded price list, fetched by id: heading, description, grouped rows, formatted prices.
    expect(html).toMatch(/<h2 class="section-heading" id="[^"]+">Website packages<\/h2>/);
    expect(text).toContain("Hosting is covered by a care plan.");
    expect(html).toContain('<a href="/price-list/care-plans">care plan</a>');
    expect(text).toMatch(
      /Websites[\s\S]*Launch[\s\S]*\$6,500[\s\S]*Growth[\s\S]*\$14,500[\s\S]*Add-ons[\s\S]*\$45/,
    );
    expect(html).toMatch(
      /<tr class="price-table__row is-highlighted" data-highlighted="true"><th scope="row" class="price-table__item"><span class="price-table__name">Growth/,
    );
    expect(text).toContain("Our most chosen package");
    expect(text).toContain("per project");
    // Shown: itself, settings, the embedded price list. Linked only: the rest, the care plans its
    // embedded list links to among them.
    expect(dependencies).toEqual(
      [...deps(ID.home, ID.settings, ID.websites), ...urls(...NAVIGATION), YEAR].sort(),
    );
  });

  it("/about: an ordered list and a carousel without autoplay", async () => {
    const { html } = await render("/about");
    expect(titleOf(html)).toBe("About Northwind Studio · Northwind Studio");
    expect(html).toContain('<h1 class="page-header__title">About Northwind Studio</h1>');
    expect(html).toContain("<ol><li><strong>Editors are users too.</strong>");
    expect(islandProps(html, "carousel-42319d76-f943-4748-a677-f362ba0fc217")).toMatchObject({
      autoplay: false,
      loop: true,
      slides: [{}, {}, {}],
    });
    // A carousel link to a price list resolves to its route.
    expect(html).toContain('<a class="carousel__link" href="/price-list/workshops">');
    expect(textOf(html)).toContain("Page outlines come before pixels.");
  });

  it("/services: a hero whose empty second call to action is left out", async () => {
    const { html, dependencies } = await render("/services");
    expect(titleOf(html)).toBe("Website design, care plans and workshops · Northwind Studio");
    expect(html).toContain('<a class="button" href="/pricing">Compare packages</a>');
    expect(html).not.toContain("button--secondary");
    expect(html).toContain('<a href="/price-list/workshops">workshops</a>');
    expect(dependencies).toEqual(expect.arrayContaining(urls(ID.workshops, ID.carePlans, ID.pricing)));
  });

  it("/pricing: three price lists, one without its description, all depended on", async () => {
    const { html, dependencies } = await render("/pricing");
    const text = textOf(html);
    expect(titleOf(html)).toBe("Pricing · Northwind Studio");
    expect(html).toContain('<a href="/contact">Ask us</a>');
    expect(html).toContain('<a href="/faq">FAQ</a>');
    expect(html).toMatch(/>Care plans<\/h2>/);
    expect(html).toMatch(/>Team workshops<\/h2>/);
    expect(text).toContain("Monthly plans that keep your site fast");
    // show_description is off for the workshops table.
    expect(text).not.toContain("Half-day sessions for up to eight people");
    expect(text).toMatch(
      /Workshops[\s\S]*Editor onboarding[\s\S]*\$1,200[\s\S]*per session[\s\S]*Coaching[\s\S]*\$150[\s\S]*per hour/,
    );
    expect(text).toContain("$1,250");
    expect(dependencies).toEqual(
      expect.arrayContaining(deps(ID.pricing, ID.websites, ID.carePlans, ID.workshops)),
    );
  });

  it("/faq: one <details> per question", async () => {
    const { html } = await render("/faq");
    expect(titleOf(html)).toBe("FAQ · Northwind Studio");
    expect(html.match(/<details class="faq__item">/g)).toHaveLength(8);
    expect(html).toContain('<summary class="faq__question">How long does a new website take?</summary>');
    expect(html).toContain('<summary class="faq__question">Can we cancel a care plan?</summary>');
    expect(html).toContain('<a href="/price-list/care-plans">care plan prices</a>');
    expect(textOf(html)).toContain("40% when the design is approved");
  });

  it("/contact: a real form with labels, required fields, a honeypot and the default country", async () => {
    const { html } = await render("/contact");
    const id = "contact-form-604cb42e-d21e-4003-ae07-bc74e364ecdb";
    expect(html).toContain(`<div data-island="contact-form" data-island-id="${id}">`);
    expect(elements(html, "form")).toEqual([
      { class: "contact-form", method: "post", action: "/api/contact", "data-default-country": "US" },
    ]);
    const field = (name: string) =>
      [...elements(html, "input"), ...elements(html, "textarea")].find((e) => e.name === name);
    // The phone number's country: a selector (named as the server reads it) on the slice's default.
    expect(elements(html, "select")).toEqual([
      { class: "field__input phone-field__country", id: `${id}-country`, name: "default_country" },
    ]);
    expect(html).toContain('<option value="US" selected="">United States (+1)</option>');
    expect(html).toContain('<option value="GB">United Kingdom (+44)</option>');
    expect(html).toContain(`for="${id}-country"`);
    expect(field("name")).toMatchObject({
      id: `${id}-name`,
      type: "text",
      autoComplete: "name",
      required: "",
    });
    expect(field("email")).toMatchObject({
      id: `${id}-email`,
      type: "email",
      autoComplete: "email",
      required: "",
    });
    expect(field("phone")).toMatchObject({ id: `${id}-phone`, type: "tel", autoComplete: "tel" });
    expect(field("phone")).not.toHaveProperty("required");
    expect(field("message")).toMatchObject({ id: `${id}-message`, required: "" });
    expect(field("website")).toMatchObject({ type: "text", tabindex: "-1", autoComplete: "off" });
    expect(html).toMatch(
      /<div class="contact-form__trap" aria-hidden="true"><label [^>]*>Leave this field empty<\/label>/,
    );
    // Every visible field has a label.
    for (const name of ["name", "email", "phone", "message", "website"]) {
      expect(html).toContain(`for="${id}-${name}"`);
    }
    expect(html).toContain('<button type="submit" class="button">Send message</button>');
    expect(islandProps(html, id)).toEqual({
      id,
      action: "/api/contact",
      successMessage: "Thank you — your message is on its way. We will reply within one working day.",
      defaultCountry: "US",
    });
    // The server names the countries in the selector's options, and only there: the island reads
    // them back from those (contact-form.client.tsx), so the browser renders the very same options.
    const options = [...html.matchAll(/<option value="([A-Z]{2})"[^>]*>([^<]*)<\/option>/g)];
    expect(options.map(([, code, label]) => ({ code, label }))).toContainEqual({
      code: "DE",
      label: "Germany (+49)",
    });
    expect(options.length).toBeGreaterThan(200);
    expect(html.match(/Germany \(\+49\)/g)).toHaveLength(1);
    expect(html).toContain('<p class="contact-form__status" role="status" aria-live="polite"></p>');
    expect(textOf(html)).toContain("We reply within one working day.");
    expect(html).toMatch(/<a href="tel:\+15035550142"[^>]*>\+1 503 555 0142<\/a>/);
  });

  it("/price-list/websites: the list on its own route", async () => {
    const { html, dependencies } = await render("/price-list/websites");
    expect(titleOf(html)).toBe("Website packages · Northwind Studio");
    expect(html).toContain('<h1 class="page-header__title">Website packages</h1>');
    expect(html).toContain(
      '<meta name="description" content="Design and build of a complete marketing website',
    );
    expect(textOf(html)).toMatch(/Websites[\s\S]*Flagship[\s\S]*\$32,000[\s\S]*from, per project/);
    expect(html).toContain('<a class="arrow-link" href="/price-list/">All price lists</a>');
    expect(dependencies).toEqual(
      expect.arrayContaining([...deps(ID.websites, ID.settings), ...urls(ID.carePlans)]),
    );
    expect(dependencies).not.toContain("type:price_list");
  });

  it("/price-list/ lists every price list, sorted, and depends on the type", async () => {
    const { html, dependencies, documentId } = await render("/price-list/");
    expect(documentId).toBeUndefined();
    expect(titleOf(html)).toBe("Price lists · Northwind Studio");
    const links = [...html.matchAll(/<h2 class="price-index__title"><a href="([^"]+)">([^<]+)<\/a>/g)].map(
      (m) => [m[1], m[2]],
    );
    expect(links).toEqual([
      ["/price-list/care-plans", "Care plans"],
      ["/price-list/websites", "Website packages"],
      ["/price-list/workshops", "Workshops"],
    ]);
    expect(textOf(html)).toContain("Half-day sessions for up to eight people");
    expect(textOf(html)).toContain("From $45");
    // The listing, not each member: the planner re-renders it when a list joins, leaves, moves or
    // changes (planner.ts); what the cards link to are urls.
    expect(dependencies).toEqual(
      [...deps(ID.settings), "type:price_list", ...urls(...NAVIGATION), YEAR].sort(),
    );
  });
});

describe("website.render: sitemap, robots, 404", () => {
  it("/sitemap.xml lists every page and price list route with the day of its last publication", async () => {
    const result = await render("/sitemap.xml");
    expect(result.status).toBe(200);
    expect(result.contentType).toBe("application/xml; charset=utf-8");
    const xml = result.html;
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
      ),
    ).toBe(true);
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(locs).toEqual(
      [
        "/",
        "/about",
        "/contact",
        "/faq",
        "/price-list/",
        "/price-list/care-plans",
        "/price-list/websites",
        "/price-list/workshops",
        "/pricing",
        "/privacy",
        "/services",
      ].map((path) => `${SITE_URL}${path}`),
    );
    expect(xml).toContain(`<url><loc>${SITE_URL}/about</loc><lastmod>2026-03-05</lastmod></url>`);
    expect(xml).toContain(`<url><loc>${SITE_URL}/</loc><lastmod>2026-03-02</lastmod></url>`);
    // The index changes when its newest list does.
    expect(xml).toContain(`<url><loc>${SITE_URL}/price-list/</loc><lastmod>2026-03-02</lastmod></url>`);
    expect(xml).not.toContain("/home");
    // Routes and dates only: the planner re-renders it when a document joins, leaves, moves or
    // changes its lastmod day, not on every edit.
    expect(result.dependencies).toEqual([
      "count:page",
      "count:price_list",
      "routes:page",
      "routes:price_list",
    ]);
  });

  it("/robots.txt allows everything and names the sitemap; a preview asks crawlers to stay out", async () => {
    const result = await render("/robots.txt");
    expect(result).toMatchObject({ status: 200, contentType: "text/plain; charset=utf-8", dependencies: [] });
    expect(result.html).toBe(`User-agent: *\nAllow: /\n\nSitemap: ${SITE_URL}/sitemap.xml\n`);
    const preview = await render("/robots.txt", undefined, "preview");
    expect(preview.html).toBe("User-agent: *\nDisallow: /\n");
  });

  it("unmatched paths and missing documents give the same 404 page, with the layout", async () => {
    const paths = [
      "/nope",
      "/Bad_Uid",
      "/../etc",
      "/home",
      "/no-such-page",
      "/price-list/no-such-list",
      "404",
    ];
    const results = await Promise.all(paths.map((path) => render(path)));
    const [first] = results;
    if (!first) throw new Error("no result");
    expect(first.status).toBe(404);
    expect(first.documentId).toBeUndefined();
    expect(titleOf(first.html)).toBe("Page not found · Northwind Studio");
    expect(first.html).toContain("This page could not be found");
    expect(first.html).toContain('<header class="site-header">');
    expect(first.html).toContain(
      `<p class="copyright">© ${new Date().getUTCFullYear()} Northwind Studio LLC</p>`,
    );
    expect(first.html).toContain('<meta name="robots" content="noindex"/>');
    expect(first.html).not.toContain('rel="canonical"');
    // Stored once as 404.html: the bytes must not depend on the path asked for.
    for (const result of results) {
      expect(result.status).toBe(404);
      expect(result.html).toBe(first.html);
      expect(result.dependencies).toEqual(first.dependencies);
    }
    // Settings and what the layout links to; no type dependency (see handlers/render-not-found.tsx).
    expect(first.dependencies).toContain(`doc:${ID.settings}`);
    expect(first.dependencies.some((d) => d.startsWith("type:"))).toBe(false);
    expect(first.dependencies).not.toContain(`doc:${ID.home}`);
  });
});

describe("website.render: the stored server error pages", () => {
  it.each([
    ["500", "Something went wrong on our side"],
    ["503", "This site is briefly unavailable"],
  ])(
    "%s renders in the site's look, with a hidden slot the server fills with the request id",
    async (route, title) => {
      const result = await render(route);
      expect(result.status).toBe(Number(route));
      expect(titleOf(result.html)).toBe(`${title} · Northwind Studio`);
      expect(result.html).toContain(`Error ${route}`);
      expect(result.html).toContain('<header class="site-header">');
      expect(result.html).toContain('<meta name="robots" content="noindex"/>');
      expect(result.html).toContain('<a class="button" href="/">Go to the home page</a>');
      expect(result.html).not.toContain('rel="canonical"');
      const filled = withRequestId(result.html, "0123abcd");
      expect(filled).not.toBe(result.html);
      expect(filled).toContain("Reference: <code>0123abcd</code>");
      // Only what it shows: settings and what the layout links to.
      expect(result.dependencies).toContain(`doc:${ID.settings}`);
      expect(result.dependencies.some((d) => d.startsWith("type:"))).toBe(false);
    },
  );
});

describe("website.render: escaping and embeds, through the edit API", () => {
  const PAGE_ID = "EscapeTestPage01";
  const hostileTitle = `<script>alert(1)</script> & "quotes"`;
  let ref: string;

  beforeAll(async () => {
    const about = demoDoc(ID.about);
    const page = {
      ...about,
      id: PAGE_ID,
      uid: "escape-test",
      slugs: ["escape-test"],
      data: {
        ...about.data,
        title: [{ type: "heading1", text: hostileTitle, spans: [] }],
        meta_title: null,
        meta_description: `"><script>alert("meta")</script>`,
        slices: [
          {
            slice_type: "text_section",
            slice_label: null,
            id: "text_section$escape",
            variation: "default",
            version: "initial",
            primary: {
              heading: [{ type: "heading2", text: "</h2><img src=x onerror=alert(5)>", spans: [] }],
              body: [
                { type: "paragraph", text: "Before the embeds <b>not bold</b>", spans: [] },
                {
                  type: "embed",
                  oembed: {
                    embed_url: "https://evil.example/video",
                    type: "rich",
                    title: "A hostile embed",
                    html: '<script>alert(2)</script><iframe src="https://evil.example/x"></iframe>',
                  },
                },
                {
                  type: "embed",
                  oembed: {
                    embed_url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
                    type: "video",
                    provider_name: "YouTube",
                    title: "A video",
                    width: 480,
                    height: 270,
                    html: '<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ?feature=oembed" onload="alert(3)" width="480" height="270"></iframe>',
                  },
                },
              ],
              embed: {
                embed_url: "https://vimeo.com/76979871",
                type: "video",
                provider_name: "Vimeo",
                title: "Studio tour",
                html: '<iframe src="https://player.vimeo.com/video/76979871" srcdoc="<script>alert(4)</script>"></iframe>',
              },
            },
            items: [],
          },
          {
            slice_type: "contact_form",
            slice_label: null,
            id: "contact_form$escape",
            variation: "default",
            version: "initial",
            primary: {
              heading: "Write <em>to</em> us",
              intro: [],
              success_message: "</script><script>alert(6)</script><!-- & \u2028",
              default_country: "US",
            },
            items: [],
          },
        ],
      },
    };
    const response = await fetch(`${service.url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ upsert: [page] }),
    });
    expect(response.status).toBe(200);
    ref = ((await response.json()) as { masterRef: string }).masterRef;
  });

  it("escapes every text and attribute, and lets no embed HTML through", async () => {
    const result = await renderRouteWithClient("/escape-test", {
      client,
      ref,
      siteUrl: SITE_URL,
      assets,
      mode: "production",
    });
    const { html } = result;
    expect(result.documentId).toBe(PAGE_ID);
    expect(html).toContain(
      "<title>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; · Northwind Studio</title>",
    );
    expect(html).toContain(
      '<h1 class="page-header__title">&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;</h1>',
    );
    expect(html).toContain('content="&quot;&gt;&lt;script&gt;alert(&quot;meta&quot;)&lt;/script&gt;"');
    expect(html).toContain("&lt;/h2&gt;&lt;img src=x onerror=alert(5)&gt;");
    expect(html).toContain("Before the embeds &lt;b&gt;not bold&lt;/b&gt;");
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("onload");
    expect(html).not.toContain("srcdoc");
    expect(html).not.toContain("evil.example/x");
    // The only scripts are the bundle's entry (from /assets/js/), JSON island props and the page's
    // JSON-LD (data blocks, with no `<` inside to end them): nothing inline runs.
    for (const match of html.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)) {
      if (match[1]?.startsWith(' type="module"'))
        expect(match[1]).toBe(` type="module" src="${assets.browser.entry}"`);
      else expect(match[1]).toMatch(/^ type="application\/(ld\+)?json"/);
    }
    expect(html.match(/<script/g)?.length).toBe(
      [...html.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)].length,
    );
    // A provider that is not allow-listed becomes a link; YouTube and Vimeo become clean players.
    expect(html).toContain('<a href="https://evil.example/video" rel="noreferrer">A hostile embed</a>');
    expect(html).toMatch(
      /<iframe src="https:\/\/www\.youtube-nocookie\.com\/embed\/dQw4w9WgXcQ" title="A video" loading="lazy"/,
    );
    expect(html).toMatch(
      /<iframe src="https:\/\/player\.vimeo\.com\/video\/76979871" title="Studio tour" loading="lazy"/,
    );
    // Sized by class, never an inline style (the site's CSP blocks those).
    expect(html).toContain('<div class="embed embed--16x9">');
    expect(html).not.toContain('style="aspect-ratio');
    // Island props: the JSON cannot close its script or open a comment, and still parses to the text.
    expect(html).not.toContain("</script><script>");
    expect(html).not.toContain("<!-- &");
    expect(islandProps(html, "contact-form-escape")).toMatchObject({
      successMessage: "</script><script>alert(6)</script><!-- & \u2028",
      defaultCountry: "US",
    });
    expect(html).toContain(">Write &lt;em&gt;to&lt;/em&gt; us</h2>");
  });
});

describe("buildSiteAssets", () => {
  it("builds the same content-hashed stylesheet, favicon and browser bundle every time", async () => {
    const [a, b] = await Promise.all([bundleSiteAssets(), bundleSiteAssets()]);
    // Built once per process: every later caller gets the same result.
    expect(buildSiteAssets()).toBe(buildSiteAssets());
    expect((await buildSiteAssets()).assets).toEqual(a.assets);
    expect(a.assets).toEqual(b.assets);
    expect(a.files.map((f) => f.body.toString("hex"))).toEqual(b.files.map((f) => f.body.toString("hex")));
    expect(a.assets.css).toMatch(/^\/assets\/site\.[0-9a-f]{10}\.css$/);
    expect(a.assets.favicon).toMatch(/^\/assets\/favicon\.[0-9a-f]{10}\.svg$/);
    expect(a.files.slice(0, 2).map((f) => [`/${f.key}`, f.contentType])).toEqual([
      [a.assets.css, "text/css; charset=utf-8"],
      [a.assets.favicon, "image/svg+xml"],
    ]);
    // The rest is JavaScript under /assets/js/, named by content hash, the entry among it.
    const scripts = a.files.slice(2);
    for (const file of scripts) {
      expect(file.key).toMatch(/^assets\/js\/(entry|chunk|[a-z-]+\.client)\.[A-Z0-9]{8}\.js$/);
      expect(file.contentType).toBe("text/javascript; charset=utf-8");
    }
    expect(scripts.map((f) => `/${f.key}`)).toContain(a.assets.browser.entry);
    const css = (a.files[0] as { body: Buffer }).body.toString("utf8");
    expect(css.startsWith(":root{--color-paper:#fffaf2;")).toBe(true);
    expect(css).not.toContain("/*");
    expect(css).not.toMatch(/https?:\/\/|@import|@font-face/);
    expect(css).toContain("prefers-reduced-motion");
    expect(css).toContain("calc((100% - var(--max-width)) / 2)");
  });
});

describe("website.render: sources, determinism, failures", () => {
  it("a memory source of the same documents renders byte-identical results", async () => {
    const memory = createMemorySource(documents);
    for (const path of ALL_ROUTES) {
      const [viaClient, viaMemory] = await Promise.all([render(path), render(path, memory)]);
      expect(viaMemory.html, path).toBe(viaClient.html);
      expect(viaMemory.dependencies, path).toEqual(viaClient.dependencies);
      expect(viaMemory.status, path).toBe(viaClient.status);
      expect(viaMemory.documentId, path).toBe(viaClient.documentId);
    }
  });

  it("renders the same content to the same bytes, whatever the order documents arrive in", async () => {
    const reversed = createMemorySource([...documents].reverse());
    const memory = createMemorySource(documents);
    for (const path of ALL_ROUTES) {
      const a = await render(path, memory);
      const b = await render(path, memory);
      const c = await render(path, reversed);
      expect(b.html, path).toBe(a.html);
      expect(c.html, path).toBe(a.html);
    }
  });

  it("asks the content API each question once per client source", async () => {
    let requests = 0;
    const counting = makeClient(service, (input, init) => {
      requests++;
      return fetch(input, init);
    });
    const source = createClientSource(counting, demoRef);
    await website.render("/", { source, siteUrl: SITE_URL, assets, mode: "production" });
    const first = requests;
    expect(first).toBeGreaterThan(0);
    await website.render("/", { source, siteUrl: SITE_URL, assets, mode: "production" });
    expect(requests).toBe(first);
  });

  it("leaves out a slice without a component in production (a notice of its document) and shows it in preview", async () => {
    const about = documents.find((doc) => doc.id === ID.about) as PrismicDocument;
    const page = structuredClone(about);
    page.data.slices.splice(1, 0, {
      slice_type: "testimonial",
      slice_label: null,
      id: "testimonial$1234",
      variation: "default",
      version: "initial",
      primary: { quote: "Great work" },
      items: [],
    });
    const source = createMemorySource([...documents.filter((doc) => doc.id !== ID.about), page]);
    const { logger, warnings } = collectingLogger();
    const production = await website.render("/about", {
      source,
      siteUrl: SITE_URL,
      assets,
      mode: "production",
      logger,
    });
    expect(production.status).toBe(200);
    expect(production.html).not.toContain("testimonial");
    expect(production.html).not.toContain("slice-missing");
    expect(textOf(production.html)).toContain("A small studio on purpose");
    expect(textOf(production.html)).toContain("What we believe");
    // Said once per publish where the document is read (the worker logs its notices), not per render.
    expect(warnings).toEqual([]);
    expect(documentNotices(page)).toEqual([
      expect.objectContaining({ documentId: ID.about, field: "slices[1]", kind: "unknown-slice" }),
    ]);

    const preview = await website.render("/about", {
      source,
      siteUrl: SITE_URL,
      assets,
      mode: "preview",
      logger,
    });
    expect(preview.html).toContain('<p class="slice-missing" role="note" data-slice-type="testimonial">');
    expect(textOf(preview.html)).toContain('No component renders the slice type "testimonial" yet');
    expect(preview.html).toContain('<meta name="robots" content="noindex"/>');
  });

  it("fails with an error naming the route and the document", async () => {
    // Content can no longer break a render (model-evolution.test.ts); a failure once the page is
    // known (here: loading the price lists its tables embed) still names both.
    const memory = createMemorySource(documents);
    const source: ContentSource = {
      ...memory,
      getByID: async () => {
        throw new TypeError("the price list could not be read");
      },
    };
    const error = await website
      .render("/pricing", {
        source,
        siteUrl: SITE_URL,
        assets,
        mode: "production",
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RenderError);
    expect((error as RenderError).message).toMatch(
      /^Rendering \/pricing \(document Z9nWvxEAACUAx1Ee\) failed: the price list could not be read/,
    );
    expect((error as RenderError).route).toBe("/pricing");
    expect((error as RenderError).documentId).toBe(ID.pricing);
    expect((error as RenderError).cause).toBeInstanceOf(TypeError);
  });

  it("fails clearly without a settings document", async () => {
    const source = createMemorySource(documents.filter((doc) => doc.type !== "settings"));
    const error = (await render("/about", source).catch((e: unknown) => e)) as RenderError;
    expect(error).toBeInstanceOf(RenderError);
    expect(error.message).toContain("Rendering /about failed");
    expect(error.message).toContain('No "settings" document');
  });

  it("gives images on Prismic's image CDN a width srcset, and other hosts the plain url", async () => {
    const home = documents.find((doc) => doc.id === ID.home) as PrismicDocument;
    const page = structuredClone(home);
    const hero = page.data.slices[0].primary as { image: { url: string } };
    hero.image.url = "https://images.prismic.io/northwind/hero-studio.jpg?auto=format,compress";
    const source = createMemorySource([...documents.filter((doc) => doc.id !== ID.home), page]);
    const { html } = await render("/", source);
    const heroImage = elements(html, "img").find((img) => img.class === "hero__image");
    expect(heroImage).toMatchObject({
      width: "1600",
      height: "900",
      loading: "eager",
      fetchPriority: "high",
    });
    expect(heroImage?.srcSet).toMatch(
      /^https:\/\/images\.prismic\.io\/northwind\/hero-studio\.jpg\?auto=format%2Ccompress&amp;width=480 480w, /,
    );
    expect(heroImage?.sizes).toBeTruthy();
    const slide = elements(html, "img").find((img) => img.class === "carousel__image");
    expect(slide).toMatchObject({ loading: "lazy", width: "1600", height: "900" });
    expect(slide).not.toHaveProperty("srcSet");
  });

  it("reads URLs as browsers do: no backslash or tab turns a link or an image into another origin's", async () => {
    const page = structuredClone(documents.find((doc) => doc.id === ID.services) as PrismicDocument);
    const hero = page.data.slices[0].primary as { image: Record<string, unknown>; body: unknown[] };
    hero.image = { ...hero.image, url: "/\\evil.example/hero.png" };
    const text = page.data.slices[1].primary as { body: unknown[] };
    const image = (url: string, linkTo?: Record<string, unknown>) => ({
      type: "image",
      url,
      alt: "An image",
      copyright: null,
      dimensions: { width: 10, height: 10 },
      ...(linkTo ? { linkTo } : {}),
    });
    const hostileLinks = [
      "/\\evil.example",
      "\\\\evil.example",
      "/\t/evil.example",
      " /\\evil.example",
      "/\n/evil.example",
    ];
    text.body = [
      {
        type: "paragraph",
        text: "one two three four five",
        spans: hostileLinks.map((url, i) => ({
          start: i * 4,
          end: i * 4 + 3,
          type: "hyperlink",
          data: { link_type: "Web", url },
        })),
      },
      image("javascript:alert(1)"),
      image("//evil.example/a.png"),
      image("/\\evil.example/b.png"),
      image("data:image/svg+xml,<svg onload=alert(1)>"),
      image("https://images.example/fine.png", { link_type: "Web", url: "/\\evil.example/c" }),
      image("https://images.example/also-fine.png", { link_type: "Web", url: "javascript:alert(2)" }),
      image("https://images.example/linked.png", { link_type: "Web", url: "https://example.org/ok" }),
    ];
    const source = createMemorySource([...documents.filter((doc) => doc.id !== ID.services), page]);
    const { html } = await render("/services", source);
    expect(html).not.toMatch(/evil\.example|javascript:|data:image/i);
    // What is safe stays: the images with a safe source, and the safe link target.
    expect(html).toContain('src="https://images.example/fine.png"');
    expect(html).toContain('src="https://images.example/also-fine.png"');
    expect(html).toMatch(
      /<a [^>]*href="https:\/\/example.org\/ok"[^>]*><img [^>]*src="https:\/\/images.example\/linked.png"/,
    );
    expect(textOf(html)).toContain("one two three four five");
  });

  it("never lets unsafe link schemes into an href", async () => {
    const privacy = documents.find((doc) => doc.id === ID.privacy) as PrismicDocument;
    const page = structuredClone(privacy);
    const body = page.data.slices[0].primary.body as { text: string; spans: unknown[] }[];
    const block = body[0] as { text: string; spans: unknown[] };
    block.spans = [
      { start: 0, end: 4, type: "hyperlink", data: { link_type: "Web", url: "javascript:alert(1)" } },
      { start: 5, end: 8, type: "hyperlink", data: { link_type: "Web", url: "data:text/html,<b>x</b>" } },
    ];
    const source = createMemorySource([...documents.filter((doc) => doc.id !== ID.privacy), page]);
    const { html } = await render("/privacy", source);
    expect(html).not.toMatch(/javascript:/i);
    expect(html).not.toContain("data:text/html");
    expect(textOf(html)).toContain("When you send the contact form");
  });

  it("every demo route has a share image: its own, or the site's default from settings; without one in settings, none", async () => {
    const ogImage = (html: string) => elements(html, "meta").find((m) => m.property === "og:image")?.content;
    const settings = documents.find((doc) => doc.id === ID.settings) as PrismicDocument;
    const fallback = (settings.data.share_image as { url: string }).url;
    for (const path of Object.keys(DEMO_ROUTES)) {
      const { html } = await render(path);
      expect(ogImage(html), path).toMatch(/^https?:\/\/[^"]+\.(jpg|png)$/);
      expect(html, path).toContain('<meta name="twitter:card" content="summary_large_image"/>');
    }
    expect(ogImage((await render("/about")).html)).toBe(fallback);
    expect(ogImage((await render("/price-list/websites")).html)).toBe(fallback);
    // Settings published before the field existed: no og:image where the route has none of its own.
    const { share_image: _absent, ...data } = settings.data;
    const before = createMemorySource([
      ...documents.filter((doc) => doc.id !== ID.settings),
      { ...settings, data },
    ]);
    for (const path of ["/about", "/price-list/", "/price-list/websites"]) {
      const { html, status } = await render(path, before);
      expect(status, path).toBe(200);
      expect(ogImage(html), path).toBeUndefined();
      expect(html, path).toContain('<meta name="twitter:card" content="summary"/>');
    }
    // The home page keeps its own (its hero's).
    expect(ogImage((await render("/", before)).html)).toContain("hero-studio.jpg");
  });

  it("puts only image URLs the site's filter accepts into og:image (meta image, hero and the site's default alike)", async () => {
    const home = documents.find((doc) => doc.id === ID.home) as PrismicDocument;
    const settings = documents.find((doc) => doc.id === ID.settings) as PrismicDocument;
    const image = (url: string) => ({ url, alt: "x", dimensions: { width: 1200, height: 630 } });
    const withImages = (meta: string | undefined, hero: string, fallback?: string) => {
      const page = structuredClone(home);
      page.data.meta_image = meta === undefined ? {} : image(meta);
      (page.data.slices[0].primary as { image: unknown }).image = image(hero);
      const site = { ...settings, data: { ...settings.data, share_image: fallback ? image(fallback) : {} } };
      const others = documents.filter((doc) => doc.id !== ID.home && doc.id !== ID.settings);
      return createMemorySource([...others, page, site]);
    };
    const ogImage = async (source: ContentSource) =>
      elements((await render("/", source)).html, "meta").find((m) => m.property === "og:image")?.content;
    const safe = "https://images.example/share.jpg";
    for (const hostile of [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "data:image/svg+xml,<svg onload=alert(1)>",
      "//evil.example/x.jpg",
      "/\\evil.example/x.jpg",
      "\tjavascript:alert(1)",
    ]) {
      // A hostile meta image is left out: the hero's image (safe) is shared instead.
      expect(await ogImage(withImages(hostile, safe)), hostile).toBe(safe);
      // A hostile hero image, with no meta image and no default share image: no og:image at all.
      expect(await ogImage(withImages(undefined, hostile)), hostile).toBeUndefined();
      // With the site's default (safe), that is shared; a hostile default is left out too.
      expect(await ogImage(withImages(undefined, hostile, safe)), hostile).toBe(safe);
      expect(await ogImage(withImages(undefined, hostile, hostile)), hostile).toBeUndefined();
      const { html } = await render("/", withImages(hostile, hostile, hostile));
      expect(html).not.toMatch(/javascript:|data:image|evil\.example/i);
      expect(html).toContain('<meta name="twitter:card" content="summary"/>');
    }
    // A site path is made absolute: share previews need the whole address.
    expect(await ogImage(withImages(undefined, "", "/assets/site.jpg"))).toBe(`${SITE_URL}/assets/site.jpg`);
    expect(await ogImage(withImages("/assets/share.jpg", safe))).toBe(`${SITE_URL}/assets/share.jpg`);
  });
});
