import type { RichTextField } from "@prismicio/client";
import { PrismicRichText, type RichTextComponents } from "@prismicio/react";
import type { ReactNode } from "react";
import { AppLink } from "./app-link.tsx";
import { Embed } from "./embed.tsx";
import { limitSpans } from "./limit-spans.ts";

/** Links through AppLink (safe hrefs, new-tab hint); embeds rebuilt safely, never inserted raw. */
export const baseRichTextComponents: RichTextComponents = {
  hyperlink: ({ node, children }) => <AppLink field={node.data}>{children}</AppLink>,
  embed: ({ node }) => <Embed oembed={node.oembed} />,
};

/**
 * Rich text with the site's link and embed rules. Pass extra components
 * (e.g. heading classes) as a constant made with `richTextComponents()`, not
 * an object literal per render.
 */
export function RichText({
  field,
  components = baseRichTextComponents,
}: {
  field: RichTextField | null | undefined;
  components?: RichTextComponents;
}): ReactNode {
  return <PrismicRichText field={limitSpans(field)} components={components} />;
}

export function richTextComponents(extra: RichTextComponents): RichTextComponents {
  return { ...baseRichTextComponents, ...extra };
}
