import { fileURLToPath } from "node:url";
import type { PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { expandAssetBase, loadDemoDocuments } from "#local-prismic/demo.ts";
import { loadModels } from "#local-prismic/models.ts";
import {
  checkSingleton,
  type ValidationIssue,
  validateDocument,
  validateRepository,
} from "#local-prismic/validate.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const models = loadModels(ROOT);
const demo = loadDemoDocuments();
const byUid = (type: string, uid: string | null) => {
  const doc = demo.find((d) => d.type === type && d.uid === uid);
  if (!doc) throw new Error(`demo has no ${type}/${uid}`);
  // biome-ignore lint/suspicious/noExplicitAny: the table tests reach into arbitrary fields to break them
  return structuredClone(doc) as PrismicDocument & { data: Record<string, any> };
};
const paths = (issues: ValidationIssue[]) => issues.map((i) => i.path);

describe("the demo repository", () => {
  it("has the documents the site is built around", () => {
    const summary = demo.map((d) => `${d.type}/${d.uid}`).sort();
    expect(summary).toEqual([
      "page/about",
      "page/contact",
      "page/faq",
      "page/home",
      "page/pricing",
      "page/privacy",
      "page/services",
      "price_list/care-plans",
      "price_list/websites",
      "price_list/workshops",
      "redirect/null",
      "redirect/null",
      "settings/null",
    ]);
  });

  it.each(demo.map((d) => [`${d.type}/${d.uid ?? d.id}`, d] as const))("%s is valid", (_, doc) => {
    expect(validateDocument(doc, models)).toEqual([]);
  });

  it("is valid as a whole: unique ids and uids, one settings document", () => {
    expect(validateRepository(demo, models)).toEqual([]);
  });

  it("uses every slice, and links only to documents that exist", () => {
    const used = new Set(
      demo.flatMap((d) => ((d.data.slices ?? []) as { slice_type: string }[]).map((s) => s.slice_type)),
    );
    expect([...used].sort()).toEqual(models.slices.map((s) => s.id));
    const ids = new Set(demo.map((d) => d.id));
    const linked = JSON.stringify(demo).match(/"link_type":"Document","id":"[^"]+"/g) ?? [];
    expect(linked.length).toBeGreaterThan(10);
    for (const link of linked) expect(ids.has(link.slice(-17, -1)), link).toBe(true);
  });

  it("expands the asset base placeholder everywhere and only there", () => {
    const home = byUid("page", "home");
    const expanded = expandAssetBase(home, "http://127.0.0.1:4100/assets/");
    const text = JSON.stringify(expanded);
    expect(text).not.toContain("{{ASSET_BASE}}");
    expect(text).toContain('"url":"http://127.0.0.1:4100/assets/images/hero-studio.jpg"');
    expect(JSON.stringify(home)).toContain("{{ASSET_BASE}}/images/hero-studio.jpg");
    expect(validateDocument(expanded, models)).toEqual([]);
  });
});

type Case = [name: string, mutate: (doc: ReturnType<typeof byUid>) => unknown, path: string, from?: string];
const cases: Case[] = [
  ["unknown custom type", (d) => Object.assign(d, { type: "blog_post" }), "type"],
  ["missing id", (d) => Object.assign(d, { id: 42 }), "id"],
  ["tags not an array", (d) => Object.assign(d, { tags: "news" }), "tags"],
  ["uid with capitals and spaces", (d) => Object.assign(d, { uid: "About Us" }), "uid"],
  ["uid escaping the site", (d) => Object.assign(d, { uid: "../etc" }), "uid"],
  ["missing uid", (d) => Object.assign(d, { uid: null }), "uid"],
  ["uid reserved for operational endpoints", (d) => Object.assign(d, { uid: "_pressroom" }), "uid"],
  ["uid of a former operational path", (d) => Object.assign(d, { uid: "healthz" }), "uid"],
  ["uid of the preview's simulator", (d) => Object.assign(d, { uid: "slice-simulator" }), "uid"],
  ["uid of the asset folder", (d) => Object.assign(d, { uid: "assets" }), "uid"],
  ["uid of 101 characters", (d) => Object.assign(d, { uid: "a".repeat(101) }), "uid"],
  ["uid on a type without UID field", (d) => Object.assign(d, { uid: "settings" }), "uid", "settings"],
  ["text field holding a number", (d) => Object.assign(d.data, { meta_title: 12 }), "data.meta_title"],
  ["unknown field", (d) => Object.assign(d.data, { subtitle: "Hi" }), "data.subtitle"],
  [
    "title with two headings",
    (d) => d.data.title.push({ type: "heading1", text: "Again", spans: [] }),
    "data.title",
  ],
  ["title as a paragraph", (d) => (d.data.title[0].type = "paragraph"), "data.title[0]"],
  ["unknown slice", (d) => (d.data.slices[1].slice_type = "video_player"), "data.slices[1].slice_type"],
  ["unknown variation", (d) => (d.data.slices[0].variation = "split"), "data.slices[0].variation"],
  [
    "slice field of the wrong type",
    (d) => (d.data.slices[0].primary.eyebrow = ["x"]),
    "data.slices[0].primary.eyebrow",
  ],
  ["unknown slice field", (d) => (d.data.slices[0].primary.colour = "red"), "data.slices[0].primary.colour"],
  [
    "boolean as a string",
    (d) => (d.data.slices[2].primary.autoplay = "yes"),
    "data.slices[2].primary.autoplay",
  ],
  [
    "carousel item image as a bare url",
    (d) => (d.data.slices[2].items[1].image = "https://example.com/photo.jpg"),
    "data.slices[2].items[1].image",
  ],
  ["image without url", (d) => (d.data.meta_image = { alt: "x" }), "data.meta_image"],
  [
    "Document link to a disallowed type",
    (d) => Object.assign(d.data.slices[3].primary.price_list, { type: "page", uid: "pricing" }),
    "data.slices[3].primary.price_list",
  ],
  [
    "web link where a document is required",
    (d) => (d.data.slices[3].primary.price_list = { link_type: "Web", url: "https://example.com" }),
    "data.slices[3].primary.price_list",
  ],
  [
    "javascript: url",
    (d) => (d.data.slices[0].primary.primary_cta_link = { link_type: "Web", url: "javascript:alert(1)" }),
    "data.slices[0].primary.primary_cta_link",
  ],
  [
    "span outside its text",
    (d) => d.data.slices[0].primary.body[0].spans.push({ start: 5, end: 999, type: "em" }),
    "data.slices[0].primary.body[0].spans[1]",
  ],
  [
    "span type the field does not allow",
    (d) => d.data.title[0].spans.push({ start: 0, end: 3, type: "strong" }),
    "data.title[0].spans[0]",
  ],
  ["price as a string", (d) => (d.data.rows[0].price = "6500"), "data.rows[0].price", "websites"],
  ["negative price", (d) => (d.data.rows[1].price = -5), "data.rows[1].price", "websites"],
  ["currency not in the options", (d) => (d.data.currency = "JPY"), "data.currency", "websites"],
  ["group that is not an array", (d) => (d.data.rows = {}), "data.rows", "websites"],
  ["phone not in E.164", (d) => (d.data.contact_phone = "(503) 555-0142"), "data.contact_phone", "settings"],
  [
    "social network not in the options",
    (d) => (d.data.social_links[0].network = "myspace"),
    "data.social_links[0].network",
    "settings",
  ],
  [
    "country not alpha-2",
    (d) => (d.data.slices[0].primary.default_country = "USA"),
    "data.slices[0].primary.default_country",
    "contact",
  ],
];

const source = (from = "home") =>
  from === "settings"
    ? byUid("settings", null)
    : from === "websites"
      ? byUid("price_list", from)
      : byUid("page", from);

describe("validateDocument refuses", () => {
  it.each(cases)("%s", (_, mutate, path, from) => {
    const doc = source(from);
    mutate(doc);
    const issues = validateDocument(doc, models);
    expect(paths(issues), JSON.stringify(issues)).toContain(path);
  });

  it("anything that is not an object", () => {
    expect(validateDocument("page", models)).toEqual([{ path: "", message: expect.any(String) }]);
  });

  it("accepts empty values of every kind", () => {
    const doc = byUid("page", "home");
    Object.assign(doc.data, { meta_title: null, meta_image: {}, slices: [] });
    const about = byUid("page", "about");
    about.data.slices[1].items[0].link = { link_type: "Any" };
    about.data.slices[0].primary.embed = {};
    expect(validateDocument(doc, models)).toEqual([]);
    expect(validateDocument(about, models)).toEqual([]);
  });

  it("accepts fields an earlier model did not have, absent (as Prismic keeps such documents)", () => {
    const settings = byUid("settings", null);
    delete settings.data.header_navigation;
    const home = byUid("page", "home");
    home.data = { slices: home.data.slices };
    delete home.data.slices[0].primary.eyebrow;
    delete home.data.slices[2].items[0].caption;
    const list = byUid("price_list", "websites");
    delete list.data.rows[0].price;
    for (const doc of [settings, home, list]) expect(validateDocument(doc, models)).toEqual([]);
    // Prismic's own empty document (a page with `data: {}`, prismic-client's test fixture).
    expect(validateDocument({ ...home, data: {} }, models)).toEqual([]);
  });
});

describe("repository checks", () => {
  it("a second settings document is refused", () => {
    const settings = byUid("settings", null);
    expect(checkSingleton({ id: "Zsecond000000000", type: "settings" }, demo, models)).toEqual([
      { path: "type", message: expect.stringContaining(settings.id) },
    ]);
    expect(checkSingleton(settings, demo, models)).toEqual([]);
    expect(checkSingleton({ id: "Znew000000000000", type: "page" }, demo, models)).toEqual([]);
  });

  it("duplicate uids, duplicate ids and a second singleton are refused", () => {
    const about = { ...byUid("page", "about"), id: "Zcopy00000000000" };
    const settings = { ...byUid("settings", null), id: "Zsettings0000000" };
    const home = byUid("page", "home");
    expect(validateRepository([...demo, about, settings, home], models)).toEqual([
      { document: "Zcopy00000000000", path: "uid", message: expect.stringContaining("already used") },
      { document: "Zsettings0000000", path: "type", message: expect.stringContaining("singleton") },
      { document: home.id, path: "id", message: "duplicate document id" },
    ]);
  });
});
