import type { RedirectNotice, ServedRedirect } from "#redirects/resolve-redirects.ts";
import type { RedirectRule } from "#website/contract.ts";
import { escapeHtml, previewPage } from "./pages.ts";
import type { PreviewAssets } from "./preview-assets.ts";
import type { RedirectsAtRef } from "./redirects-at-ref.ts";

/** Where a redirect document's preview is served (a path no content can take: `/_pressroom/…`). */
export const REDIRECT_PREVIEW_PREFIX = "/_pressroom/redirect/";

/**
 * The preview of a redirect document (the website's `redirects.type`; it has no page of its own):
 * what it redirects, where to, how, and whether the site will serve it — or why not, in the words
 * `pressroom status` uses (a page published at its From path wins, a loop, a duplicate, an
 * unusable path or target).
 */
export function redirectPreviewPage(assets: PreviewAssets, rule: RedirectRule, at: RedirectsAtRef): string {
  const from = at.fromPaths.get(rule.id);
  const served = from === undefined ? undefined : at.served.get(from);
  const mine = served?.documentId === rule.id ? served : undefined;
  const notices = at.notices.filter((notice) => notice.documentId === rule.id);
  const code = (text: string) => `<code>${escapeHtml(text)}</code>`;
  // Where the linked document is published at this ref (the route resolver wrote it into the link).
  const linked = rule.to.kind === "document" ? at.targetRoutes.get(rule.to.id) : undefined;
  const route = mine?.location ?? linked ?? undefined;
  const to =
    rule.to.kind === "document"
      ? `${route ? code(route) : "a document that is not published"} <small>(a link to a document: followed when its UID changes)</small>`
      : rule.to.kind === "url"
        ? code(rule.to.url)
        : "<em>nothing yet</em>";
  const kind = rule.permanent
    ? "Permanent (301): search engines move the old address's ranking to the new one"
    : "Temporary (302): for a while; search engines keep the old address";
  const status = mine
    ? `<p class="preview-status preview-status--served" role="status"><strong>Served</strong> once published: a visitor opening ${code(from as string)} goes to ${code(mine.location)}${mine.permanent === rule.permanent ? "" : " (temporarily)"}.</p>`
    : `<p class="preview-status preview-status--refused" role="alert"><strong>Not served.</strong> ${escapeHtml(sentence(notices.find((n) => !n.served)))}</p>`;
  const others = notices.filter((notice) => notice.served);
  const actions = [
    mine ? `<a href="${escapeHtml(from as string)}">Try it in this preview</a>` : "",
    notices.some((n) => n.kind === "page-wins") && from
      ? `<a href="${escapeHtml(from)}">See the page published at ${escapeHtml(from)}</a>`
      : "",
  ].filter(Boolean);
  return previewPage(
    assets,
    `Redirect ${rule.from || "without a From path"}`,
    `<h1>Redirect</h1><dl class="preview-facts"><dt>From</dt><dd>${rule.from ? code(from ?? rule.from) : "<em>nothing yet</em>"}</dd><dt>To</dt><dd>${to}</dd><dt>Kind</dt><dd>${escapeHtml(kind)}</dd></dl>${status}${others.map((notice) => `<p class="preview-note" role="note">${escapeHtml(sentence(notice))}</p>`).join("")}${actions.length > 0 ? `<p>${actions.join(" · ")}</p>` : ""}<p class="preview-aside">This page is the redirect's preview: visitors never see it. <code>pressroom status</code> lists every redirect that is not served, and why.</p>`,
  );
}

/**
 * The note a page shows in preview when a redirect claims its address: the page wins, and the
 * redirect is not served while the page is published there.
 */
export function pageWinsNotes(at: RedirectsAtRef, path: string): string[] {
  return at.notices
    .filter((notice) => notice.kind === "page-wins" && at.fromPaths.get(notice.documentId) === path)
    .map(
      (notice) =>
        `For editors: the redirect ${notice.documentId} from “${notice.from}” is not served while this page is published at ${path}: a page wins. Change the redirect's From path, or unpublish the redirect (or this page).`,
    );
}

/** The redirect an editor's redirect document serves at `path` at this ref, if any. */
export function editorRedirectAt(at: RedirectsAtRef, path: string): ServedRedirect | undefined {
  const served = at.served.get(path);
  return served?.documentId ? served : undefined;
}

/** A notice as a sentence, capitalised, with a full stop (after “Not served.”, without saying it twice). */
function sentence(notice: RedirectNotice | undefined): string {
  if (!notice) return "";
  const message = notice.message.replace(/^it is not served: /, "");
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return text.endsWith(".") ? text : `${text}.`;
}
