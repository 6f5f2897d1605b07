import { filter } from "@prismicio/client";
import { PageView, pageMetadata } from "../../lib/page-view";
import { createClient } from "../../lib/prismic";

type Params = Promise<{ uid: string }>;

/** `/{uid}`: every page but home, as in Prismic's Next.js starters. */
export default async function Page({ params }: { params: Params }) {
  return <PageView uid={(await params).uid} />;
}

export async function generateMetadata({ params }: { params: Params }) {
  return pageMetadata((await params).uid);
}

/**
 * Pre-rendered at build: every page (PEER_PRERENDER=all, the default), or none (PEER_PRERENDER=none:
 * rendered on first request, then cached the same way; the benchmark visits the edited pages first).
 */
export async function generateStaticParams() {
  if (process.env.PEER_PRERENDER === "none") return [];
  // Page by page, not with getAllByType: the client sleeps 500 ms between pages there (100 pages: 50 s).
  const client = createClient();
  const uids: { uid: string }[] = [];
  for (let page = 1; ; page++) {
    const answer = await client.get({
      filters: [filter.at("document.type", "page"), filter.not("my.page.uid", "home")],
      pageSize: 100,
      page,
    });
    uids.push(...answer.results.map((doc) => ({ uid: doc.uid as string })));
    if (!answer.next_page) return uids;
  }
}
