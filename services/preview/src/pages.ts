import type { PreviewAssets } from "./preview-assets.ts";

/** Preview-only pages. Every interpolated value goes through `escapeHtml`: tokens and paths come from URLs. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A preview-only page in the site's look (its stylesheet and favicon) and the preview's. */
export function previewPage(assets: PreviewAssets, title: string, body: string): string {
  return page(assets, title, body);
}

function page(assets: PreviewAssets, title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><link rel="icon" href="${assets.site.favicon}" type="image/svg+xml"><link rel="stylesheet" href="${assets.site.css}"><link rel="stylesheet" href="${assets.previewCss}"></head><body><main class="preview-page">${body}</main></body></html>`;
}

export function invalidTokenPage(assets: PreviewAssets, reason: string): string {
  return page(
    assets,
    "This preview link cannot be used",
    `<h1>This preview link cannot be used</h1><p>${escapeHtml(reason)}</p><p>Open the preview again from the content editor (the “Preview” button), so that it carries a token of this site's repository.</p><p><a href="/">Go to the home page</a></p>`,
  );
}

export function previewEndedPage(assets: PreviewAssets, path: string): string {
  return page(
    assets,
    "This preview has ended",
    `<h1>This preview has ended</h1><p>The preview session expired or was closed. Start a new preview from the content editor to see your drafts again.</p><p><a href="${escapeHtml(path)}">See the published page</a></p>`,
  );
}

/** A document whose uid cannot be a route: the editor sees why, where they look (the preview). */
export function refusedUidPage(assets: PreviewAssets, problem: string): string {
  return page(
    assets,
    "This document has no page on the site",
    `<h1>This document has no page on the site</h1><p>Its ${escapeHtml(problem)}.</p><p>Change the UID in the content editor (lowercase letters, digits, “-” and “_”), save, and preview again. Until then the site does not publish it; <code>pressroom status</code> lists it too.</p><p><a href="/">Go to the home page</a></p>`,
  );
}

/** Opened directly, the kit replaces the empty root with its own message. */
export function simulatorPage(assets: PreviewAssets): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Slice simulator</title><link rel="icon" href="${assets.site.favicon}" type="image/svg+xml"><link rel="stylesheet" href="${assets.site.css}"><link rel="stylesheet" href="${assets.previewCss}"></head><body><div class="slice-simulator"></div><script src="${assets.simulatorScript}"></script></body></html>`;
}

export interface Decoration {
  /** The current path + query (for the exit link). */
  path: string;
  previewing: boolean;
  /** The repository name when it is Prismic's (the toolbar exists only there). */
  toolbarRepository: string | undefined;
  /** Notes for editors shown above the page's content, as the renderer's own (redirects-at-ref.ts). */
  notes?: readonly string[];
}

/**
 * Adds what only a preview needs to a page the site's renderer produced:
 * the banner, the preview stylesheet, the update script and the toolbar.
 * The renderer's bytes stay those of the published site otherwise.
 */
export function decorate(html: string, assets: PreviewAssets, d: Decoration): string {
  const head = `<link rel="stylesheet" href="${assets.previewCss}">`;
  const banner = d.previewing
    ? `<div class="preview-banner" role="status" data-preview-banner="">Preview — <a href="/api/exit-preview?path=${escapeHtml(encodeURIComponent(d.path))}">exit</a></div>`
    : "";
  const toolbar = d.toolbarRepository
    ? `<script async defer src="https://static.cdn.prismic.io/prismic.js?new=true&amp;repo=${escapeHtml(encodeURIComponent(d.toolbarRepository))}"></script>`
    : "";
  // Not deferred: it must list the server-rendered nodes before the toolbar (async, after it) adds its own.
  const scripts = `<script src="${assets.previewScript}"></script>${toolbar}`;
  const notes =
    d.notes && d.notes.length > 0
      ? `<div class="container editor-notes">${d.notes.map((note) => `<p class="slice-missing" role="note" data-notice="redirect">${escapeHtml(note)}</p>`).join("")}</div>`
      : "";
  return html
    .replace("</head>", `${head}</head>`)
    .replace(/<body([^>]*)>/, (open) => `${open}${banner}`)
    .replace(/<main([^>]*)>/, (open) => `${open}${notes}`)
    .replace(/<\/body>(?![\s\S]*<\/body>)/, `${scripts}</body>`);
}
