import { type Client, filter, type PrismicDocument } from "@prismicio/client";
import type { ContentClient } from "#content/content-client.ts";
import { website } from "#website";

/**
 * The fetch stage: documents by id or by type and uid at one ref, 100 per request (Prismic's
 * largest page), never from a cache (a publish reads the ref it was given, now).
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

/** A document as a route names it: its type and uid (`website.routes.documentAt`). */
export interface DocumentKey {
  type: string;
  uid: string;
}

/** The types a build reads every document of, once: the frame's and the shared ones. */
const readWhole: ReadonlySet<string> = new Set([...website.frame, ...website.shared]);

/**
 * The documents `routes` show that a publish fetches by uid. Listings show none; documents of the
 * types a build reads whole (`website.frame`, `website.shared`) are left out: a batch on the render
 * threads has them all in its shared documents, and a publish fetches them by id (a `doc:`
 * dependency) or reads them through its content source.
 */
export function documentsByUid(routes: readonly string[]): DocumentKey[] {
  const seen = new Set<string>();
  const found: DocumentKey[] = [];
  for (const route of routes) {
    const doc = website.routes.documentAt(route);
    if (!doc || readWhole.has(doc.type) || seen.has(`${doc.type}:${doc.uid}`)) continue;
    seen.add(`${doc.type}:${doc.uid}`);
    found.push(doc);
  }
  return found;
}

/**
 * The queries for the documents `keys` name at `ref`: for each type, 100 uids per request on the
 * type's uid field (a route each would cost a request each).
 */
function uidQueries(ref: string, keys: readonly DocumentKey[]) {
  const byType = new Map<string, string[]>();
  for (const { type, uid } of keys) {
    const uids = byType.get(type);
    if (uids) uids.push(uid);
    else byType.set(type, [uid]);
  }
  const queries = [];
  for (const [type, uids] of byType)
    for (let i = 0; i < uids.length; i += 100)
      queries.push({ ref, filters: [filter.in(`my.${type}.uid`, uids.slice(i, i + 100))], pageSize: 100 });
  return queries;
}

/** The documents `keys` name at `ref`, parsed (those not found are left out). */
export async function fetchByUid(
  client: Client,
  ref: string,
  keys: readonly DocumentKey[],
): Promise<PrismicDocument[]> {
  const documents: PrismicDocument[] = [];
  for (const query of uidQueries(ref, keys)) {
    const answer = await client.get({ ...query, fetchOptions: { cache: "no-store" } });
    documents.push(...answer.results);
  }
  return documents;
}

/**
 * The same requests as `fetchByUid`, their answers kept as bytes for a render thread to parse
 * (render-pool.ts): the main thread of a fan-out neither parses nor copies the documents.
 */
export async function fetchAnswersByUid(
  client: ContentClient,
  ref: string,
  keys: readonly DocumentKey[],
): Promise<ArrayBuffer[]> {
  const answers: ArrayBuffer[] = [];
  for (const query of uidQueries(ref, keys)) {
    const response = await client.contentFetch(await client.buildQueryURL(query), { cache: "no-store" });
    answers.push(await response.arrayBuffer());
  }
  return answers;
}
