import type { PrismicDocument } from "@prismicio/client";
import { type ContentSource, createMemorySource, type StreamedDocuments } from "#content/source.ts";
import { sha256 } from "#storage/content-hash.ts";
import { type ContentNotice, type RenderLogger, type RenderResult, type SiteAssets, website } from "#website";
import { type DocumentLink, documentHash, stub } from "./document-hash.ts";
import { alternateIds, versionOf } from "./document-records.ts";
import { routeInputs, sharedInputs } from "./render-inputs.ts";
import type { BatchDocuments } from "./search-answers.ts";

/** What every render of a build shares: sent once to each render thread. */
export interface SharedContent {
  siteUrl: string;
  assets: SiteAssets;
  /** Documents every batch may need: the frame's (`website.frame`) and every one of `website.shared`. */
  documents: PrismicDocument[];
  /** Documents before the sitemap is divided into parts (default SITEMAP_PART_SIZE, 2,000; tests lower it). */
  sitemapUrlLimit?: number;
  /**
   * A build's page inputs (render-inputs.ts): `code` (render-code.ts) to hash each page's inputs
   * with, and `previous`, for each route whose stored page may be kept, the inputs it was rendered
   * from. A page whose inputs are the same is reused, not rendered. `earlier`: after a deploy that
   * changed only slices (diff-build.ts `slicesOnly`), a page showing none of the `unless` slice
   * types is kept too when its inputs under the earlier code (`code`) are the previous ones.
   */
  inputs?: {
    code: string;
    previous?: ReadonlyMap<string, string>;
    earlier?: { code: string; unless: readonly string[] };
  };
}

export interface RenderedRoute {
  route: string;
  key: string;
  /**
   * The bytes to store (UTF-8), encoded and hashed where they were rendered: a render thread
   * transfers them to the thread that writes them without a copy, and that thread never holds the
   * page as a (two-byte) string nor encodes it again to write it.
   */
  body: Uint8Array;
  hash: string;
  status: number;
  contentType: string;
  dependencies: string[];
  documentId?: string;
  /** The sitemap's parts when it is an index: to render too (never stored in the manifest). */
  parts?: string[];
  /** How long the render took on its thread (the route's render-time metric; not in the manifest). */
  renderMs: number;
  /** The islands an HTML page hydrates (the build's JavaScript budget); absent for other types. */
  islands?: string[];
  /** What the page was rendered from (render-inputs.ts), when the build hashed it. */
  inputs?: string;
}

const utf8 = new TextEncoder();
/**
 * Markup the site's pages share (its frame: a footer, a navigation), kept by the website between
 * the renders of this thread: every batch of a build hands the same shared documents.
 */
const fragments = website.assets.fragmentCache();

/** A route whose render threw: the build keeps its stored page and goes on with the others. */
export interface FailedRender {
  route: string;
  /** The document the route renders, when the batch holds it. */
  documentId?: string;
  error: string;
}

export interface BatchResult {
  rendered: RenderedRoute[];
  failed: FailedRender[];
  /** With `own`: every document of the batch, as listings and the dependency index keep it. */
  listed?: ListedDocument[];
  /** With `own`: routes not rendered, their stored page kept (inputs unchanged). */
  reused?: string[];
  /** Reused routes kept under the earlier code (`inputs.earlier`): route → their inputs under this code. */
  renewed?: Record<string, string>;
}

/** A document a build listed: what the main thread keeps of it, made where it was parsed. */
export interface ListedDocument {
  stub: PrismicDocument;
  /** `documentHash` of the whole document. */
  hash: string;
  /** Why it gets no page (a uid that cannot be a route), when it gets none. */
  refused?: string;
  /** What editors should fix in it (`website.content.notices`), when anything. */
  notices?: readonly ContentNotice[];
  /**
   * Its version (document-records.ts `versionOf`), when a later build may know it unchanged from
   * versions alone: absent when it links to a document of a type the site does not publish (no
   * listing shows that one's version).
   */
  version?: string;
  /** The documents whose facts the API wrote into it: its link targets and other languages, by id. */
  targets?: string[];
}

/**
 * A build's batch of documents: renders each one's own route and answers what the build keeps of
 * every document (stub, hash, refusal). Done on the render thread that parsed the documents, so the
 * build's main thread never holds a page's content. One document at a time, parsed just before its
 * render and dropped after, so no document outlives a few renders (`BatchDocuments`).
 */
export async function renderOwnRoutes(
  shared: SharedContent,
  batch: BatchDocuments,
  logger?: RenderLogger,
): Promise<BatchResult> {
  const listed: ListedDocument[] = [];
  const reused: string[] = [];
  const renewed: Record<string, string> = {};
  const rendered: RenderedRoute[] = [];
  const failed: FailedRender[] = [];
  const shown = shared.inputs && sharedInputsOf(shared);
  const kept = shared.inputs?.earlier;
  const base = sharedSourceOf(shared);
  let whole: ContentSource | undefined;
  const wholeBatch = () => {
    whole ??= createMemorySource([
      ...shared.documents,
      ...Array.from({ length: batch.length }, (_, index) => batch.parse(index)),
    ]);
    return whole;
  };
  // The first document of the batch with each type and uid (a memory source's uid lookup finds it).
  const earlier = new Map<string, number>();
  for (let index = 0; index < batch.length; index++) {
    const doc = batch.parse(index);
    const route = website.routes.ofDocument(doc);
    const refused = route === null ? (website.routes.problem(doc) ?? "it has no route") : undefined;
    const hashed = shared.inputs && shown !== undefined && route !== null;
    const links: DocumentLink[] = [];
    const { inputs: now, hash } = hashed
      ? routeInputs(shared.inputs?.code ?? "", shown, doc, links)
      : { inputs: undefined, hash: documentHash(doc, undefined, links) };
    const notices = website.content.notices(doc);
    listed.push({
      stub: stub(doc),
      hash,
      ...(refused ? { refused } : {}),
      ...(notices.length > 0 ? { notices } : {}),
      ...versionFacts(doc, links),
    });
    const uidKey = doc.uid ? `${doc.type}:${doc.uid}` : undefined;
    if (route !== null) {
      const previous = shared.inputs?.previous?.get(route);
      if (now !== undefined && previous === now) reused.push(route);
      else if (
        now !== undefined &&
        kept &&
        previous !== undefined &&
        shown !== undefined &&
        !showsSliceOf(doc, kept.unless) &&
        routeInputs(kept.code, shown, doc).inputs === previous
      ) {
        reused.push(route);
        renewed[route] = now;
      } else {
        const source = documentSource(base, doc, uidKey !== undefined && earlier.has(uidKey), wholeBatch);
        const outcome = await renderOne(shared, source, route, logger);
        if ("error" in outcome) failed.push({ route, documentId: doc.id, error: outcome.error });
        else {
          // A page that rendered as something else (a 404) is rendered again by the next build.
          if (now !== undefined && outcome.status === 200) outcome.inputs = now;
          rendered.push(outcome);
        }
      }
    }
    if (uidKey !== undefined && !earlier.has(uidKey)) earlier.set(uidKey, index);
  }
  return {
    rendered,
    failed,
    listed,
    ...(reused.length > 0 ? { reused } : {}),
    ...(Object.keys(renewed).length > 0 ? { renewed } : {}),
  };
}

/** What a later build compares to know the document unchanged without reading it (ListedDocument). */
function versionFacts(doc: PrismicDocument, links: readonly DocumentLink[]): Partial<ListedDocument> {
  const targets = new Set(alternateIds(doc));
  let listable = true;
  for (const link of links) {
    targets.add(link.id);
    // A target no listing shows: whether it changed cannot be known without reading this document.
    if (link.isBroken !== true && (typeof link.type !== "string" || !website.types.includes(link.type)))
      listable = false;
  }
  const version = listable ? versionOf(doc) : undefined;
  return {
    ...(version !== undefined ? { version } : {}),
    ...(targets.size > 0 ? { targets: [...targets] } : {}),
  };
}

/** Whether the document's slice zone (Slice Machine's `slices`) holds a slice of one of `types`. */
function showsSliceOf(doc: PrismicDocument, types: readonly string[]): boolean {
  const slices = (doc.data as { slices?: unknown }).slices;
  if (!Array.isArray(slices)) return false;
  return slices.some((slice) => types.includes((slice as { slice_type?: string } | null)?.slice_type ?? ""));
}

/**
 * A memory source of the shared documents and a whole batch (createMemorySource), as the render of
 * one document of the batch reads it, without parsing the rest of the batch: the shared documents
 * and the document itself answer what they hold, and anything else (another document of the batch,
 * a listing, a uid that an earlier document of the batch has too) is asked of the whole batch,
 * parsed then, once per batch. Document ids are unique in a repository.
 */
function documentSource(
  shared: ContentSource,
  doc: PrismicDocument,
  uidTakenEarlier: boolean,
  wholeBatch: () => ContentSource,
): ContentSource {
  const own = (type: string, uid: string) => !uidTakenEarlier && doc.type === type && doc.uid === uid;
  return {
    getSingle: async (type) => (await shared.getSingle(type)) ?? wholeBatch().getSingle(type),
    getByUID: async (type, uid) =>
      (await shared.getByUID(type, uid)) ?? (own(type, uid) ? doc : wholeBatch().getByUID(type, uid)),
    getByID: async (id) => (doc.id === id ? doc : ((await shared.getByID(id)) ?? wholeBatch().getByID(id))),
    getAllByType: (type) => wholeBatch().getAllByType(type),
    countByType: (type) => wholeBatch().countByType(type),
  };
}

const sharedSources = new WeakMap<SharedContent, ContentSource>();

/** A memory source of the shared documents, once per build. */
function sharedSourceOf(shared: SharedContent): ContentSource {
  let source = sharedSources.get(shared);
  if (source === undefined) {
    source = createMemorySource(shared.documents);
    sharedSources.set(shared, source);
  }
  return source;
}

const sharedHashes = new WeakMap<SharedContent, string>();

/** The hash of the shared documents, once per build (a render thread gets its SharedContent once). */
function sharedInputsOf(shared: SharedContent): string {
  let hash = sharedHashes.get(shared);
  if (hash === undefined) {
    hash = sharedInputs(shared.documents);
    sharedHashes.set(shared, hash);
  }
  return hash;
}

export interface BatchOptions {
  /**
   * Render the parts a route names too (a sitemap index's, `RenderedRoute.parts`), from the same
   * documents.
   */
  parts?: boolean;
  /** Documents besides `documents`, read again from where they are kept whenever a render asks (a build's stubs). */
  streamed?: StreamedDocuments;
}

/**
 * Renders routes whose content is in `documents` (plus the shared documents),
 * hashing each result where it was made (so the hashing runs on the render
 * thread, not on the thread that uploads). A route whose render throws (its
 * content or the template: the documents are all in memory here, no content
 * API is called) is answered as failed instead of failing the whole batch.
 */
export async function renderBatch(
  shared: SharedContent,
  documents: readonly PrismicDocument[],
  routes: readonly string[],
  logger?: RenderLogger,
  options: BatchOptions = {},
): Promise<BatchResult> {
  const all = [...shared.documents, ...documents];
  return renderEach(shared, createMemorySource(all, options.streamed), routes, logger, {
    parts: options.parts === true,
    documentOf: (route) => all.find((doc) => website.routes.ofDocument(doc) === route)?.id,
  });
}

/**
 * Renders `routes` one after the other from `source`; with `parts`, the parts a route names too
 * (each once). A route whose render throws is answered as failed, with its document when known.
 */
async function renderEach(
  shared: SharedContent,
  source: ContentSource,
  routes: readonly string[],
  logger: RenderLogger | undefined,
  options: { parts: boolean; documentOf: (route: string) => string | undefined },
): Promise<BatchResult> {
  const results: RenderedRoute[] = [];
  const failed: FailedRender[] = [];
  const queue = [...routes];
  const queued = new Set(routes);
  for (let route = queue.shift(); route !== undefined; route = queue.shift()) {
    const outcome = await renderOne(shared, source, route, logger);
    if (!("error" in outcome)) {
      results.push(outcome);
      if (options.parts)
        for (const part of outcome.parts ?? [])
          if (!queued.has(part)) {
            queued.add(part);
            queue.push(part);
          }
    } else {
      const documentId = options.documentOf(route);
      failed.push({ route, ...(documentId ? { documentId } : {}), error: outcome.error });
    }
  }
  return { rendered: results, failed };
}

/**
 * One route rendered, encoded and hashed; a render that throws is answered as its error. A
 * retryable error is not the route's (the content API is not called here, but a source that did
 * would mark its timeouts so): it is thrown, and fails the build as it fails a publish.
 */
async function renderOne(
  shared: SharedContent,
  source: ContentSource,
  route: string,
  logger: RenderLogger | undefined,
): Promise<RenderedRoute | { error: string }> {
  const started = performance.now();
  let result: RenderResult;
  try {
    result = await website.render(route, {
      source,
      siteUrl: shared.siteUrl,
      assets: shared.assets,
      mode: "production",
      ...(shared.sitemapUrlLimit ? { sitemapUrlLimit: shared.sitemapUrlLimit } : {}),
      ...(logger ? { logger } : {}),
      fragments,
    });
  } catch (error) {
    if ((error as { retryable?: unknown } | null)?.retryable === true) throw error;
    return { error: error instanceof Error ? error.message : String(error) };
  }
  const body = utf8.encode(result.html);
  return {
    route,
    key: website.routes.key(route),
    body,
    hash: sha256(body),
    status: result.status,
    contentType: result.contentType,
    dependencies: result.dependencies,
    ...(result.documentId ? { documentId: result.documentId } : {}),
    ...(result.parts ? { parts: result.parts } : {}),
    renderMs: performance.now() - started,
    ...(result.contentType.startsWith("text/html")
      ? { islands: [...website.assets.islandsIn(result.html)] }
      : {}),
  };
}
