import { asImageWidthSrcSet, asLink, asLinkAttrs, type ImageField, isFilled } from "@prismicio/client";
import type { SliceComponentProps } from "@prismicio/react";
import type { ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import type { CarouselSlice } from "../../prismicio-types.d.ts";
import { type CarouselProps, type CarouselSlide, CarouselView } from "../../src/browser/islands/carousel.tsx";
import { Island } from "../../src/components/island.tsx";
import { RichText } from "../../src/components/rich-text.tsx";
import { islandId } from "../../src/lib/island-id.ts";
import { isSafeHref, isSafeImageSrc } from "../../src/lib/safe-href.ts";
import type { SliceContext } from "../../src/slice-context.ts";

const IMGIX_HOST = "https://images.prismic.io/";
/** The widths ContentImage offers, so a slide loads the same files as any other content image. */
const WIDTHS = [480, 768, 1024, 1440, 1920];

/**
 * The carousel island (web/src/browser/islands/carousel.tsx): every slide in the
 * server HTML as a scroll-snapping list, which works without JavaScript; the
 * island starts Swiper on it (autoplay 3 s, 300 ms slides, pause on hover, loop
 * when the slice says infinite). Everything the view needs is prepared here as
 * plain JSON: image urls, resolved links, captions rendered to HTML.
 */
export default function Carousel({
  slice,
  index,
}: SliceComponentProps<CarouselSlice, SliceContext>): ReactNode {
  // A slide whose image url is not a safe source (ContentImage's rule) is left out, like an empty one.
  const slides = slice.items.filter((item) => isFilled.image(item.image) && isSafeImageSrc(item.image.url));
  if (slides.length === 0) return null;
  const id = islandId(slice, index);
  const heading = slice.primary.heading?.trim();
  const props: CarouselProps = {
    label: heading ? `${heading}: slides` : "Slides",
    slides: slides.map(
      (item): CarouselSlide => ({
        ...slideImage(item.image),
        ...slideLink(item.link),
        ...(isFilled.richText(item.caption)
          ? {
              captionHtml: renderToStaticMarkup(
                <RichText field={item.caption} headings={{ parent: heading ? 2 : 1 }} />,
              ),
            }
          : {}),
      }),
    ),
    autoplay: slice.primary.autoplay === true,
    delay: 3000,
    speed: 300,
    pauseOnHover: true,
    loop: slice.primary.infinite === true,
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
      <Island name="carousel" id={id} component={CarouselView} props={props} />
    </section>
  );
}

/** As ContentImage renders it: imgix gets a width srcset, any other host the original url. */
function slideImage(field: ImageField): Pick<CarouselSlide, "src" | "srcSet" | "width" | "height" | "alt"> {
  const { width, height } = field.dimensions ?? {};
  const alt = field.alt || "";
  if (field.url?.startsWith(IMGIX_HOST)) {
    const { src, srcset } = asImageWidthSrcSet(field, { widths: WIDTHS });
    return { src, srcSet: srcset, width, height, alt };
  }
  return { src: field.url ?? "", width, height, alt };
}

/** As AppLink resolves it: unsafe or empty links leave the image unlinked. */
function slideLink(
  field: CarouselSlice["items"][number]["link"],
): Pick<CarouselSlide, "href" | "target" | "rel"> {
  if (!isFilled.link(field) || !isSafeHref(asLink(field))) return {};
  const { href, target, rel } = asLinkAttrs(field);
  if (!href) return {};
  return { href, ...(target ? { target } : {}), ...(rel ? { rel } : {}) };
}
