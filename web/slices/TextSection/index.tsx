import { isFilled } from "@prismicio/client";
import type { SliceComponentProps } from "@prismicio/react";
import type { ReactNode } from "react";
import type { TextSectionSlice } from "../../prismicio-types.d.ts";
import { Embed } from "../../src/components/embed.tsx";
import { outlineHeadings } from "../../src/components/heading-outline.ts";
import { RichText } from "../../src/components/rich-text.tsx";
import type { SliceContext } from "../../src/slice-context.ts";

/** A heading, running text (lists, links, embeds) and an optional video or map, in a readable column. */
export default function TextSection({
  slice,
}: SliceComponentProps<TextSectionSlice, SliceContext>): ReactNode {
  const p = slice.primary;
  // The body's headings continue below the section heading (h2 → h3), whatever levels were written.
  const heading = outlineHeadings(p.heading, { parent: 1 });
  return (
    <section
      className="slice text-section"
      data-slice-type={slice.slice_type}
      data-slice-variation={slice.variation}
    >
      <div className="container container--narrow prose">
        <RichText field={heading.field} />
        <RichText field={p.body} headings={{ parent: 1, previous: heading.last }} />
        {isFilled.embed(p.embed) ? <Embed oembed={p.embed} /> : null}
      </div>
    </section>
  );
}
