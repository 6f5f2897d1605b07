import { type Client, filter, type PrismicDocument } from "@prismicio/client";
import type { ContentClient } from "#content/content-client.ts";
import { parseRoute } from "#web/routes.ts";

/**
 * The fetch stage: documents by id or page uid at one ref, 100 per request (Prismic's largest page),
 * never from a cache (a publish reads the ref it was given, now).
 */
export async function fetchByIds(
  client: Client,
  ref: string,
  ids: readonly string[],
): Promise<Map<string, PrismicDocument>> {
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += 100) chunks.push(ids.slice(i, i + 100));
  // The requests at once.
  const answers = await Promise.all(
    chunks.map((chunk) =>
      client.get({
        ref,
        filters: [filter.in("document.id", chunk)],
        pageSize: 100,
        lang: "*",
        fetchOptions: { cache: "no-store" },
      }),
    ),
  );
  const found = new Map<string, PrismicDocument>();
  for (const answer of answers) for (const doc of answer.results) found.set(doc.id, doc);
  return found;
}

/** The queries for the pages behind `uids` at `ref`: 100 per request (a route each would cost a request each). */
function pageQueries(ref: string, uids: readonly string[]) {
  const queries = [];
  for (let i = 0; i < uids.length; i += 100)
    queries.push({ ref, filters: [filter.in("my.page.uid", uids.slice(i, i + 100))], pageSize: 100 });
  return queries;
}

/** The pages behind `uids` at `ref`, parsed. */
export async function fetchPagesByUid(
  client: Client,
  ref: string,
  uids: readonly string[],
): Promise<PrismicDocument[]> {
  const pages: PrismicDocument[] = [];
  for (const query of pageQueries(ref, uids)) {
    const answer = await client.get({ ...query, fetchOptions: { cache: "no-store" } });
    pages.push(...answer.results);
  }
  return pages;
}

/**
 * The same requests as `fetchPagesByUid`, their answers kept as bytes for a render thread to parse
 * (render-pool.ts): the main thread of a fan-out neither parses nor copies the pages.
 */
export async function fetchPageAnswers(
  client: ContentClient,
  ref: string,
  uids: readonly string[],
): Promise<ArrayBuffer[]> {
  const answers: ArrayBuffer[] = [];
  for (const query of pageQueries(ref, uids)) {
    const response = await client.contentFetch(await client.buildQueryURL(query), { cache: "no-store" });
    answers.push(await response.arrayBuffer());
  }
  return answers;
}

/** Page uids of routes (`/` is the page `home`). */
export function pageUidsOf(routes: readonly string[]): string[] {
  return routes.flatMap((route) => {
    const parsed = parseRoute(route);
    return parsed.kind === "home" ? ["home"] : parsed.kind === "page" ? [parsed.uid] : [];
  });
}
