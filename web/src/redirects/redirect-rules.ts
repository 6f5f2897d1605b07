import type { PrismicDocument } from "@prismicio/client";

/**
 * An editor's redirect (customtypes/redirect) as the worker keeps it in its index: what the
 * document says, nothing resolved yet (its From path is normalised, its target document routed and
 * chains collapsed by resolve-redirects.ts, at every publish and build). Read from the document as
 * the API sends it: every field may be absent (a model change) or empty, and then the redirect is
 * simply not served, with a notice saying why — never a throw.
 */
export interface RedirectRule {
  /** The redirect document's id. */
  id: string;
  /** The From path as typed (trimmed): `/spring-sale`. */
  from: string;
  to: RedirectTarget;
  /** 301 when true, 302 when false; a document without the field (an older model) is permanent. */
  permanent: boolean;
  /**
   * Its first publication date: when two redirects claim one path, the first published is served
   * (a newer duplicate must not take over silently). Null: unknown (sorts last).
   */
  published: string | null;
}

export type RedirectTarget =
  /** A link to a document: the redirect goes wherever that document is published now. */
  | { kind: "document"; id: string }
  /** A web link (or a media file's URL), as typed: another site, or a path of this one. */
  | { kind: "url"; url: string }
  /** The To field is empty, or holds nothing a visitor can be sent to. */
  | { kind: "none" };

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
