import type { ImageField, RichTextField } from "@prismicio/client";
import { PrismicRichText, type RichTextComponents } from "@prismicio/react";
import type { ReactNode } from "react";
import { isSafeImageSrc } from "../lib/safe-href.ts";
import { AppLink } from "./app-link.tsx";
import { ContentImage } from "./content-image.tsx";
import { Embed } from "./embed.tsx";
import { type HeadingPlace, outlineHeadings } from "./heading-outline.ts";
import { limitSpans } from "./limit-spans.ts";

/** Rich text runs in the content column: at most about 720 px wide. */
const RICH_TEXT_IMAGE_SIZES = "(min-width: 800px) 720px, 100vw";

/**
 * Links through AppLink (safe hrefs, new-tab hint); images through ContentImage (safe src) and
 * their link targets through AppLink (the kit's default image skips both); embeds rebuilt safely,
 * never inserted raw.
 */
export const baseRichTextComponents: RichTextComponents = {
  hyperlink: ({ node, children }) => <AppLink field={node.data}>{children}</AppLink>,
  image: ({ node }) => {
    // Nothing, but not null: null would hand the node to the kit's default, unfiltered image.
    if (!isSafeImageSrc(node.url)) return "";
    const image = <ContentImage field={node as unknown as ImageField} sizes={RICH_TEXT_IMAGE_SIZES} />;
    return (
      <p className="block-img">{node.linkTo ? <AppLink field={node.linkTo}>{image}</AppLink> : image}</p>
    );
  },
  embed: ({ node }) => <Embed oembed={node.oembed} />,
};

/** Under the page's `<h1>`, with no heading before: where most fields sit. */
const UNDER_TITLE: HeadingPlace = { parent: 1 };

/**
 * Rich text with the site's link and embed rules, its headings clamped into the page's outline
 * (`headings`: where the field sits; by default right under the page title). Pass extra components
 * (e.g. heading classes) as a constant made with `richTextComponents()`, not an object literal per
 * render.
 */
export function RichText({
  field,
  components = baseRichTextComponents,
  headings = UNDER_TITLE,
}: {
  field: RichTextField | null | undefined;
  components?: RichTextComponents;
  headings?: HeadingPlace;
}): ReactNode {
  return (
    <PrismicRichText field={outlineHeadings(limitSpans(field), headings).field} components={components} />
  );
}

export function richTextComponents(extra: RichTextComponents): RichTextComponents {
  return { ...baseRichTextComponents, ...extra };
}
