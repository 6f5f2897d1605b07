import { builtInPage, FALLBACK_CSS, FALLBACK_CSS_PATH } from "../http/error-pages.ts";

/**
 * The edge's own page (infra/varnish/default.vcl, `vcl_synth`) for a page it never held while the
 * site server is down: the site's built-in fallback page (its palette and type, the spec's words for
 * an error page that failed as well, "Go back to home"), its stylesheet inlined — the site server,
 * which serves that stylesheet, is the one down — and no reference (nothing in the site's logs to
 * find). The VCL holds this text as it is; tests/unit/edge-vcl.test.ts keeps the two equal.
 */
export function edgeUnavailablePage(): string {
  return builtInPage({ status: 503, requestId: "", fallback: "failed-as-well" })
    .replace(`<link rel="stylesheet" href="${FALLBACK_CSS_PATH}">`, `<style>${FALLBACK_CSS.trim()}</style>`)
    .replace(/<p class="error-page__reference"[^>]*>.*?<\/p>/, "");
}
