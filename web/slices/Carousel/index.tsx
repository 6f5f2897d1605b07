import { isFilled } from "@prismicio/client";
import type { SliceComponentProps } from "@prismicio/react";
import type { ReactNode } from "react";
import type { CarouselSlice } from "../../prismicio-types.d.ts";
import { AppLink } from "../../src/components/app-link.tsx";
import { ContentImage } from "../../src/components/content-image.tsx";
import { Island } from "../../src/components/island.tsx";
import { RichText } from "../../src/components/rich-text.tsx";
import { islandId } from "../../src/lib/island-id.ts";
import type { SliceContext } from "../../src/slice-context.ts";

/** What the carousel island is started with (ARCHITECTURE.md: autoplay 3 s, 300 ms slides, pause on hover). */
export interface CarouselIslandProps {
  autoplay: boolean;
  delay: number;
  speed: number;
  pauseOnHover: boolean;
  loop: boolean;
  slides: number;
}

const SLIDE_SIZES = "(min-width: 48rem) 40rem, 84vw";

/**
 * Every slide is in the server HTML as a scroll-snapping list, so the gallery
 * works (swipe, scroll, keyboard) without JavaScript; the island adds
 * autoplay and controls.
 */
export default function Carousel({
  slice,
  index,
}: SliceComponentProps<CarouselSlice, SliceContext>): ReactNode {
  const slides = slice.items.filter((item) => isFilled.image(item.image));
  if (slides.length === 0) return null;
  const id = islandId(slice, index);
  const heading = slice.primary.heading?.trim();
  const props: CarouselIslandProps = {
    autoplay: slice.primary.autoplay === true,
    delay: 3000,
    speed: 300,
    pauseOnHover: true,
    loop: slice.primary.infinite === true,
    slides: slides.length,
  };
  return (
    <section
      className="slice carousel"
      data-slice-type={slice.slice_type}
      data-slice-variation={slice.variation}
      aria-labelledby={heading ? `${id}-heading` : undefined}
      aria-label={heading ? undefined : "Gallery"}
    >
      {heading ? (
        <div className="container">
          <h2 className="section-heading" id={`${id}-heading`}>
            {heading}
          </h2>
        </div>
      ) : null}
      <Island name="carousel" id={id} props={props}>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to scroll */}
        <ul className="carousel__track" tabIndex={0} aria-label={heading ? `${heading}: slides` : "Slides"}>
          {slides.map((item, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rendered once on the server and never reordered; the index keeps keys unique when editors repeat an entry
            <li className="carousel__slide" key={`${i}-${item.image.url}`}>
              <figure className="carousel__figure">
                {isFilled.link(item.link) ? (
                  <AppLink field={item.link} className="carousel__link">
                    <ContentImage field={item.image} sizes={SLIDE_SIZES} className="carousel__image" />
                  </AppLink>
                ) : (
                  <ContentImage field={item.image} sizes={SLIDE_SIZES} className="carousel__image" />
                )}
                {isFilled.richText(item.caption) ? (
                  <figcaption className="carousel__caption">
                    <RichText field={item.caption} />
                  </figcaption>
                ) : null}
              </figure>
            </li>
          ))}
        </ul>
      </Island>
    </section>
  );
}
