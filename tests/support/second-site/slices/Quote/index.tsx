import type { KeyTextField, RichTextField, SharedSlice, SharedSliceVariation } from "@prismicio/client";
import { PrismicRichText, type SliceComponentProps } from "@prismicio/react";
import type { ReactNode } from "react";

export type QuoteSlice = SharedSlice<
  "quote",
  SharedSliceVariation<"default", { text: RichTextField; author: KeyTextField }, never>
>;

/** A quotation and who said it. Renders on the server and in the slice simulator alike. */
export default function Quote({ slice }: SliceComponentProps<QuoteSlice>): ReactNode {
  return (
    <figure className="quote" data-slice-type={slice.slice_type} data-slice-variation={slice.variation}>
      <blockquote>
        <PrismicRichText field={slice.primary.text} />
      </blockquote>
      {slice.primary.author ? <figcaption>{slice.primary.author}</figcaption> : null}
    </figure>
  );
}
