import { revalidatePath, revalidateTag } from "next/cache";
import { createClient, documentTag, PRISMIC_TAG } from "../../../lib/prismic";

/**
 * Prismic's webhook (the body Prismic POSTs: {type, masterRef, documents, secret, domain, …}).
 *
 * - NEXT_REVALIDATE=path (default): per changed document, as Prismic's on-demand ISR guide does
 *   (prismic.io/blog/nextjs-sites-on-demand-isr: fetch the documents the webhook names, resolve their
 *   URLs with the route resolver, revalidate those URLs), in the App Router's words: one uncached request
 *   for the ids at the webhook's ref, `revalidatePath(url)` for each, `revalidateTag` of each id (pages
 *   embedding it); a document without a route (settings) or gone revalidates every page.
 *   `revalidatePath` from a route handler expires at once: the next request renders.
 * - NEXT_REVALIDATE=tag: Prismic's Next.js starters for Next 16, `revalidateTag("prismic", "max")`:
 *   every page stale; the next request is served stale while the page renders in the background.
 */
export async function POST(request: Request): Promise<Response> {
  const body = (await request.json().catch(() => ({}))) as {
    type?: string;
    secret?: string | null;
    masterRef?: string;
    documents?: string[];
  };
  if (!process.env.WEBHOOK_SECRET || body.secret !== process.env.WEBHOOK_SECRET)
    return Response.json({ error: "invalid secret" }, { status: 401 });
  if (body.type !== "api-update") return Response.json({ revalidated: false });
  const ids = body.documents ?? [];
  if (process.env.NEXT_REVALIDATE === "tag") {
    revalidateTag(PRISMIC_TAG, "max");
    return Response.json({ revalidated: true, mode: "tag" });
  }
  const docs =
    ids.length === 0
      ? []
      : await createClient().getAllByIDs(ids, {
          ...(body.masterRef ? { ref: body.masterRef } : {}),
          fetchOptions: { cache: "no-store" },
        });
  const paths = docs.flatMap((doc) => (doc.url ? [doc.url] : []));
  for (const id of ids) revalidateTag(documentTag(id), { expire: 0 });
  for (const path of paths) revalidatePath(path);
  if (paths.length < ids.length) revalidatePath("/", "layout");
  return Response.json({ revalidated: true, mode: "path", paths });
}
