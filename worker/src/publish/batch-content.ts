import type { PrismicDocument } from "@prismicio/client";
import type { PublishContext } from "./context.ts";
import type { IndexedRoute } from "./dependency-index.ts";
import { documentsByUid, fetchByIds, fetchByUid } from "./fetch-documents.ts";
import { idsToFetch } from "./planner.ts";

/**
 * What a batch of routes (a fan-out's child job) reads, in two requests per 100 documents sent at
 * once: the routes' pages by uid (a route's page may have changed since the index saw it), and by
 * id everything they showed last time (`doc:` dependencies: settings, embedded price lists), so no
 * batch asks for each of those on its own. An id asked for and not returned is gone at `ref`.
 */
export async function fetchBatchContent(
  ctx: PublishContext,
  ref: string,
  routes: readonly string[],
  previous: ReadonlyMap<string, IndexedRoute>,
): Promise<{ documents: PrismicDocument[]; gone: Set<string> }> {
  // The pages themselves come by uid; by id, what they and the other routes showed.
  const pageIds = new Set(
    routes.flatMap((route) => {
      const documentId = previous.get(route)?.documentId;
      return documentId && documentsByUid([route]).length > 0 ? [documentId] : [];
    }),
  );
  const shown = idsToFetch(
    [],
    [],
    [...previous.values()].map(({ dependencies }) => ({ dependencies })),
  ).filter((id) => !pageIds.has(id));
  const [pages, byId] = await Promise.all([
    fetchByUid(ctx.client, ref, documentsByUid(routes)),
    fetchByIds(ctx.client, ref, shown),
  ]);
  return {
    documents: [...pages, ...byId.values()],
    gone: new Set(shown.filter((id) => !byId.has(id))),
  };
}
