import type { RichTextField } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { outlineHeadings } from "#web/components/heading-outline.ts";

/** A rich text field of these block types (each with its type as text). */
const field = (...types: string[]) =>
  types.map((type) => ({ type, text: type, spans: [] })) as unknown as RichTextField;
const levels = (value: RichTextField | null | undefined) => (value ?? []).map((block) => block.type);

describe("outlineHeadings: editors' headings kept in the page's outline", () => {
  it("under the page title: never an <h1>, never a skipped level; the written structure kept", () => {
    const under = { parent: 1 };
    expect(levels(outlineHeadings(field("heading3", "paragraph", "heading4"), under).field)).toEqual([
      "heading2",
      "paragraph",
      "heading3",
    ]);
    expect(levels(outlineHeadings(field("heading1", "heading2", "heading2"), under).field)).toEqual([
      "heading2",
      "heading2",
      "heading2",
    ]);
    expect(
      levels(outlineHeadings(field("heading2", "heading4", "heading3", "heading2", "heading6"), under).field),
    ).toEqual(["heading2", "heading3", "heading3", "heading2", "heading3"]);
  });

  it("a field after a section heading continues below it; under an <h2>, nothing above <h3>", () => {
    const heading = outlineHeadings(field("heading3"), { parent: 1 });
    expect(levels(heading.field)).toEqual(["heading2"]);
    expect(heading.last).toBe(2);
    const body = outlineHeadings(field("heading4", "heading3", "heading2"), {
      parent: 1,
      previous: heading.last,
    });
    expect(levels(body.field)).toEqual(["heading3", "heading3", "heading2"]);
    expect(levels(outlineHeadings(field("heading2", "heading1"), { parent: 2 }).field)).toEqual([
      "heading3",
      "heading3",
    ]);
  });

  it("a leading field keeps a Heading 1 that opens it (the page's <h1>), and only that one", () => {
    const lead = { parent: 1, leads: true };
    expect(levels(outlineHeadings(field("heading1", "heading1"), lead).field)).toEqual([
      "heading1",
      "heading2",
    ]);
    expect(levels(outlineHeadings(field("heading2"), lead).field)).toEqual(["heading2"]);
    // Not its first block: the page has its title as <h1> already (page-view.tsx).
    expect(levels(outlineHeadings(field("paragraph", "heading1"), lead).field)).toEqual([
      "paragraph",
      "heading2",
    ]);
  });

  it("content as Prismic sends it: absent or empty is empty, an unchanged field is the same object", () => {
    expect(outlineHeadings(undefined, { parent: 1 })).toEqual({ field: undefined, last: 1 });
    expect(outlineHeadings(null, { parent: 2 }).last).toBe(2);
    const fine = field("heading2", "paragraph", "heading3");
    expect(outlineHeadings(fine, { parent: 1 }).field).toBe(fine);
  });
});
