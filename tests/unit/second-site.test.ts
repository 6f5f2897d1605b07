/**
 * The second test website (tests/support/second-site) rendered directly through its contract, at a
 * set of documents in memory: what the engine would store, and the dependencies it would index.
 */
import type { PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { createMemorySource } from "#content/source.ts";
import type { RenderContext } from "#website/contract.ts";
import { website } from "../support/second-site/website.ts";

const SITE_URL = "https://blog.example";

function doc(id: string, type: string, uid: string | null, data: Record<string, unknown>): PrismicDocument {
  const url = uid && type === "post" ? `/blog/${uid}` : null;
  return {
    id,
    uid,
    url,
    type,
    href: "",
    tags: [],
    first_publication_date: "2026-03-01T10:00:00+0000",
    last_publication_date: "2026-03-09T16:40:00+0000",
    slugs: [],
    linked_documents: [],
    lang: "en-us",
    alternate_languages: [],
    data,
  } as PrismicDocument;
}

const title = (text: string) => [{ type: "heading1", text, spans: [] }];
const config = doc("Config", "site_config", null, {
  site_name: "Field Notes",
  footer_text: "Written by hand",
});
const first = doc("PostOne", "post", "first", {
  title: title("First post"),
  published_on: "2026-03-01",
  slices: [
    {
      slice_type: "quote",
      variation: "default",
      version: "initial",
      id: "quote$1",
      slice_label: null,
      primary: { text: [{ type: "paragraph", text: "Less is more", spans: [] }], author: "Mies" },
      items: [],
    },
  ],
});
const second = doc("PostTwo", "post", "second", {
  title: title("Second post"),
  published_on: "2026-03-05",
  slices: [],
});
const moved = doc("MovedOne", "moved", null, {
  from: " /blog/old-first ",
  to: { link_type: "Document", id: "PostOne", type: "post", uid: "first" },
});

async function context(): Promise<RenderContext> {
  return {
    source: createMemorySource([config, first, second, moved]),
    siteUrl: SITE_URL,
    assets: (await website.assets.build()).assets,
    mode: "production",
  };
}

describe("the second site, rendered through its contract", () => {
  it("renders a post with its slice and the frame, depending on both documents", async () => {
    const result = await website.render("/blog/first", await context());
    expect(result.status).toBe(200);
    expect(result.documentId).toBe("PostOne");
    expect(result.html).toMatch(/^<!doctype html>/);
    expect(result.html).toContain("<h1>First post</h1>");
    expect(result.html).toContain(
      "<blockquote><p>Less is more</p></blockquote><figcaption>Mies</figcaption>",
    );
    expect(result.html).toContain("Written by hand");
    expect(result.html).not.toContain("<script");
    expect(result.dependencies).toEqual(["doc:Config", "doc:PostOne"]);
  });

  it("lists posts newest first at /blog/ and the newest at /, depending on type:post", async () => {
    const blog = await website.render("/blog/", await context());
    expect(blog.html.indexOf("/blog/second")).toBeLessThan(blog.html.indexOf("/blog/first"));
    expect(blog.dependencies).toEqual(["doc:Config", "type:post"]);
    const home = await website.render("/", await context());
    expect(home.html).toContain('<a href="/blog/second">Second post</a>');
    expect(home.dependencies).toEqual(["doc:Config", "type:post"]);
  });

  it("a sitemap of every post's route and day, depending on routes:post; robots.txt names it", async () => {
    const sitemap = await website.render("/sitemap.xml", await context());
    expect(sitemap.contentType).toContain("application/xml");
    expect(sitemap.html).toContain(`<loc>${SITE_URL}/blog/first</loc><lastmod>2026-03-09</lastmod>`);
    expect(sitemap.html).toContain(`<loc>${SITE_URL}/blog/</loc>`);
    expect(sitemap.dependencies).toEqual(["routes:post"]);
    const robots = await website.render("/robots.txt", await context());
    expect(robots.html).toContain(`Sitemap: ${SITE_URL}/sitemap.xml`);
    expect(robots.dependencies).toEqual([]);
  });

  it("404 for a missing post and an unknown path; the stored error pages", async () => {
    const missing = await website.render("/blog/nothing-here", await context());
    expect(missing.status).toBe(404);
    expect((await website.render("/elsewhere", await context())).status).toBe(404);
    for (const [status, route] of Object.entries(website.routes.errors))
      expect((await website.render(route, await context())).status).toBe(Number(status));
  });

  it("one URL table: resolver, routes, keys and canonical spellings agree", () => {
    expect(website.routes.ofDocument(first)).toBe("/blog/first");
    expect(website.routes.ofDocument(config)).toBeNull();
    expect(website.routes.ofDocument({ ...first, uid: "Not A Slug" })).toBeNull();
    expect(website.routes.problem({ ...first, uid: "Not A Slug" })).toMatch(/cannot be a path segment/);
    expect(website.routes.documentAt("/blog/first/")).toEqual({ type: "post", uid: "first" });
    expect(website.routes.documentAt("/blog/")).toBeUndefined();
    expect(website.routes.canonical("/blog")).toBe("/blog/");
    expect(website.routes.canonical("/blog/first/?x=1")).toBe("/blog/first");
    expect(website.routes.canonical("/about")).toBeUndefined();
    expect(website.routes.key("/blog/first")).toBe("blog/first/index.html");
    expect(website.routes.key("/blog/")).toBe("blog/index.html");
    expect(website.routes.key("/")).toBe("index.html");
    expect(website.routes.key(website.routes.notFound)).toBe("404.html");
    expect(website.routes.resolver).toEqual([{ type: "post", path: "/blog/:uid" }]);
    for (const route of website.routes.listings) expect(website.routes.isListing(route), route).toBe(true);
  });

  it("a moved address states its rule", () => {
    expect(website.redirects?.ruleOf(moved)).toEqual({
      id: "MovedOne",
      from: "/blog/old-first",
      to: { kind: "document", id: "PostOne" },
      permanent: true,
      published: "2026-03-01T10:00:00+0000",
    });
  });

  it("ships a stylesheet and no JavaScript", async () => {
    const built = await website.assets.build();
    expect(built.files.map((file) => file.key)).toEqual([
      expect.stringMatching(/^assets\/blog\.[0-9a-f]{10}\.css$/),
      expect.stringMatching(/^assets\/blog-icon\.[0-9a-f]{10}\.svg$/),
    ]);
    const meter = website.assets.javascriptMeter(built.assets.browser);
    meter.add("/blog/first", (await website.render("/blog/first", await context())).html);
    expect(meter.report().overBudget).toEqual([]);
  });
});
