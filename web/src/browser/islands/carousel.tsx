import type { KeyboardEvent, ReactNode, Ref } from "react";

/** One slide, prepared on the server (image urls, the resolved link, the caption as HTML). */
export interface CarouselSlide {
  src: string;
  /** Prismic's image CDN only: a width-based srcset. */
  srcSet?: string;
  width?: number;
  height?: number;
  alt: string;
  href?: string;
  target?: string;
  rel?: string;
  /** The caption's rich text rendered to HTML on the server (the rich-text renderer is server-side). */
  captionHtml?: string;
}

/** What the server serializes for the carousel island (plain JSON). */
export interface CarouselProps {
  /** The list's accessible name. */
  label: string;
  slides: CarouselSlide[];
  autoplay: boolean;
  /** Milliseconds each slide stays. */
  delay: number;
  /** Milliseconds a slide takes to move. */
  speed: number;
  pauseOnHover: boolean;
  /** After the last slide comes the first (the slice's `infinite`). */
  loop: boolean;
}

export const SLIDE_SIZES = "(min-width: 48rem) 40rem, 84vw";

/**
 * Every slide in the server HTML as a scroll-snapping list, so the gallery works (swipe,
 * scroll, keyboard) without JavaScript; the island's client starts Swiper on the same
 * elements (the viewport is Swiper's container, the list its wrapper).
 */
export function CarouselView({
  label,
  slides,
  viewportRef,
  onKeyDown,
  controls,
}: CarouselProps & {
  viewportRef?: Ref<HTMLDivElement>;
  onKeyDown?: (event: KeyboardEvent<HTMLUListElement>) => void;
  /** The live island's buttons (none in the server's markup: without a script they would do nothing). */
  controls?: ReactNode;
}): ReactNode {
  return (
    <>
      <div className="carousel__viewport" ref={viewportRef}>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to scroll */}
        <ul className="carousel__track" tabIndex={0} aria-label={label} onKeyDown={onKeyDown}>
          {slides.map((slide, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the list never changes after rendering; the index keeps keys unique when editors repeat an image
            <li className="carousel__slide" key={`${i}-${slide.src}`}>
              <figure className="carousel__figure">
                {slide.href ? (
                  <a target={slide.target} className="carousel__link" href={slide.href} rel={slide.rel}>
                    <SlideImage slide={slide} />
                    {slide.target === "_blank" ? (
                      <span className="sr-only"> (opens in a new tab)</span>
                    ) : null}
                  </a>
                ) : (
                  <SlideImage slide={slide} />
                )}
                {slide.captionHtml ? (
                  <figcaption
                    className="carousel__caption"
                    // biome-ignore lint/security/noDangerouslySetInnerHtml: rendered on the server by RichText (escaped text, safe links only); the browser cannot run the rich-text renderer
                    dangerouslySetInnerHTML={{ __html: slide.captionHtml }}
                  />
                ) : null}
              </figure>
            </li>
          ))}
        </ul>
      </div>
      {controls}
    </>
  );
}

function SlideImage({ slide }: { slide: CarouselSlide }): ReactNode {
  return (
    <img
      src={slide.src}
      srcSet={slide.srcSet}
      alt={slide.alt}
      sizes={slide.srcSet ? SLIDE_SIZES : undefined}
      width={slide.width}
      height={slide.height}
      loading="lazy"
      decoding="async"
      className="carousel__image"
    />
  );
}
