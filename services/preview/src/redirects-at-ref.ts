/**
 * The editors' redirects at a ref, as the preview shows them: the redirect document's own preview,
 * a note on a page that wins over a redirect, and the redirect itself when a path with no page is
 * opened. Resolved by the same `resolveRedirects` as the publish, from the content API at that ref.
 * A master ref's answer is kept (the last `maxRefs`: its content never changes); a preview ref is
 * resolved on every request, so each saved draft shows.
 *
 * The preview does not read storage, so a redirect to a renamed page's old address is shown going
 * there, where the published site collapses the chain one hop further.
 */
import { type Client, filter, type PrismicDocument } from "@prismicio/client";
import { fromPathOf } from "#redirects/redirect-paths.ts";
import { type RedirectResolution, redirectPaths, resolveRedirects } from "#redirects/resolve-redirects.ts";
import { REDIRECT_TYPE, redirectRuleOf } from "#web/redirects/redirect-rules.ts";
import { HOME_UID, parseRoute } from "#web/routes.ts";

export interface RedirectsAtRef extends RedirectResolution {
  /** The redirect documents at the ref, by id. */
  documents: Map<string, PrismicDocument>;
  /** The canonical From path of each redirect document whose From path is usable. */
  fromPaths: Map<string, string>;
}

const PAGE_SIZE = 100;

export class RedirectsCache {
  readonly #refs = new Map<string, Promise<RedirectsAtRef>>();

  constructor(
    private readonly client: Client,
    private readonly siteUrl: string,
    private readonly maxRefs = 20,
  ) {}

  /**
   * The redirects at `ref`: a master ref's resolved once (a failed read is forgotten, the next asks
   * again), a preview session's (`preview`) every time.
   */
  at(ref: string, preview: boolean): Promise<RedirectsAtRef> {
    if (preview) return resolveAt(this.client, ref, this.siteUrl);
    const kept = this.#refs.get(ref);
    if (kept) return kept;
    const resolving = resolveAt(this.client, ref, this.siteUrl);
    this.#refs.set(ref, resolving);
    resolving.catch(() => this.#refs.delete(ref));
    while (this.#refs.size > this.maxRefs) this.#refs.delete(this.#refs.keys().next().value as string);
    return resolving;
  }
}

async function resolveAt(client: Client, ref: string, siteUrl: string): Promise<RedirectsAtRef> {
  // Page by page, without dangerouslyGetAll's 500 ms between pages.
  const documents: PrismicDocument[] = [];
  for (let page = 1, pages = 1; page <= pages; page++) {
    const answer = await client.get({
      ref,
      filters: [filter.at("document.type", REDIRECT_TYPE)],
      pageSize: PAGE_SIZE,
      page,
    });
    documents.push(...answer.results);
    pages = answer.total_pages;
  }
  const rules = documents.map(redirectRuleOf);
  // Where each linked document is published at this ref: the route resolver wrote it into the link.
  const routes = new Map<string, string | null>();
  for (const doc of documents) {
    const link = (
      doc.data as { to?: { link_type?: string; id?: string; url?: string | null; isBroken?: boolean } }
    ).to;
    if (link?.link_type === "Document" && typeof link.id === "string")
      routes.set(link.id, link.isBroken || typeof link.url !== "string" ? null : link.url);
  }
  const pages = await publishedPaths(client, ref, redirectPaths(rules, siteUrl));
  const resolution = resolveRedirects({
    siteUrl,
    rules,
    routeOf: (id) => routes.get(id),
    isPage: (path) => pages.has(path),
  });
  const fromPaths = new Map<string, string>();
  for (const rule of rules) {
    const from = fromPathOf(rule.from, siteUrl);
    if ("path" in from) fromPaths.set(rule.id, from.path);
  }
  return { ...resolution, documents: new Map(documents.map((doc) => [doc.id, doc])), fromPaths };
}

/** Which of `paths` a page, price list or listing is published at, at `ref`. */
async function publishedPaths(client: Client, ref: string, paths: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const wanted = { page: new Map<string, string>(), price_list: new Map<string, string>() };
  for (const path of paths) {
    const route = parseRoute(path);
    if (route.kind === "price-list-index") found.add(path);
    else if (route.kind === "home") wanted.page.set(HOME_UID, path);
    else if (route.kind === "page") wanted.page.set(route.uid, path);
    else if (route.kind === "price-list") wanted.price_list.set(route.uid, path);
  }
  for (const [type, byUid] of Object.entries(wanted)) {
    const uids = [...byUid.keys()];
    for (let i = 0; i < uids.length; i += PAGE_SIZE) {
      const answer = await client.get({
        ref,
        filters: [filter.in(`my.${type}.uid`, uids.slice(i, i + PAGE_SIZE))],
        pageSize: PAGE_SIZE,
      });
      for (const doc of answer.results)
        if (doc.uid && byUid.has(doc.uid)) found.add(byUid.get(doc.uid) as string);
    }
  }
  return found;
}
