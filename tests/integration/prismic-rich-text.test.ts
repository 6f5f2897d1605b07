import { readFileSync } from "node:fs";
import type { PrismicDocument } from "@prismicio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemorySource } from "#content/source.ts";
import { buildSiteAssets, type SiteAssets } from "#web/assets.ts";
import { EMBED_FRAME_ORIGINS } from "#web/lib/embed-providers.ts";
import { website } from "#web/website.ts";
import { localContentClient } from "../support/content-client.ts";
import { type HtmlElement, readHtml } from "../support/html-shape.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";

/**
 * Rich text as Prismic itself sends it, through the site's rich text component (web/src/components/
 * rich-text.tsx) inside a page, by the real render path: Prismic's own rich text test fixtures
 * (prismic-client commit 106c7419, test/__fixtures__/{en,ar,cn,ko,emoji,overlapped,xss}RichText.json,
 * copied to tests/support/fixtures/; tests/support/fixtures/SOURCES.md), each the body of
 * a text section slice on the about page, the rest of the demo repository as the local content
 * service serves it (urls from the real route resolver). Every fixture renders; every line of its
 * text reaches the page; the page is well-formed (tests/support/html-shape.ts: overlapping spans
 * must nest); and nothing in it can run: no event-handler attribute, no `javascript:` (or `data:`,
 * `vbscript:`) address, no script element from content. The XSS fixture's hyperlinks keep their
 * quotes inside the attribute; blocks derived from it add the schemes an attacker would try.
 */
const ROOT = new URL("../../", import.meta.url).pathname;
const SITE_URL = "https://www.example.com";
const ABOUT = "Z9nWuhEAACMAx1Cc";
const FIXTURES = ["en", "ar", "cn", "ko", "emoji", "overlapped", "xss"] as const;

type Block = { type: string; text?: string; url?: string; alt?: string | null; spans?: unknown[] };
const fixture = (name: string) =>
  JSON.parse(
    readFileSync(`${ROOT}tests/support/fixtures/prismic-client.${name}RichText.json`, "utf8"),
  ) as Block[];

/** Ours, derived from the XSS fixture's shape: the addresses a hostile editor or import would try. */
const HOSTILE_URLS = [
  "javascript:alert(document.cookie)",
  "JaVaScRiPt:alert(1)",
  " \tjavascript:alert(1)",
  "java\nscript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
];
const hostileBlocks: Block[] = [
  ...HOSTILE_URLS.map((url, i) => ({
    type: "paragraph",
    text: `Hostile link number ${i}`,
    spans: [{ start: 0, end: 7, type: "hyperlink", data: { link_type: "Web", url } }],
  })),
  {
    type: "paragraph",
    text: "<script>alert(1)</script> as text",
    spans: [{ start: 0, end: 8, type: "strong" }],
  },
  {
    type: "image",
    url: "javascript:alert(1)",
    alt: "an image whose address is a script",
    dimensions: { width: 10, height: 10 },
  } as Block,
];

let service: LocalPrismic;
let documents: PrismicDocument[];
let assets: SiteAssets;

beforeAll(async () => {
  service = await startLocalPrismic();
  const client = localContentClient(service.endpoint);
  documents = (await client.get({ ref: await client.fetchMasterRef(), pageSize: 100 })).results;
  assets = (await buildSiteAssets()).assets;
});
afterAll(() => service?.stop());

/** The about page with one text section whose body is `body`, rendered as a visitor gets it. */
async function renderBody(name: string, body: Block[]) {
  const docs = documents.map((doc) =>
    doc.id === ABOUT
      ? {
          ...doc,
          data: {
            ...doc.data,
            slices: [
              {
                slice_type: "text_section",
                variation: "default",
                id: `text_section$${name}`,
                primary: {
                  heading: [{ type: "heading2", text: `Fixture ${name}`, spans: [] }],
                  body,
                  embed: {},
                },
                items: [],
              },
            ],
          },
        }
      : doc,
  );
  const result = await website.render("/about", {
    source: createMemorySource(docs),
    siteUrl: SITE_URL,
    assets,
    mode: "production",
  });
  const page = readHtml(result.html);
  const start = result.html.indexOf('<section class="slice text-section"');
  const end = result.html.indexOf("</section>", start);
  expect(start, name).toBeGreaterThan(0);
  const markup = result.html.slice(start, end + "</section>".length);
  return { status: result.status, page, markup, section: readHtml(markup) };
}

/** What could run in a browser: event-handler attributes, script addresses, script elements. */
function executable(page: { elements: HtmlElement[] }, section: { elements: HtmlElement[] }): string[] {
  const found: string[] = [];
  for (const element of page.elements) {
    for (const [name, value] of Object.entries(element.attributes)) {
      if (/^on/i.test(name)) found.push(`<${element.name} ${name}="${value}">`);
      // As a browser reads an address: control characters and spaces around it dropped.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: what browsers strip is the point
      const read = value.replace(/[\u0000-\u0020]/g, "").toLowerCase();
      if (
        /^(?:href|src|srcset|action|formaction|poster|data)$/.test(name) &&
        /^(?:javascript|vbscript|data):/.test(read)
      )
        found.push(`<${element.name} ${name}="${value}">`);
    }
  }
  for (const element of section.elements) {
    // An oEmbed is rebuilt as a sandboxed player of a known provider (web/src/lib/embed.ts), nothing else.
    if (element.name === "iframe" && isPlayer(element)) continue;
    if (["script", "iframe", "object", "embed", "form", "base", "meta", "link"].includes(element.name))
      found.push(`<${element.name} ${JSON.stringify(element.attributes)}> from content`);
  }
  return found;
}

function isPlayer(frame: HtmlElement): boolean {
  const { src, sandbox } = frame.attributes;
  if (!src || sandbox === undefined || !URL.canParse(src)) return false;
  return (EMBED_FRAME_ORIGINS as readonly string[]).includes(new URL(src).origin);
}

describe("Prismic's own rich text fixtures, as a text section's body", () => {
  it.each(FIXTURES)(
    "%sRichText.json: renders, all its text, well-formed, nothing executable",
    async (name) => {
      const body = fixture(name);
      const { status, page, section } = await renderBody(name, body);
      expect(status).toBe(200);
      expect(page.problems, name).toEqual([]);
      expect(section.problems, name).toEqual([]);
      const shown = section.text;
      for (const block of body) {
        if (typeof block.text !== "string") continue;
        // A line break inside a block is a <br/>: each line is there as written.
        for (const line of block.text.split("\n")) expect(shown, `${name}: ${block.type}`).toContain(line);
      }
      expect(executable(page, section), name).toEqual([]);
      // The YouTube oEmbed of enRichText.json is there as a sandboxed player.
      const embeds = body.filter((block) => block.type === "embed").length;
      expect(
        section.elements.filter((e) => e.name === "iframe" && isPlayer(e)),
        name,
      ).toHaveLength(embeds);
    },
  );

  it("overlapping spans nest: each run of text is inside every span covering it", async () => {
    const body = fixture("overlapped");
    const { section, markup } = await renderBody("overlapped", body);
    // The first paragraph: "Lorem ipsum dolor sit amet", strong 18–26 ("sit amet"), em 18–21 ("sit").
    const first = /<p>([\s\S]*?)<\/p>/.exec(markup)?.[1];
    expect(first).toBe("Lorem ipsum dolor <strong><em>sit</em> amet</strong>");
    const strong = section.elements.filter((e) => e.name === "strong").length;
    const em = section.elements.filter((e) => e.name === "em").length;
    expect(strong).toBeGreaterThanOrEqual(body.length);
    expect(em).toBeGreaterThanOrEqual(body.length);
  });

  it("xssRichText.json: a quote in a link's address stays inside the href, the image's alt is text", async () => {
    const body = fixture("xss");
    const { section } = await renderBody("xss", body);
    const hrefs = section.elements.filter((e) => e.name === "a").map((e) => e.attributes.href);
    const urls = body.flatMap((block) =>
      (block.spans ?? []).map((span) => (span as { data: { url: string } }).data.url),
    );
    // Every address reaches its href whole, quotes and all: none escaped the attribute.
    expect(hrefs).toEqual(urls);
    const image = section.elements.find((e) => e.name === "img");
    expect(image?.attributes.alt).toBe('An "Atlantic" Puffin');
    expect(Object.keys(image?.attributes ?? {}).filter((key) => key.startsWith("on"))).toEqual([]);
  });

  it("addresses an attacker would try (derived): links and images dropped, their text kept as text", async () => {
    const { status, page, section } = await renderBody("hostile", [...fixture("xss"), ...hostileBlocks]);
    expect(status).toBe(200);
    expect(page.problems).toEqual([]);
    expect(executable(page, section)).toEqual([]);
    for (let i = 0; i < HOSTILE_URLS.length; i++) expect(section.text).toContain(`Hostile link number ${i}`);
    expect(section.text).toContain("<script>alert(1)</script> as text");
    expect(section.elements.some((e) => e.name === "img" && e.attributes.alt?.includes("script"))).toBe(
      false,
    );
  });
});
