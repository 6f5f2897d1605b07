import { PREVIEW_COOKIE } from "#content";

export interface CookieContext {
  /** The request came over https (directly or through a proxy's `x-forwarded-proto`). */
  secure: boolean;
  /**
   * Prismic's toolbar reads the cookie and writes the next ref into it from
   * JavaScript, which an HttpOnly cookie forbids; with the local content
   * service there is no toolbar, so the cookie is kept away from scripts.
   */
  httpOnly: boolean;
}

/**
 * `SameSite=None; Secure` over https so the cookie is sent inside Prismic's
 * Page Builder iframe (a cross-site context); plain http cannot carry
 * `Secure`, so it gets `Lax` (top-level navigation still works). A session
 * cookie: a preview ends with the browser, the exit link, or Prismic's expiry.
 */
function attributes({ secure, httpOnly }: CookieContext): string {
  const parts = ["Path=/", secure ? "SameSite=None; Secure" : "SameSite=Lax"];
  if (httpOnly) parts.push("HttpOnly");
  return parts.join("; ");
}

export function previewCookie(token: string, context: CookieContext): string {
  return `${PREVIEW_COOKIE}=${encodeURIComponent(token)}; ${attributes(context)}`;
}

export function clearPreviewCookie(context: CookieContext): string {
  return `${PREVIEW_COOKIE}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; ${attributes(context)}`;
}
