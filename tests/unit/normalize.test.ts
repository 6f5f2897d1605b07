import { readFileSync } from "node:fs";
import type { PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { ContentShapeError, describeNotice, documentNotices, normalizeDocument } from "#web/content/index.ts";

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
      // The SEO fields of issue 23: a page published before them is listed and canonical to itself.
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

  it("refuses a value of another kind, naming the field: the route keeps its last good page", () => {
    const cases: [string, (doc: ReturnType<typeof demo>) => void, string][] = [
      ["a slice zone that is an object", (d) => (d.data.slices = { not: "a list" }), "data.slices"],
      ["text turned into a group", (d) => (d.data.meta_title = [{ text: "x" }]), "data.meta_title"],
      ["a number as text", (d) => (d.data.meta_description = 12), "data.meta_description"],
      ["a slice's primary that is text", (d) => (d.data.slices[0].primary = "x"), "data.slices[0].primary"],
      [
        "a boolean as text",
        (d) => (d.data.slices[1].primary.autoplay = "yes"),
        "data.slices[1].primary.autoplay",
      ],
    ];
    for (const [name, change, path] of cases) {
      const doc = demo(ABOUT);
      change(doc);
      const error = (() => {
        try {
          normalizeDocument(doc);
        } catch (e) {
          return e;
        }
      })();
      expect(error, name).toBeInstanceOf(ContentShapeError);
      expect((error as ContentShapeError).path, name).toBe(path);
      expect((error as Error).message, name).toMatch(/does not fit its model .*publish it again$/);
      // The route failure says it; no notice is made of it.
      expect(documentNotices(doc), name).toEqual([]);
    }
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

  it("has nothing to say about the demo as published", () => {
    for (const id of [SETTINGS, HOME, ABOUT, WEBSITES]) expect(documentNotices(demo(id))).toEqual([]);
  });
});
