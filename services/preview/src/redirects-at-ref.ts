/**
 * The editors' redirects at a ref, as the preview shows them (issue 23 §3): the redirect document's
 * own preview (redirect-page.ts), a note on a page that wins over a redirect, and the redirect itself
 * when a path with no page is opened. Resolved by the same pure `resolveRedirects` the publish and
 * the build use, from what the content API says at that ref: every redirect document, the routes
 * their links carry (the route resolver fills them), and whether a page is published at each path
 * involved (one request per 100 page uids, one per 100 price-list uids). Content at a master ref
 * never changes, so a master ref is resolved once and kept (the last `maxRefs`); a preview ref
 * (a preview session) shows each draft as it is saved, so it is resolved on every request.
 *
 * Decision: the preview does not read storage, so the redirects that renamed pages left
 * (.pressroom/redirects.json) are not part of it: a redirect to an old page address is shown as
 * going there, where the published site goes one hop further (it collapses the chain).
 */
import { type Client, filter, type PrismicDocument } from "@prismicio/client";
import { fromPathOf } from "#web/redirects/redirect-paths.ts";
import { REDIRECT_TYPE, redirectRuleOf } from "#web/redirects/redirect-rules.ts";
import {
  type RedirectResolution,
  redirectPaths,
  resolveRedirects,
} from "#web/redirects/resolve-redirects.ts";
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
