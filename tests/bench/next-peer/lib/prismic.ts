import {
  createClient as baseCreateClient,
  type Client,
  type ClientConfig,
  type PrismicDocument,
  type Route,
} from "@prismicio/client";

/**
 * The content client, as Prismic's Next.js starters make it (prismicio-community/nextjs-starter-prismic-minimal,
 * src/prismicio.ts): every request cached by Next (`force-cache`) under the tag `prismic`, which the
 * webhook's route handler revalidates. The endpoint is the local content service the benchmark started;
 * the route resolver is Pressroom's own (`website.routes.resolver`, web/src/content-routes.ts), handed over by the
 * benchmark as JSON in PRISMIC_ROUTES, so links and `url` resolve exactly as Pressroom's do.
 */
export const PRISMIC_TAG = "prismic";

/** The tag of one document: the pages showing it (an embedded price list) carry it. */
export const documentTag = (id: string): string => `prismic:${id}`;

/** Cached by Next under `tags` (`next` is Next's extension of fetch's options, unknown to the client's types). */
const cachedUnder = (tags: string[]) =>
  ({ cache: "force-cache", next: { tags } }) as NonNullable<ClientConfig["fetchOptions"]>;

export function createClient(): Client {
  const endpoint = process.env.PRISMIC_ENDPOINT;
  if (!endpoint) throw new Error("Set PRISMIC_ENDPOINT to the content service's /api/v2 URL");
  return baseCreateClient(process.env.PRISMIC_REPOSITORY ?? "demo", {
    documentAPIEndpoint: endpoint,
    routes: JSON.parse(process.env.PRISMIC_ROUTES ?? "[]") as Route[],
    fetchOptions: cachedUnder([PRISMIC_TAG]),
  });
}

/** The page with `uid`, or undefined: a missing page is a 404, not a failed render. */
export async function pageByUid(client: Client, uid: string): Promise<PrismicDocument | undefined> {
  return client.getByUID("page", uid).catch(() => undefined);
}

/**
 * The price lists the page's price-list tables embed, in one request (Pressroom's slice loader fetches
 * them by id too). Tagged with each list's id, so that an edit of the list revalidates the page.
 */
export async function embeddedPriceLists(
  client: Client,
  page: PrismicDocument,
): Promise<Map<string, PrismicDocument>> {
  const slices = (page.data.slices ?? []) as {
    slice_type: string;
    primary?: { price_list?: { id?: string } };
  }[];
  const ids = [
    ...new Set(
      slices.flatMap((slice) =>
        slice.slice_type === "price_list_table" && slice.primary?.price_list?.id
          ? [slice.primary.price_list.id]
          : [],
      ),
    ),
  ].sort();
  if (ids.length === 0) return new Map();
  const lists = await client.getByIDs(ids, {
    pageSize: 100,
    fetchOptions: cachedUnder([PRISMIC_TAG, ...ids.map(documentTag)]),
  });
  return new Map(lists.results.filter((doc) => doc.type === "price_list").map((doc) => [doc.id, doc]));
}
