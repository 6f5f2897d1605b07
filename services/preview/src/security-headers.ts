/**
 * The preview server's own headers (services/site has its own; services may
 * not import each other). Differences from the public site, and why:
 * - no `X-Frame-Options`: Prismic's Page Builder shows previews in an iframe
 *   on `https://<repo>.prismic.io`; `frame-ancestors` says who may frame us
 *   (and supersedes X-Frame-Options in browsers that know both);
 * - the toolbar (real repositories) loads scripts, frames and styles from
 *   Prismic's hosts and talks to them;
 * - the simulator may also be framed by Slice Machine on http://localhost.
 * `X-Robots-Tag: noindex` everywhere: drafts must never reach a search index.
 */
const PRISMIC = "https://*.prismic.io https://static.cdn.prismic.io";
/** The embed players web/src/lib/embed-providers.ts rebuilds (tests/unit/embed-providers.test.ts keeps them in step). */
const EMBEDS =
  "https://www.youtube-nocookie.com https://www.youtube.com https://player.vimeo.com https://www.google.com https://open.spotify.com https://w.soundcloud.com https://platform.twitter.com https://www.instagram.com";

export function securityHeaders(options: { toolbar: boolean; simulator: boolean }): Record<string, string> {
  const prismic = options.toolbar ? ` ${PRISMIC}` : "";
  const ancestors = options.simulator
    ? "'self' https://*.prismic.io http://localhost:* http://127.0.0.1:*"
    : "'self' https://*.prismic.io";
  return {
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "x-robots-tag": "noindex",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
    "content-security-policy": [
      "default-src 'self'",
      "img-src * data: blob:",
      `script-src 'self'${prismic}`,
      // The kit's "accessed directly" message and the toolbar style elements inline.
      options.simulator || options.toolbar
        ? `style-src 'self' 'unsafe-inline'${prismic}`
        : "style-src 'self'",
      `connect-src 'self'${prismic}`,
      `frame-src ${EMBEDS}${prismic}`,
      "form-action 'self'",
      "base-uri 'self'",
      `frame-ancestors ${ancestors}`,
      "object-src 'none'",
    ].join("; "),
  };
}
