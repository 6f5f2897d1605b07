import type { PrismicDocument, Route as ResolverRoute } from "@prismicio/client";
import type { ContentSource } from "../content/source.ts";

/**
 * The website contract: everything the engine (worker, servers, CLI) knows of the website it
 * publishes. A website is one module exporting `website` of this type; the engine imports it through
 * `#website` (index.ts), and nothing else of the website's code. The demo's is `web/src/website.ts`;
 * another is chosen with `PRESSROOM_WEBSITE`.
 *
 * Shaped after what static-site frameworks expose: Prismic's route resolver (the URL table), Astro's
 * `getStaticPaths` (the routes a build renders that show no single document: listings, the sitemap),
 * a render function from a path and a content source to bytes and the dependencies it read.
 */
export interface Website {
  /** A short name for logs (the worker's `worker started` line): `demo`. */
  readonly name: string;
  /**
   * The website's Slice Machine project: the folder holding `customtypes/<id>/index.json` and
   * `slicemachine.config.json` (whose `libraries` hold the slices' `model.json`). The content
   * client's query guard and the local content service read the models from there.
   */
  readonly projectDir: string;
  /**
   * Every document type the site publishes: a build lists these and nothing else. Routed types,
   * the types every page reads (`frame`), embedded types and the redirect type are all here.
   */
  readonly types: readonly string[];
  /**
   * The types whose documents every page's layout reads (a settings singleton: navigation, footer).
   * A change to one re-renders every route that read it; a build sends them to every render.
   */
  readonly frame: readonly string[];
  /**
   * Types a render may read whole besides its own document (price lists embedded in any page): a
   * build loads them once and hands them to every render thread. `frame` is included implicitly.
   * A listing gets whole documents of these types and only stubs (route, dates, SEO facts) of the
   * others, in a build as in a publish: a type whose content a listing shows belongs here.
   */
  readonly shared: readonly string[];
  readonly routes: WebsiteRoutes;
  /** The site's redirect documents, when it has any: the engine resolves, stores and serves them. */
  readonly redirects?: WebsiteRedirects;
  readonly seo: WebsiteSeo;
  readonly content: WebsiteContent;
  readonly assets: WebsiteAssets;
  /** Renders one route at the source's ref. Throws `RenderError`-like errors naming the route. */
  render(path: string, context: RenderContext): Promise<RenderResult>;
}

export interface WebsiteRoutes {
  /**
   * Prismic's route resolver: sent with every query, so that the API fills `url` on documents and
   * links. The one URL table: `ofDocument` and `documentAt` agree with it.
   */
  readonly resolver: readonly ResolverRoute[];
  /** The route (path) of a document, or null when it has none (a type without a route, a refused uid). */
  ofDocument(doc: PrismicDocument): string | null;
  /** Why a document of a routed type gets no route, in the editor's words; undefined when it has one. */
  problem(doc: PrismicDocument): string | undefined;
  /** The document a request path shows, or undefined when it shows none (a listing, not found). */
  documentAt(path: string): { type: string; uid: string } | undefined;
  /**
   * The canonical spelling of a request path the site answers (`/About/` → `/about`), or undefined
   * when it matches no route (the 404 page).
   */
  canonical(path: string): string | undefined;
  /** The storage key of a route: `index.html`, `about/index.html`, `sitemap.xml`, `404.html`. */
  key(route: string): string;
  /**
   * Routes that show no document of their own: listings, the sitemap, robots.txt, the error pages.
   * A build renders them from the shared documents and every other document's stub, nothing else
   * (the stubs read again at each pass of `getAllByType`: iterate them, keep what is shown), and
   * keeps them as stored while those and the code are unchanged. Their dependencies are recorded
   * when they render.
   */
  readonly listings: readonly string[];
  /** Whether a route is a listing, or one of the sitemap's parts (`/sitemap-2-of-4.xml`). */
  isListing(route: string): boolean;
  /** Whether a route is the sitemap or one of its parts (rendered from routes and dates: read by listing slot). */
  isSitemap(route: string): boolean;
  /** The route the 404 page is rendered under (no request path reaches it). */
  readonly notFound: string;
  /** The routes of the stored error pages, by status: `{ 404: "404", 500: "500", 503: "503" }`. */
  readonly errors: Readonly<Record<number, string>>;
  /**
   * Request paths the site answers with a 301 to a route, besides the routes' other spellings: the
   * demo's `{ "/home": "/" }` (the home page's uid as a path). Matched exactly, with or without one
   * trailing slash; the query string is kept. Never a route, nor a path an editor may redirect.
   */
  readonly aliases: Readonly<Record<string, string>>;
  /** Path segments no document may take (they belong to the engine or the site's fixed routes). */
  readonly reserved: readonly string[];
  /** Why `uid` cannot be a document's uid of `type` (grammar, reserved names); undefined when it can. */
  uidProblem(type: string, uid: unknown): string | undefined;
}

export interface WebsiteRedirects {
  /** The document type whose documents are redirects. */
  readonly type: string;
  /** The rule a redirect document states; every field may be absent (never throws). */
  ruleOf(doc: PrismicDocument): RedirectRule;
}

export interface WebsiteSeo {
  /** Whether the document asks search engines not to index it (left out of the sitemap). */
  noindexOf(doc: PrismicDocument): boolean;
  /** Where a document's canonical override points, when it has one. */
  canonicalTargetOf(doc: PrismicDocument): CanonicalTarget | undefined;
  /**
   * What the sitemap shows of a document's date (`<lastmod>`, a day): the planner re-renders a
   * `routes:<type>` listing when it changes.
   */
  lastmodOf(doc: PrismicDocument): string | undefined;
  /**
   * The `data` of a listing's stub of a document (listings get routes, dates and these facts, not
   * content): the SEO facts written back in the site's own fields, for its sitemap to read.
   * `canonical` is the override as the content API sends a link, `url` being the target's route now.
   */
  stubData(facts: { noindex: boolean; canonical?: unknown }): Record<string, unknown>;
}

export interface WebsiteContent {
  /** What an editor should fix in a document the site renders anyway. Pure; never throws. */
  notices(doc: PrismicDocument): readonly ContentNotice[];
  /** One line for logs and `pressroom status`. */
  describeNotice(notice: ContentNotice): string;
}

export interface WebsiteAssets {
  /** The stylesheet, favicon and browser bundle, content-hashed; built once per process. */
  build(): Promise<BuiltAssets>;
  /** Tallies the JavaScript of each rendered HTML page of a build against the site's budget. */
  javascriptMeter(manifest: BrowserManifest): JavaScriptMeter;
  /** The islands an HTML page hydrates. */
  islandsIn(html: string): Set<string>;
  /** Keeps markup many pages share between renders (pass one per process to `render`). */
  fragmentCache(): FragmentCache;
  /**
   * The editors' browser code the preview server bundles (its toolbar's refresh, the slice
   * simulator), as files, and the esbuild options every browser bundle of the site shares.
   */
  readonly editor: { preview: string; simulator: string; buildOptions: Readonly<Record<string, unknown>> };
}

/** An opaque cache a website keeps its shared markup in between renders. */
export type FragmentCache = object;

export interface JavaScriptMeter {
  add(route: string, html: string | Iterable<string>): void;
  report(): JavaScriptReport;
}

export interface PageJavaScript {
  route: string;
  bytes: number;
}

export interface JavaScriptReport {
  heaviest?: PageJavaScript;
  plain?: PageJavaScript;
  initial?: PageJavaScript & { react: boolean };
  /** Human-readable lines for each budget exceeded; empty when within budget. */
  overBudget: string[];
  /** What the build prints: the figures against their budgets, then anything over. */
  lines: string[];
}

/** Public paths of the built assets, as pages link them. Plain JSON (it travels to render threads). */
export interface SiteAssets {
  /** e.g. `/assets/site.3f2a9c01d4.css` */
  css: string;
  /** e.g. `/assets/favicon.9b1e22c0aa.svg` */
  favicon: string;
  /** The browser bundle: the entry every page loads, and what each island adds. */
  browser: BrowserManifest;
}

/** What the renderer and the build know of the browser code. Plain JSON: it travels to render threads. */
export interface BrowserManifest {
  /** The one script every page loads, e.g. `/assets/js/entry.3F2A9C01.js`. */
  entry: string;
  /** Every file the entry loads statically (itself included). */
  entryFiles: string[];
  /** Island name → every file hydrating it loads beyond the entry's (React included). */
  islands: Record<string, string[]>;
  /** React's and react-dom's files (what the first island to wake brings): never before an island wakes. */
  react: string[];
  /** Public path → gzip size in bytes (level 9), for the JavaScript budget. */
  gzipBytes: Record<string, number>;
}

/** A built file served under `/assets/`: named by its content hash, so cacheable forever. */
export interface AssetFile {
  /** Storage key, e.g. `assets/site.3f2a9c01d4.css`. */
  key: string;
  body: Buffer;
  contentType: string;
}

export interface BuiltAssets {
  files: AssetFile[];
  assets: SiteAssets;
}

/** The part of a pino logger a render uses. */
export interface RenderLogger {
  warn(details: object, message?: string): void;
  error(details: object, message?: string): void;
}

/** Production renders what visitors get; preview shows editors what would be skipped. */
export type RenderMode = "production" | "preview";

export interface RenderContext {
  /** Content at one ref: a render never sees two versions of the content. */
  source: ContentSource;
  /** Absolute origin (and optional base path) of the public site. */
  siteUrl: string;
  assets: SiteAssets;
  mode: RenderMode;
  logger?: RenderLogger;
  /** Documents before the sitemap is divided into parts, and per part on average (tests lower it). */
  sitemapUrlLimit?: number;
  fragments?: FragmentCache;
}

export interface RenderResult {
  status: 200 | 404 | 500 | 503;
  /** The body: HTML for pages, XML for the sitemap, text for robots.txt. */
  html: string;
  contentType: string;
  /**
   * What the render read, sorted (the dependency index's grammar, `#content/dependencies.ts`):
   * `doc:<id>`, `url:<id>`, `sees:<id>:<route>`, `type:<type>`, `routes:<type>`, `year:<n>`.
   */
  dependencies: string[];
  /** The document the route shows, when there is one. */
  documentId?: string;
  /** A sitemap split into an index: the routes of its parts, rendered and stored with it. */
  parts?: string[];
}

/**
 * An editor's redirect as the engine keeps it: what the document says, nothing resolved yet (the
 * engine normalises its From path, routes its target document and collapses chains).
 */
export interface RedirectRule {
  id: string;
  /** The From path as typed (trimmed): `/spring-sale`. */
  from: string;
  to: RedirectTarget;
  /** 301 when true, 302 when false. */
  permanent: boolean;
  /** Its first publication date: when two redirects claim one path, the first published wins. */
  published: string | null;
}

export type RedirectTarget =
  | { kind: "document"; id: string }
  | { kind: "url"; url: string }
  | { kind: "none" };

/** Where a canonical override points: another document (its route, looked up late) or a web address. */
export type CanonicalTarget = { document: string } | { web: string };

/** What an editor should fix in a document the site renders anyway. */
export interface ContentNotice {
  documentId: string;
  type: string;
  uid: string | null;
  field: string;
  kind: "fallback" | "unknown-slice" | "unknown-variation" | "converted";
  message: string;
}
