/**
 * Only these reach an `href`: site paths, fragments, web, mail and phone.
 * React 19 already neutralizes `javascript:` (with a throwing stub that would
 * still land in the HTML); anything else unexpected is dropped too.
 */
const SAFE = /^(?:\/(?!\/)|#|https?:\/\/|mailto:|tel:)/i;

export function isSafeHref(href: string | null | undefined): href is string {
  return typeof href === "string" && SAFE.test(href.trim());
}
