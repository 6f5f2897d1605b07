import { type ImageField, isFilled } from "@prismicio/client";
import { PrismicImage } from "@prismicio/react";
import type { ReactNode } from "react";
import { isSafeImageSrc } from "../lib/safe-href.ts";

const IMGIX_HOST = "https://images.prismic.io/";
const WIDTHS = [480, 768, 1024, 1440, 1920];

export interface ContentImageProps {
  field: ImageField | null | undefined;
  /** The `sizes` attribute: how wide the image is shown at each viewport width. */
  sizes: string;
  /** The page's main image: loaded eagerly with high priority (one per page). */
  priority?: boolean;
  /** Above the fold but not the main image (the logo): eager, normal priority. */
  eager?: boolean;
  /** The text next to the image already says what it shows: empty alt, so it is not read twice. */
  decorative?: boolean;
  className?: string;
}

/**
 * Prismic's image CDN (imgix) gets a width-based srcset; any other host (the
 * local content service, a proxy) gets the original url, since imgix
 * parameters would mean nothing there. Both carry width and height so the
 * browser reserves the space before the image arrives.
 */
export function ContentImage({
  field,
  sizes,
  priority = false,
  eager = false,
  decorative = false,
  className,
}: ContentImageProps): ReactNode {
  if (!isFilled.image(field) || !isSafeImageSrc(field.url)) return null;
  const { width, height } = field.dimensions;
  const loading = priority || eager ? "eager" : "lazy";
  const fetchPriority = priority ? "high" : undefined;
  if (field.url.startsWith(IMGIX_HOST)) {
    return (
      <PrismicImage
        field={field}
        widths={WIDTHS}
        sizes={sizes}
        width={width}
        height={height}
        loading={loading}
        fetchPriority={fetchPriority}
        decoding="async"
        {...(decorative ? { alt: "" as const } : { fallbackAlt: "" as const })}
        className={className}
      />
    );
  }
  return (
    <img
      src={field.url}
      alt={decorative ? "" : (field.alt ?? "")}
      width={width}
      height={height}
      loading={loading}
      fetchPriority={fetchPriority}
      decoding="async"
      className={className}
    />
  );
}
