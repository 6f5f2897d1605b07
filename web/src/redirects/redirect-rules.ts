import type { PrismicDocument } from "@prismicio/client";
import type { RedirectRule, RedirectTarget } from "#website/contract.ts";

export type { RedirectRule, RedirectTarget } from "#website/contract.ts";

/**
 * The demo's redirect documents (customtypes/redirect) as the engine's `RedirectRule`: what the
 * document says, nothing resolved yet (the engine normalises its From path, routes its target
 * document and collapses chains, #redirects/resolve-redirects.ts). Read from the document as the
 * API sends it: every field may be absent (a model change) or empty, and then the redirect is
 * simply not served, with a notice saying why — never a throw. A document without `permanent` (an
 * older model) is permanent.
 */
export const REDIRECT_TYPE = "redirect";

/** The rule a `redirect` document states. */
export function redirectRuleOf(doc: PrismicDocument): RedirectRule {
  const data = (doc.data ?? {}) as { from_path?: unknown; to?: unknown; permanent?: unknown };
  return {
    id: doc.id,
    from: typeof data.from_path === "string" ? data.from_path.trim() : "",
    to: targetOf(data.to),
    permanent: data.permanent !== false,
    published: typeof doc.first_publication_date === "string" ? doc.first_publication_date : null,
  };
}

function targetOf(link: unknown): RedirectTarget {
  if (typeof link !== "object" || link === null) return { kind: "none" };
  const { link_type, id, url } = link as { link_type?: unknown; id?: unknown; url?: unknown };
  // A broken link (its document unpublished) keeps its id: the redirect waits for the document.
  if (link_type === "Document" && typeof id === "string" && id !== "") return { kind: "document", id };
  if ((link_type === "Web" || link_type === "Media") && typeof url === "string" && url.trim() !== "")
    return { kind: "url", url: url.trim() };
  return { kind: "none" };
}
