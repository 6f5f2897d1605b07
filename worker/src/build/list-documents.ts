import { type Client, filter, type PrismicDocument } from "@prismicio/client";
import type { ContentClient } from "#content/content-client.ts";
import { website } from "#website";
import { mapLimit } from "./map-limit.ts";

const PAGE_SIZE = 100;

/**
 * Walks every document matching `filters` at `ref`, a page of 100 at a time,
 * with at most `concurrency` pages in flight (`dangerouslyGetAll` waits 500 ms
 * between pages: 50 s for 10,000 documents). The first page says how many
 * there are; `onPage` runs for each page as it arrives, so a caller can
 * process a large repository without holding all of it.
 */
export async function forEachPage(
  client: Client,
  ref: string,
  filters: string[],
  concurrency: number,
  onPage: (documents: PrismicDocument[]) => Promise<void>,
  onTotal?: (total: number) => void,
  /** Prismic's `fetch`: the data fields to answer, `<type>.<field>` (all of them when absent). */
  fields?: readonly string[],
): Promise<number> {
  // A build reads each page once: keeping the answers in the content client's cache would only hold
  // tens of megabytes until the build ends.
  const query = (page: number) =>
    client.get({
      ref,
      filters,
      pageSize: PAGE_SIZE,
      page,
      lang: "*",
      ...(fields ? { fetch: [...fields] } : {}),
      fetchOptions: { cache: "no-store" },
    });
  const first = await query(1);
  onTotal?.(first.total_results_size);
  let seen = first.results.length;
  await onPage(first.results);
  const rest = Array.from({ length: Math.max(0, first.total_pages - 1) }, (_, i) => i + 2);
  await mapLimit(rest, concurrency, async (page) => {
    const response = await query(page);
    seen += response.results.length;
    await onPage(response.results);
  });
  if (seen !== first.total_results_size) {
    // Content at a ref never changes, so a mismatch means a broken API answer, not a race.
    throw new Error(`Listed ${seen} documents at ref ${ref}, but the API counts ${first.total_results_size}`);
  }
  return seen;
}

/**
 * `forEachPage`, each page handed over as the API's bytes, unparsed: a build moves them to a render
 * thread, which parses them, so the main thread never parses, hashes or copies a page. Only the
 * first page is parsed here, for the count. Answers the count, which the caller checks against what
 * the render threads listed.
 */
export async function forEachPageAnswer(
  client: ContentClient,
  ref: string,
  filters: string[],
  concurrency: number,
  onAnswer: (answer: ArrayBuffer) => Promise<void>,
  onTotal?: (total: number) => void,
): Promise<number> {
  const query = async (page: number) => {
    const url = await client.buildQueryURL({ ref, filters, pageSize: PAGE_SIZE, page, lang: "*" });
    return (await client.contentFetch(url, { cache: "no-store" })).arrayBuffer();
  };
  const first = await query(1);
  const envelope = JSON.parse(new TextDecoder().decode(first)) as {
    total_results_size?: unknown;
    total_pages?: unknown;
  };
  const total = envelope.total_results_size;
  const pages = envelope.total_pages;
  if (typeof total !== "number" || typeof pages !== "number")
    throw new Error("the content API's search answer has no total_results_size or total_pages");
  onTotal?.(total);
  await onAnswer(first);
  const rest = Array.from({ length: Math.max(0, pages - 1) }, (_, i) => i + 2);
  await mapLimit(rest, concurrency, async (page) => onAnswer(await query(page)));
  return total;
}

/**
 * Every document of `types` at `ref` without its content: what a rebuild lists to learn which
 * documents changed since the last build (full-build.ts). Prismic's `fetch` names the data fields to
 * answer; each type's `uid` is none (the API writes the uid beside `data`), so `data` comes back
 * empty and an answer is a tenth of its size or less. An API that answered whole documents anyway
 * would cost the rebuild time, not correctness: only what lies beside `data` is read.
 */
export function forEachVersionPage(
  client: Client,
  ref: string,
  types: readonly string[],
  concurrency: number,
  onPage: (documents: PrismicDocument[]) => Promise<void>,
): Promise<number> {
  const filters = [
    types.length === 1
      ? filter.at("document.type", types[0] as string)
      : filter.any("document.type", [...types]),
  ];
  const fields = types.map((type) => `${type}.uid`);
  return forEachPage(client, ref, filters, concurrency, onPage, undefined, fields);
}

/** Every document matching `filters` at `ref`, collected (for small sets: the shared documents). */
export async function listDocuments(
  client: Client,
  ref: string,
  filters: string[],
  concurrency = 4,
): Promise<PrismicDocument[]> {
  const documents: PrismicDocument[] = [];
  await forEachPage(client, ref, filters, concurrency, async (page) => {
    documents.push(...page);
  });
  return documents;
}

/**
 * What every page of the site may show besides itself: the frame's singletons (`website.frame`,
 * read by every layout) and every document of the `website.shared` types (embedded by id in any
 * page). A full build holds them for the whole run; a fan-out's child job reads them once per ref
 * (`sharedDocumentsCache`), so a batch renders from memory like the build's. A frame singleton
 * missing at the ref fails the read (the content client's getSingle): no page could render.
 */
export async function readSharedDocuments(client: Client, ref: string): Promise<PrismicDocument[]> {
  const listed = website.shared.filter((type) => !website.frame.includes(type));
  const [frame, shared] = await Promise.all([
    Promise.all(website.frame.map((type) => client.getSingle(type, { ref }))),
    Promise.all(listed.map((type) => listDocuments(client, ref, [filter.at("document.type", type)]))),
  ]);
  return [...frame, ...shared.flat()];
}

/**
 * `readSharedDocuments` for the newest ref asked for, kept until another ref is asked for: the
 * child jobs of one fan-out (about one per 100 routes) share one read instead of two requests each.
 * A failed read is forgotten, so the job's retry reads again.
 */
export function sharedDocumentsCache(client: Client): (ref: string) => Promise<PrismicDocument[]> {
  let kept: { ref: string; documents: Promise<PrismicDocument[]> } | undefined;
  return (ref) => {
    if (kept?.ref !== ref) {
      const documents = readSharedDocuments(client, ref);
      kept = { ref, documents };
      documents.catch(() => {
        if (kept?.documents === documents) kept = undefined;
      });
    }
    return kept.documents;
  };
}
