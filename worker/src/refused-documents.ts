import { type Client, filter } from "@prismicio/client";
import type { RedirectHistory } from "#manifest/redirects.ts";
import { type RedirectResolution, resolveRedirects } from "#redirects/resolve-redirects.ts";
import { website } from "#website";
import type { ContentNotice, RedirectRule } from "#website/contract.ts";
import { forEachPage } from "./build/list-documents.ts";
import { planRedirects, redirectLocations } from "./publish/redirects.ts";

export interface RefusedDocument {
  id: string;
  type: string;
  uid: string | null;
  /** In the editor's words: why the document gets no page (the website's `routes.problem`). */
  problem: string;
}

/** What editors should fix at a ref: documents that get no page, and what pages show with a fallback. */
export interface EditorReport {
  refused: RefusedDocument[];
  /** The website's `content.notices`: empty fields a page needs, slices left out. */
  notices: ContentNotice[];
  /** The redirects served at the ref and what editors should know of theirs (when asked for). */
  redirects?: RedirectResolution & { renames: number };
}

/**
 * The published documents that get no page because their uid cannot be a route (reserved, too
 * long, not a path segment). Prismic accepts some of these, so an editor may publish one; the
 * build logs it and `pressroom status` lists it, read live from the content API at `ref`.
 */
export async function refusedDocuments(client: Client, ref: string): Promise<RefusedDocument[]> {
  return (await editorReport(client, ref)).refused;
}

/**
 * Refused documents and content notices at `ref`, from one pass over the site's documents (the
 * notices of every document but the redirects, as the build and the publish log them); with
 * `redirects` (the site's URL and the rename history in storage), the redirects a build at `ref`
 * would serve and the notices of the editors' redirects (resolve-redirects.ts), as the build
 * decides them.
 */
export async function editorReport(
  client: Client,
  ref: string,
  redirects?: { siteUrl: string; history: RedirectHistory },
): Promise<EditorReport> {
  const refused: RefusedDocument[] = [];
  const notices: ContentNotice[] = [];
  const routes = new Map<string, string | null>();
  const rules: RedirectRule[] = [];
  const editorRedirects = website.redirects;
  await forEachPage(client, ref, [filter.any("document.type", [...website.types])], 2, async (docs) => {
    for (const doc of docs) {
      if (doc.type === editorRedirects?.type) {
        rules.push(editorRedirects.ruleOf(doc));
        continue;
      }
      routes.set(doc.id, website.routes.ofDocument(doc));
      const problem = website.routes.problem(doc);
      if (problem) refused.push({ id: doc.id, type: doc.type, uid: doc.uid ?? null, problem });
      notices.push(...website.content.notices(doc));
    }
  });
  return {
    refused: refused.sort((a, b) => a.id.localeCompare(b.id)),
    notices: notices.sort(
      (a, b) => a.documentId.localeCompare(b.documentId) || a.field.localeCompare(b.field),
    ),
    ...(redirects ? { redirects: servedRedirects(routes, rules, redirects) } : {}),
  };
}

/** What a build would serve: the pages of `routes` (and the listings) win, renames replayed as it replays them. */
function servedRedirects(
  routes: ReadonlyMap<string, string | null>,
  rules: readonly RedirectRule[],
  { siteUrl, history }: { siteUrl: string; history: RedirectHistory },
) {
  const pages = new Set([...routes.values()].flatMap((route) => route ?? []));
  const isPage = (path: string) => pages.has(path) || website.routes.isListing(path);
  const plan = planRedirects({
    history,
    documents: [...routes].map(([id, to]) => ({ id, to })),
    complete: true,
    isPage,
  });
  const renames = redirectLocations(plan.history);
  const resolution = resolveRedirects({ siteUrl, rules, renames, routeOf: (id) => routes.get(id), isPage });
  return { ...resolution, renames: [...resolution.served.values()].filter((r) => !r.documentId).length };
}

/** One line per refused document, for `pressroom status` and the build's log. */
export function describeRefused(doc: RefusedDocument): string {
  return `${doc.type} ${doc.id} gets no page: ${doc.problem}`;
}
