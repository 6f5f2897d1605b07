import { readManifestRoot } from "#manifest/manifest-store.ts";
import type { SiteStore } from "#storage";

/**
 * The result pages of the contact form's no-JavaScript path: plain server-rendered HTML, with the
 * site's own stylesheet when the build manifest names one, and no inline script or style (the
 * site's Content-Security-Policy forbids both).
 */

export interface ResultPage {
  title: string;
  /** Paragraphs, as text (escaped here). */
  paragraphs: string[];
  /** Listed as "field: message". */
  errors?: Record<string, string>;
  /** Same-origin path of the page that holds the form. */
  back: string;
}

const FIELD_LABELS: Record<string, string> = {
  name: "Name",
  email: "Email",
  phone: "Phone",
  message: "Message",
  consent: "Consent",
  form: "Form",
};

export async function renderResultPage(page: ResultPage, store: SiteStore | undefined): Promise<string> {
  const stylesheet = await findStylesheet(store);
  const errors = Object.entries(page.errors ?? {});
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${escapeHtml(page.title)}</title>`,
    stylesheet ? `<link rel="stylesheet" href="/${escapeHtml(stylesheet)}">` : "",
    "</head>",
    "<body>",
    '<main class="container container--narrow" id="main">',
    `<h1>${escapeHtml(page.title)}</h1>`,
    ...page.paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`),
    errors.length > 0
      ? `<ul class="contact-result__errors">${errors
          .map(
            ([field, message]) =>
              `<li><strong>${escapeHtml(FIELD_LABELS[field] ?? field)}:</strong> ${escapeHtml(message)}</li>`,
          )
          .join("")}</ul>`
      : "",
    `<p><a class="button" href="${escapeHtml(page.back)}">Back to the form</a></p>`,
    "</main>",
    "</body>",
    "</html>",
  ]
    .filter(Boolean)
    .join("\n");
}

/**
 * The path to link back to: the `Referer` when it is this site (so the visitor returns to the
 * page that holds the form), otherwise the home page. Only a plain path is ever echoed, so the
 * link can neither leave the site nor carry markup.
 */
export function backPath(referer: string | undefined, host: string | undefined): string {
  if (!referer || !host) return "/";
  try {
    const url = new URL(referer);
    if (url.host !== host) return "/";
    return safePath(url.pathname);
  } catch {
    return "/";
  }
}

export function safePath(path: string | undefined): string {
  return path && /^\/(?!\/)[A-Za-z0-9/_.~-]{0,200}$/.test(path) ? path : "/";
}

async function findStylesheet(store: SiteStore | undefined): Promise<string | undefined> {
  if (!store) return undefined;
  try {
    const manifest = await readManifestRoot(store);
    return Object.keys(manifest?.assets ?? {}).find((key) => /^assets\/[\w.-]+\.css$/.test(key));
  } catch {
    // A page without styles still tells the visitor what happened.
    return undefined;
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
