import { isSafeHref, isSafeImageSrc } from "./safe-href.ts";
import { absoluteUrl } from "./site-url.ts";

const WEB = /^https?:\/\//i;

/**
 * A URL structured data may carry: JSON-LD is read by machines away from the page, so every URL
 * is absolute (`siteUrl` + a site path) and web-only; anything else the HTML would refuse
 * (`isSafeHref`: `javascript:`, `//host`, control characters) is left out, as is `mailto:`/`tel:`.
 */
export function absoluteWebUrl(siteUrl: string, url: string | null | undefined): string | undefined {
  if (!isSafeHref(url)) return undefined;
  const trimmed = url.trim();
  if (trimmed.startsWith("/")) return absoluteUrl(siteUrl, trimmed);
  return WEB.test(trimmed) ? trimmed : undefined;
}

/** An image URL for structured data: the same rule as an `<img src>`, made absolute. */
export function absoluteImageUrl(siteUrl: string, src: string | null | undefined): string | undefined {
  if (!isSafeImageSrc(src)) return undefined;
  const trimmed = src.trim();
  return trimmed.startsWith("/") ? absoluteUrl(siteUrl, trimmed) : trimmed;
}
