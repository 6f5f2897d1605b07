/**
 * A paragraph with 2,000+ overlapping spans must not make the rich text render recurse thousands
 * of levels deep ("Maximum call stack size exceeded") nor produce hundreds of kilobytes. The site
 * keeps the text whole and renders at most MAX_SPANS_PER_BLOCK spans of it, so the work is bounded
 * whatever the content.
 */
import type { RichTextField } from "@prismicio/client";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { MAX_SPANS_PER_BLOCK } from "#web/components/limit-spans.ts";
import { RichText } from "#web/components/rich-text.tsx";

const TEXT = "x".repeat(3000);

function paragraph(spans: number): RichTextField {
  return [
    {
      type: "paragraph",
      text: TEXT,
      spans: Array.from({ length: spans }, (_, i) => ({
        type: i % 2 ? "em" : "strong",
        start: i,
        end: Math.min(TEXT.length, i + 500),
      })),
    },
  ] as RichTextField;
}

const render = (field: RichTextField) => renderToStaticMarkup(createElement(RichText, { field }));
const count = (html: string, tag: string) => html.split(`<${tag}>`).length - 1;

describe("rich text with thousands of overlapping spans", () => {
  it("renders the whole text with a bounded number of elements", () => {
    const html = render(paragraph(2_500));
    expect(html.replace(/<[^>]+>/g, "")).toBe(TEXT);
    // Each kept span may be split where it overlaps its neighbours, never beyond the kept ones'.
    expect(count(html, "strong") + count(html, "em")).toBeLessThanOrEqual(MAX_SPANS_PER_BLOCK ** 2);
  });

  it("leaves ordinary paragraphs as they are", () => {
    const html = render(paragraph(3));
    expect(html.replace(/<[^>]+>/g, "")).toBe(TEXT);
    expect(count(html, "strong")).toBeGreaterThanOrEqual(2);
    expect(count(html, "em")).toBeGreaterThanOrEqual(1);
  });
});
