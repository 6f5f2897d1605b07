import type { Client, PrismicDocument } from "@prismicio/client";
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
): Promise<number> {
  // A build reads each page once: keeping the answers in the content client's cache would only hold
  // tens of megabytes until the build ends.
  const query = (page: number) =>
    client.get({ ref, filters, pageSize: PAGE_SIZE, page, lang: "*", fetchOptions: { cache: "no-store" } });
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

/** Every document matching `filters` at `ref`, collected (for small sets: settings, price lists). */
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
