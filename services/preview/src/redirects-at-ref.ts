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
import { website } from "#website";
import type { RedirectRule } from "#website/contract.ts";

export interface RedirectsAtRef extends RedirectResolution {
  /** What each redirect document at the ref states, by its id. */
  rules: Map<string, RedirectRule>;
  /** The canonical From path of each redirect document whose From path is usable. */
  fromPaths: Map<string, string>;
  /** Where each document a redirect links to is published at the ref (null: nowhere), by id. */
  targetRoutes: Map<string, string | null>;
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
  const redirects = website.redirects;
  const documents = redirects ? await listType(client, ref, redirects.type) : [];
  const rules = redirects ? documents.map((doc) => redirects.ruleOf(doc)) : [];
  // Where each linked document is published at this ref: the route resolver wrote it into the link.
  const targetRoutes = new Map<string, string | null>();
  documents.forEach((doc, at) => {
    const to = rules[at]?.to;
    if (to?.kind === "document") targetRoutes.set(to.id, linkedUrl(doc.data, to.id) ?? null);
  });
  const pages = await publishedPaths(client, ref, redirectPaths(rules, siteUrl));
  const resolution = resolveRedirects({
    siteUrl,
    rules,
    routeOf: (id) => targetRoutes.get(id),
    isPage: (path) => pages.has(path),
  });
  const fromPaths = new Map<string, string>();
  for (const rule of rules) {
    const from = fromPathOf(rule.from, siteUrl);
    if ("path" in from) fromPaths.set(rule.id, from.path);
  }
  return {
    ...resolution,
    rules: new Map(rules.map((rule) => [rule.id, rule])),
    fromPaths,
    targetRoutes,
  };
}

/** Every document of `type` at `ref`, page by page, without dangerouslyGetAll's 500 ms between pages. */
async function listType(client: Client, ref: string, type: string): Promise<PrismicDocument[]> {
  const documents: PrismicDocument[] = [];
  for (let page = 1, pages = 1; page <= pages; page++) {
    const answer = await client.get({
      ref,
      filters: [filter.at("document.type", type)],
      pageSize: PAGE_SIZE,
      page,
    });
    documents.push(...answer.results);
    pages = answer.total_pages;
  }
  return documents;
}

/**
 * The url the route resolver gave a link to document `id` in a document's data, wherever the link
 * is; null when the link is broken or has no url, undefined when there is no such link.
 */
function linkedUrl(value: unknown, id: string): string | null | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const link = value as { link_type?: unknown; id?: unknown; url?: unknown; isBroken?: unknown };
  if (link.link_type === "Document" && link.id === id)
    return link.isBroken || typeof link.url !== "string" ? null : link.url;
  for (const inner of Object.values(value)) {
    const found = linkedUrl(inner, id);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Which of `paths` a document or a listing is published at, at `ref`. */
async function publishedPaths(client: Client, ref: string, paths: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const wanted = new Map<string, Map<string, string>>();
  for (const path of paths) {
    if (website.routes.isListing(path)) {
      found.add(path);
      continue;
    }
    const shown = website.routes.documentAt(path);
    if (!shown) continue;
    const byUid = wanted.get(shown.type) ?? new Map<string, string>();
    byUid.set(shown.uid, path);
    wanted.set(shown.type, byUid);
  }
  for (const [type, byUid] of wanted) {
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
