import { type Client, filter } from "@prismicio/client";
import { type ContentNotice, describeNotice, documentNotices } from "#web/content/index.ts";
import { routeProblem } from "#web/routes.ts";
import { forEachPage } from "./build/list-documents.ts";

export interface RefusedDocument {
  id: string;
  type: string;
  uid: string | null;
  /** In the editor's words: why the document gets no page (web/src/uid-rules.ts). */
  problem: string;
}

/** What editors should fix at a ref: documents that get no page, and what pages show with a fallback. */
export interface EditorReport {
  refused: RefusedDocument[];
  /** web/src/content/content-notices.ts: empty fields a page needs, slices left out. */
  notices: ContentNotice[];
}

/**
 * The published documents that get no page because their uid cannot be a route (reserved, too
 * long, not a path segment). Prismic accepts some of these, so an editor may publish one; the
 * build logs it and `pressroom status` lists it, read live from the content API at `ref`.
 */
export async function refusedDocuments(client: Client, ref: string): Promise<RefusedDocument[]> {
  return (await editorReport(client, ref)).refused;
}

/**
 * Refused documents and content notices at `ref`, from one pass over the site's documents (the
 * notices of settings, pages and price lists, as the build and the publish log them).
 */
export async function editorReport(client: Client, ref: string): Promise<EditorReport> {
  const refused: RefusedDocument[] = [];
  const notices: ContentNotice[] = [];
  const types = ["settings", "page", "price_list"];
  await forEachPage(client, ref, [filter.any("document.type", types)], 2, async (docs) => {
    for (const doc of docs) {
      const problem = routeProblem(doc);
      if (problem) refused.push({ id: doc.id, type: doc.type, uid: doc.uid ?? null, problem });
      notices.push(...documentNotices(doc));
    }
  });
  return {
    refused: refused.sort((a, b) => a.id.localeCompare(b.id)),
    notices: notices.sort(
      (a, b) => a.documentId.localeCompare(b.documentId) || a.field.localeCompare(b.field),
    ),
  };
}

/** One line per refused document, for `pressroom status` and the build's log. */
export function describeRefused(doc: RefusedDocument): string {
  return `${doc.type} ${doc.id} gets no page: ${doc.problem}`;
}

export { describeNotice };
