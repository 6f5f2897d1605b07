import { type Client, filter, type PrismicDocument } from "@prismicio/client";
import {
  type AllDocumentTypes,
  type ContentSource,
  type DocumentOfType,
  type ListedType,
  MissingSettingsError,
  type PageDocument,
  type PriceListDocument,
  type SettingsDocument,
} from "./content-source.ts";

/** Prismic's largest page size. */
const PAGE_SIZE = 100;
/** Listing pages fetched at once once the first page said how many there are. */
const PAGE_CONCURRENCY = 4;

/**
 * Reads through the content client at one fixed ref (preview, publish). Each
 * question is asked once per source: a render that needs the same document
 * twice (a nav link and an embed, say) costs one request. The client must
 * carry the route resolver so that `url` is filled on documents and links.
 */
export function createClientSource(client: Client, ref: string): ContentSource {
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, load: () => Promise<T>): Promise<T> => {
    let found = memo.get(key) as Promise<T> | undefined;
    if (!found) {
      found = load();
      memo.set(key, found);
      // A failed request must not be remembered: the next render may succeed.
      found.catch(() => memo.delete(key));
    }
    return found;
  };
  const first = async (filters: string[]): Promise<PrismicDocument | undefined> =>
    (await client.get({ ref, filters, pageSize: 1 })).results[0];

  return {
    getSettings: () =>
      once("settings", async () => {
        const settings = await first([filter.at("document.type", "settings")]);
        if (!settings) throw new MissingSettingsError(`at ref ${ref}`);
        return settings as SettingsDocument;
      }),
    getPageByUID: (uid) =>
      once(
        `page:${uid}`,
        async () => (await first([filter.at("my.page.uid", uid)])) as PageDocument | undefined,
      ),
    getPriceListByUID: (uid) =>
      once(
        `price_list:${uid}`,
        async () => (await first([filter.at("my.price_list.uid", uid)])) as PriceListDocument | undefined,
      ),
    getByID: (id) =>
      once(
        `id:${id}`,
        async () => (await first([filter.at("document.id", id)])) as AllDocumentTypes | undefined,
      ),
    getAllByType: <T extends ListedType>(type: T) =>
      once(
        `type:${type}`,
        () => listAll(client, ref, type) as unknown as Promise<readonly DocumentOfType<T>[]>,
      ),
  };
}

async function listAll(client: Client, ref: string, type: ListedType): Promise<PrismicDocument[]> {
  const ask = (page: number) =>
    client.get({ ref, filters: [filter.at("document.type", type)], pageSize: PAGE_SIZE, page });
  const firstPage = await ask(1);
  const documents = [...firstPage.results];
  const pages = Array.from({ length: Math.max(0, firstPage.total_pages - 1) }, (_, i) => i + 2);
  for (let i = 0; i < pages.length; i += PAGE_CONCURRENCY) {
    const answers = await Promise.all(pages.slice(i, i + PAGE_CONCURRENCY).map(ask));
    for (const answer of answers) documents.push(...answer.results);
  }
  return documents;
}
