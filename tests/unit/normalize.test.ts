import { readFileSync } from "node:fs";
import type { PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import {
  describeNotice,
  documentConversions,
  documentNotices,
  normalizeDocument,
} from "#web/content/index.ts";

/**
 * The content boundary (web/src/content/normalize.ts) and what it tells editors
 * (content-notices.ts), on the demo's documents taken apart as an older model would have left them.
 */
const DEMO = new URL("../../services/local-prismic/demo/documents/", import.meta.url).pathname;
// biome-ignore lint/suspicious/noExplicitAny: the tests reach into arbitrary fields to take them away
const demo = (id: string) => JSON.parse(readFileSync(`${DEMO}${id}.json`, "utf8")) as PrismicDocument<any>;
const SETTINGS = "Z9nWsREAACUAx1Aa";
const HOME = "Z9nWtBEAACQAx1Bb";
const ABOUT = "Z9nWuhEAACMAx1Cc";
const WEBSITES = "Z9nWyREAACMAx1Ii";

describe("normalizeDocument", () => {
  it("gives every field of the model, absent or null ones as Prismic's empty values", () => {
    const page = { ...demo(ABOUT), data: { meta_title: null } };
    expect(normalizeDocument(page).data).toEqual({
      title: [],
      slices: [],
      meta_title: null,
      meta_description: null,
      meta_image: {},
      // The SEO fields: a page published before its model had them is listed and canonical to itself.
      noindex: false,
      canonical_url: { link_type: "Any" },
    });
    const empty: ReturnType<typeof demo> = { ...demo(SETTINGS), data: {} };
    const settings = normalizeDocument(empty).data;
    expect(settings.header_navigation).toEqual([]);
    expect(settings.cookie_policy_link).toEqual({ link_type: "Any" });
    expect(settings.address).toEqual([]);
  });

  it("reads an absent Boolean or Select as the model's default_value", () => {
    const home = demo(HOME);
    const carousel = home.data.slices.find((s: { slice_type: string }) => s.slice_type === "carousel");
    carousel.primary = {};
    const read = normalizeDocument(home).data.slices.find(
      (s: { slice_type: string }) => s.slice_type === "carousel",
    );
    expect(read.primary).toEqual({ heading: null, autoplay: true, infinite: true });
    const list = demo(WEBSITES);
    delete list.data.currency;
    list.data.rows[0] = { name: "Only a name" };
    const normalized = normalizeDocument(list).data;
    expect(normalized.currency).toBe("USD");
    expect(normalized.rows[0]).toEqual({
      category: null,
      name: "Only a name",
      description: null,
      price: null,
      unit: null,
      note: null,
      highlighted: false,
    });
  });

  it("drops fields the model no longer has, and leaves the document it was given untouched", () => {
    const page = demo(ABOUT);
    page.data.subtitle = "retired";
    const before = JSON.stringify(page);
    const normalized = normalizeDocument(page);
    expect(Object.keys(normalized.data)).not.toContain("subtitle");
    expect(JSON.stringify(page)).toBe(before);
    // Once per document object.
    expect(normalizeDocument(page)).toBe(normalized);
  });

  it("keeps a slice of a variation no model has as it is, with primary and items safe to read", () => {
    const home = demo(HOME);
    home.data.slices[0] = { slice_type: "hero", variation: "split", id: "hero$x" };
    expect(normalizeDocument(home).data.slices[0]).toEqual({
      slice_type: "hero",
      variation: "split",
      id: "hero$x",
      primary: {},
      items: [],
    });
  });

  it("converts a value of another kind (a field whose type changed) where that is obvious, and says so", () => {
    const home = demo(HOME);
    const hero = home.data.slices[0];
    const textSection = home.data.slices[1];
    const carousel = home.data.slices.find((s: { slice_type: string }) => s.slice_type === "carousel");
    // Each as a document published under an earlier model would hold it.
    home.data.title = "Welcome to Northwind"; // was Key Text, now a title (single: heading1)
    home.data.meta_title = [
      { type: "heading1", text: "Northwind", spans: [{ start: 0, end: 5, type: "strong" }] },
      { type: "paragraph", text: "Studio", spans: [] },
    ]; // was rich text, now Key Text
    home.data.meta_description = 12; // was a Number, now Key Text
    textSection.primary.body = "One line of text"; // was Key Text, now rich text (paragraphs allowed)
    carousel.primary.autoplay = " Yes "; // was Key Text, now a Boolean
    carousel.primary.infinite = "maybe"; // not boolean-like: the model's default
    home.data.canonical_url = "https://www.northwind.example/welcome"; // was Key Text, now a Link
    const data = normalizeDocument(home).data;
    expect(data.title).toEqual([{ type: "heading1", text: "Welcome to Northwind", spans: [] }]);
    expect(data.meta_title).toBe("Northwind Studio");
    expect(data.meta_description).toBe("12");
    expect(data.slices[1].primary.body).toEqual([{ type: "paragraph", text: "One line of text", spans: [] }]);
    const read = data.slices.find((s: { slice_type: string }) => s.slice_type === "carousel");
    expect(read.primary.autoplay).toBe(true);
    expect(read.primary.infinite).toBe(true);
    expect(data.canonical_url).toEqual({ link_type: "Web", url: "https://www.northwind.example/welcome" });
    expect(hero.slice_type).toBe("hero");
    const at = home.data.slices.indexOf(carousel);
    expect(
      documentConversions(home).map((c) => `${c.field}: ${c.found} → ${c.expected}, ${c.outcome}`),
    ).toEqual([
      "title: text → rich text, shown as one heading",
      "slices[1].primary.body: text → rich text, shown as one paragraph",
      `slices[${at}].primary.autoplay: text → a boolean, read as true`,
      `slices[${at}].primary.infinite: text → a boolean, read as its default (true)`,
      "meta_title: rich text → text, shown as its plain text",
      "meta_description: a number → text, shown as text",
      "canonical_url: text → a link, shown as a link to that address",
    ]);
  });

  it("reads anything else as the field's empty value, never a throw, and names each field", () => {
    const list = demo(WEBSITES);
    list.data.rows[0].price = " 1200.50 "; // number-like text for a Number
    list.data.rows[1].price = "about 900"; // not a number
    list.data.rows.push("a row that is text"); // a group item of no shape
    list.data.description = { not: "rich text" };
    list.data.currency = ["EUR"]; // a Select holding a list: the model's default
    const read = normalizeDocument(list).data;
    expect(read.rows[0].price).toBe(1200.5);
    expect(read.rows[1].price).toBeNull();
    expect(read.rows).toHaveLength(list.data.rows.length - 1);
    expect(read.description).toEqual([]);
    expect(read.currency).toBe("USD");
    const last = list.data.rows.length - 1;
    expect(documentConversions(list).map((c) => `${c.field}: ${c.outcome}`)).toEqual([
      "description: shown empty",
      "currency: read as its default (“USD”)",
      // Items of no shape are left out before the others' fields are read.
      `rows[${last}]: left out`,
      "rows[0].price: read as the number 1200.5",
      "rows[1].price: shown empty",
    ]);

    const cases: [string, (doc: ReturnType<typeof demo>) => void, string, unknown][] = [
      ["a slice zone that is an object", (d) => (d.data.slices = { not: "a list" }), "slices", []],
      ["text turned into a group", (d) => (d.data.meta_title = [{ text: "x" }]), "meta_title", null],
      [
        "a slice's primary that is text",
        (d) => (d.data.slices[0].primary = "x"),
        "slices[0].primary",
        undefined,
      ],
      ["a slice that is text", (d) => (d.data.slices[0] = "x"), "slices[0]", undefined],
      ["an image that is text", (d) => (d.data.meta_image = "photo.jpg"), "meta_image", {}],
      [
        "a link that is not an address",
        (d) => (d.data.canonical_url = "javascript:alert(1)"),
        "canonical_url",
        { link_type: "Any" },
      ],
      ["data that is a list", (d) => (d.data = ["x"]), "data", undefined],
    ];
    for (const [name, change, field, value] of cases) {
      const doc = demo(ABOUT);
      change(doc);
      const read = normalizeDocument(doc);
      if (value !== undefined) expect(read.data[field], name).toEqual(value);
      expect(
        documentConversions(doc).map((c) => c.field),
        name,
      ).toEqual([field]);
    }
    // A slice of no shape is left out; a primary of no shape reads as every field empty.
    const about = demo(ABOUT);
    about.data.slices[0].primary = "x";
    expect(normalizeDocument(about).data.slices[0].primary).toEqual({ heading: [], body: [], embed: {} });
  });

  it("reports nothing for an empty value of the old kind: nothing is lost", () => {
    const page = demo(ABOUT);
    page.data.title = "";
    page.data.meta_title = [];
    page.data.meta_image = "";
    page.data.slices[0].primary.body = {};
    const read = normalizeDocument(page).data;
    expect([read.title, read.meta_title, read.meta_image, read.slices[0].primary.body]).toEqual([
      [],
      null,
      {},
      [],
    ]);
    expect(documentConversions(page)).toEqual([]);
  });
});

describe("documentNotices", () => {
  it("names each fallback and each slice left out, in an editor's words", () => {
    const settings = demo(SETTINGS);
    delete settings.data.header_navigation;
    settings.data.brand_name = "  ";
    const home = demo(HOME);
    home.data.title = [];
    home.data.meta_title = null;
    home.data.slices[1].variation = "split";
    home.data.slices.push({ slice_type: "testimonial", variation: "default", primary: {}, items: [] });
    const list = demo(WEBSITES);
    list.data.rows = [];
    delete list.data.title;
    const lines = [settings, home, list].flatMap((doc) => documentNotices(doc).map(describeNotice));
    expect(lines).toEqual([
      `settings ${SETTINGS} brand_name: has no brand name: the header, page titles and the footer show none`,
      `settings ${SETTINGS} header_navigation: has no header navigation: the header shows the brand only`,
      `page ${HOME} (home) title: has no title: visitors see the site name as its heading`,
      `page ${HOME} (home) slices[1]: slice “text_section” has variation “split”, which no component renders: visitors do not see it`,
      `page ${HOME} (home) slices[4]: slice “testimonial” has no component: visitors do not see it`,
      `price_list ${WEBSITES} (websites) title: has no title: visitors see “Websites” (its UID)`,
      `price_list ${WEBSITES} (websites) rows: has no rows with a name: no prices are shown`,
    ]);
    expect(documentNotices(home).map((n) => n.kind)).toEqual([
      "fallback",
      "unknown-variation",
      "unknown-slice",
    ]);
  });

  it("tells editors what a field of another kind became, naming the field", () => {
    const home = demo(HOME);
    home.data.slices[1].primary.body = "One line of text";
    home.data.meta_description = [{ type: "paragraph", text: "About us", spans: [] }];
    expect(documentNotices(home).map((n) => [n.kind, describeNotice(n)])).toEqual([
      [
        "converted",
        `page ${HOME} (home) slices[1].primary.body: has text in “slices[1].primary.body”, where the model has rich text (was the field's type changed?): shown as one paragraph; fill it in again and publish`,
      ],
      [
        "converted",
        `page ${HOME} (home) meta_description: has rich text in “meta_description”, where the model has text (was the field's type changed?): shown as its plain text; fill it in again and publish`,
      ],
    ]);
  });

  it("has nothing to say about the demo as published", () => {
    for (const id of [SETTINGS, HOME, ABOUT, WEBSITES]) expect(documentNotices(demo(id))).toEqual([]);
  });
});
