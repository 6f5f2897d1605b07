/**
 * Every URL the site's HTML carries goes through these checks (links, image sources, image link
 * targets). Only these reach an `href`: site paths, fragments, web, mail and phone; an image
 * `src` may be a site path or a web URL. React 19 already neutralizes `javascript:` (with a
 * throwing stub that would still land in the HTML); anything else unexpected is dropped too.
 *
 * Browsers read a backslash as a slash in web URLs (`/\evil.example` is `//evil.example`, another
 * origin) and drop tabs and newlines anywhere (`/\t/evil.example` is `//evil.example` too), so
 * a URL is checked as the browser will read it, and one with control characters is refused.
 */
const SAFE_HREF = /^(?:\/(?!\/)|#|https?:\/\/|mailto:|tel:)/i;
const SAFE_SRC = /^(?:\/(?!\/)|https?:\/\/)/i;

/** The URL as a browser's parser sees it: surrounding spaces trimmed, backslashes read as slashes. */
function asBrowserReads(url: string): string | undefined {
  const trimmed = url.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) return undefined;
  return trimmed.replaceAll("\\", "/");
}

export function isSafeHref(href: string | null | undefined): href is string {
  if (typeof href !== "string") return false;
  const read = asBrowserReads(href);
  return read !== undefined && SAFE_HREF.test(read);
}

/** An image source: this site's paths or a web URL; never `//host`, `/\host`, `data:` or a script. */
export function isSafeImageSrc(src: string | null | undefined): src is string {
  if (typeof src !== "string") return false;
  const read = asBrowserReads(src);
  return read !== undefined && SAFE_SRC.test(read);
}
