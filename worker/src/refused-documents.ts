import { type Client, filter } from "@prismicio/client";
import { routeProblem } from "#web/routes.ts";
import { forEachPage } from "./build/list-documents.ts";

export interface RefusedDocument {
  id: string;
  type: string;
  uid: string | null;
  /** In the editor's words: why the document gets no page (web/src/uid-rules.ts). */
  problem: string;
}

/**
 * The published documents that get no page because their uid cannot be a route (reserved, too
 * long, not a path segment). Prismic accepts some of these, so an editor may publish one; the
 * build logs it and `pressroom status` lists it, read live from the content API at `ref`.
 */
export async function refusedDocuments(client: Client, ref: string): Promise<RefusedDocument[]> {
  const refused: RefusedDocument[] = [];
  await forEachPage(client, ref, [filter.any("document.type", ["page", "price_list"])], 2, async (docs) => {
    for (const doc of docs) {
      const problem = routeProblem(doc);
      if (problem) refused.push({ id: doc.id, type: doc.type, uid: doc.uid ?? null, problem });
    }
  });
  return refused.sort((a, b) => a.id.localeCompare(b.id));
}

/** One line per refused document, for `pressroom status` and the build's log. */
export function describeRefused(doc: RefusedDocument): string {
  return `${doc.type} ${doc.id} gets no page: ${doc.problem}`;
}
