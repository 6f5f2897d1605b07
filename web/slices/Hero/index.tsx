import { isFilled, type LinkField } from "@prismicio/client";
import type { SliceComponentProps } from "@prismicio/react";
import type { ReactNode } from "react";
import type { HeroSlice } from "../../prismicio-types.d.ts";
import { AppLink } from "../../src/components/app-link.tsx";
import { ContentImage } from "../../src/components/content-image.tsx";
import { outlineHeadings } from "../../src/components/heading-outline.ts";
import { RichText, richTextComponents } from "../../src/components/rich-text.tsx";
import type { SliceContext } from "../../src/slice-context.ts";

const headingComponents = richTextComponents({
  heading1: ({ children }) => <h1 className="hero__heading">{children}</h1>,
  heading2: ({ children }) => <h2 className="hero__heading">{children}</h2>,
});

/** The heading field is outlined above; a leading `<h1>` must survive the rich text's own pass. */
const LEADING = { parent: 0, leads: true } as const;

/** The opening section: eyebrow, heading, a sentence or two, up to two calls to action, a wide image. */
export default function Hero({
  slice,
  index,
  context,
}: SliceComponentProps<HeroSlice, SliceContext>): ReactNode {
  const p = slice.primary;
  // A Heading 1 in the page's first slice is the page's `<h1>` (page-view.tsx); anywhere else a section's.
  const heading = outlineHeadings(p.heading, { parent: 1, leads: index === 0 });
  return (
    <section className="slice hero" data-slice-type={slice.slice_type} data-slice-variation={slice.variation}>
      <div className="container hero__inner">
        <div className="hero__text">
          {p.eyebrow ? <p className="eyebrow">{p.eyebrow}</p> : null}
          <RichText field={heading.field} components={headingComponents} headings={LEADING} />
          {isFilled.richText(p.body) ? (
            <div className="hero__body">
              <RichText field={p.body} headings={{ parent: 1, previous: heading.last }} />
            </div>
          ) : null}
          <CallsToAction
            primary={[p.primary_cta_label, p.primary_cta_link]}
            secondary={[p.secondary_cta_label, p.secondary_cta_link]}
          />
        </div>
        {isFilled.image(p.image) ? (
          <div className="hero__media">
            <ContentImage
              field={p.image}
              sizes="(min-width: 74rem) 40rem, (min-width: 60rem) 55vw, 100vw"
              priority={index === context.priorityIndex}
              className="hero__image"
            />
          </div>
        ) : null}
      </div>
    </section>
  );
}

type Cta = [label: string | null, link: LinkField];

function CallsToAction({ primary, secondary }: { primary: Cta; secondary: Cta }): ReactNode {
  const shown = (cta: Cta) => Boolean(cta[0]) && isFilled.link(cta[1]);
  if (!shown(primary) && !shown(secondary)) return null;
  return (
    <div className="hero__actions">
      {shown(primary) ? (
        <AppLink field={primary[1]} className="button">
          {primary[0]}
        </AppLink>
      ) : null}
      {shown(secondary) ? (
        <AppLink field={secondary[1]} className="button button--secondary">
          {secondary[0]}
        </AppLink>
      ) : null}
    </div>
  );
}
