import { randomBytes } from "node:crypto";
import { ContentApiError, ContentTimeoutError, ShuttingDownError } from "../errors.ts";
import { StorageError } from "../storage/storage-errors.ts";

/**
 * Error answers for visitors and editors, the same on every server (site, preview, webhook):
 * an HTML page with the status, a short human message, the request id and a link home; JSON for
 * clients that ask for it; details only in the log. The site's own stored pages (404.html,
 * 500.html, 503.html, rendered with the site) come first; these built-in pages are the fallback
 * when the stored one cannot be shown. Wording from the site spec's error catalogue.
 */

/** The stored error page could not be shown (the answer was not itself a failure, e.g. a 404). */
export const ERROR_PAGE_FAILED = "An error occurred while showing the error page";
/** The request failed, and showing the error page for it failed as well. */
export const ERROR_PAGE_FAILED_AS_WELL =
  "Unfortunately an error occurred and while showing the error page another error occurred";
export const HOME_LINK_TEXT = "Go back to home";

/** Served by every server from memory: the fallback page is styled even with storage down (CSP `style-src 'self'`). */
export const FALLBACK_CSS_PATH = "/_pressroom/error-page.css";
/** Seconds a client should wait after a 503 before trying again. */
export const RETRY_AFTER_SECONDS = 30;

export const STATUS_TEXT: Record<number, { title: string; text: string }> = {
  400: { title: "This request could not be read", text: "The address or the form sent was not understood." },
  404: {
    title: "This page could not be found",
    text: "The address may be mistyped, or the page may have moved.",
  },
  405: { title: "This address does not accept that request", text: "Open it as a normal page instead." },
  413: { title: "This request is too large", text: "What was sent is larger than this site accepts." },
  429: { title: "Too many requests", text: "Please wait a moment, then try again." },
  500: {
    title: "Something went wrong on our side",
    text: "This page could not be shown because of an error on our server. It has been logged; please try again in a moment.",
  },
  503: {
    title: "This site is briefly unavailable",
    text: "The site cannot be reached right now, most likely for a minute or two. Please try again shortly.",
  },
};

export function statusText(status: number): { title: string; text: string } {
  return (
    STATUS_TEXT[status] ??
    (status >= 500
      ? (STATUS_TEXT[500] as { title: string; text: string })
      : (STATUS_TEXT[400] as { title: string; text: string }))
  );
}

/**
 * A request id that is unique across restarts and replicas (Fastify's default `req-1` is not), for
 * `genReqId`. Random bytes are drawn 4 KiB at a time: a draw per request costs a large share of a
 * page request's CPU.
 */
export function newRequestId(): string {
  if (idOffset + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * 512);
    idOffset = 0;
  }
  const id = idPool.toString("hex", idOffset, idOffset + ID_BYTES);
  idOffset += ID_BYTES;
  return id;
}
const ID_BYTES = 8;
let idPool = Buffer.alloc(0);
let idOffset = 0;

/**
 * 503 for what passes (storage or content API unreachable, timing out, answering 5xx or 429):
 * the visitor should come back; 500 for anything else (a folder without permission, a bug).
 */
export function statusForFailure(error: unknown): 500 | 503 {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if (current instanceof StorageError) return current.retryable ? 503 : 500;
    if (current instanceof ContentApiError) return current.retryable ? 503 : 500;
    if (current instanceof ContentTimeoutError || current instanceof ShuttingDownError) return 503;
    if (current instanceof TypeError && /fetch failed/i.test(current.message)) return 503;
    current = current.cause;
  }
  return 500;
}

/** True when the client asks for JSON rather than HTML (`Accept: application/json`, ranked by q and order). */
export function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(",").map((part, index) => {
    const [type = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return { type: type.trim(), q: q === undefined ? 1 : Number(q), index };
  });
  const best = (types: string[]) =>
    ranges.filter((r) => types.includes(r.type) && r.q > 0).sort((a, b) => b.q - a.q || a.index - b.index)[0];
  const json = best(["application/json", "application/problem+json"]);
  const html = best(["text/html", "application/xhtml+xml"]);
  if (!json) return false;
  return !html || json.q > html.q || (json.q === html.q && json.index < html.index);
}

/** The JSON body for JSON clients: the status and a human message, never the error's own message. */
export function jsonError(status: number, requestId: string): Record<string, unknown> {
  return { statusCode: status, error: statusText(status).title, requestId };
}

/** The site's stored error pages carry an empty, hidden slot for the request id (web/src/pages/error-view.tsx). */
const REQUEST_ID_SLOT = '<p class="error-page__reference" data-request-id="" hidden=""></p>';

/** A stored error page with the request id shown in its slot (unchanged when it has none). */
export function withRequestId(html: string, requestId: string): string {
  return html.replace(REQUEST_ID_SLOT, referenceParagraph(requestId));
}

function referenceParagraph(requestId: string): string {
  return `<p class="error-page__reference" data-request-id="${escapeHtml(requestId)}">Reference: <code>${escapeHtml(requestId)}</code></p>`;
}

/**
 * The built-in page: for statuses the site stores no page for (a 400 from the HTTP layer), and the
 * fallback when the stored error page cannot be shown (missing, or storage down), which `fallback`
 * says in the spec's words. No detail of any failure: those are in the log, under the request id.
 */
export function builtInPage(options: {
  status: number;
  requestId: string;
  fallback?: "failed" | "failed-as-well";
  /** Replaces the status's own sentence (the preview tells editors what is down). */
  text?: string;
}): string {
  const { title } = statusText(options.status);
  const text = options.text ?? statusText(options.status).text;
  const sentence =
    options.fallback === "failed-as-well"
      ? ERROR_PAGE_FAILED_AS_WELL
      : options.fallback === "failed"
        ? ERROR_PAGE_FAILED
        : undefined;
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title>`,
    `<link rel="stylesheet" href="${FALLBACK_CSS_PATH}">`,
    '</head><body><main class="fallback" id="main">',
    `<p class="fallback__status">Error ${options.status}</p>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>${escapeHtml(text)}</p>`,
    sentence ? `<p data-fallback-message="">${sentence}.</p>` : "",
    referenceParagraph(options.requestId),
    `<p><a class="fallback__home" href="/">${HOME_LINK_TEXT}</a></p>`,
    "</main></body></html>",
  ].join("");
}

/** The fallback page's look: the site's palette and type, nothing to load (web/src/styles/palette.ts). */
export const FALLBACK_CSS = `html{background:#fffaf2;color:#0e2236;font:1.0625rem/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center}
.fallback{max-width:36rem;margin:2rem;padding:2.5rem;background:#f4e9d8;border-radius:1rem;box-shadow:inset 0 .5rem 0 #e76f51}
@media (max-width:30rem){.fallback{margin:1rem;padding:2rem 1.25rem}}
.fallback h1{color:#16324f;font-size:1.75rem;line-height:1.2;margin:.25rem 0 1rem}
.fallback__status{margin:0;color:#1a6b61;font-weight:700;letter-spacing:.08em;text-transform:uppercase;font-size:.85rem}
.error-page__reference{color:#4a5868}
.fallback__home{display:inline-block;margin-top:.5rem;padding:.7rem 1.3rem;border-radius:999px;background:#c2492b;color:#fff;font-weight:600;text-decoration:none}
.fallback__home:hover,.fallback__home:focus-visible{background:#a33b20}
.fallback__home:focus-visible{outline:3px solid #16324f;outline-offset:3px}
`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
