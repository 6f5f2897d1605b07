import type { SiteAssets } from "./assets.ts";
import type { FragmentCache } from "./components/shared-markup.tsx";
import type { ContentSource } from "./content/index.ts";

/** The part of a pino logger a render uses (a pino logger or child fits). */
export interface RenderLogger {
  warn(details: object, message?: string): void;
  error(details: object, message?: string): void;
}

/** Production renders what visitors get; preview shows editors what would be skipped. */
export type RenderMode = "production" | "preview";

export interface RenderContext {
  /** Content at one ref; wrapped per render to record dependencies. */
  source: ContentSource;
  /** Absolute origin (and optional base path) of the public site, e.g. `https://www.example.com`. */
  siteUrl: string;
  assets: SiteAssets;
  mode: RenderMode;
  logger?: RenderLogger;
  /** URLs per sitemap file before `/sitemap.xml` becomes an index (default SITEMAP_URL_LIMIT, 50,000; tests lower it). */
  sitemapUrlLimit?: number;
  /**
   * Keeps the markup many pages share (footer, navigation, cookie notice) between renders
   * (components/shared-markup.tsx): the build's render threads and the worker's publishes pass one.
   */
  fragments?: FragmentCache;
}

export interface RenderResult {
  status: 200 | 404 | 500 | 503;
  /** The body: HTML for pages, XML for the sitemap, text for robots.txt. */
  html: string;
  contentType: string;
  /** `doc:<id>` / `type:<type>` the render read, sorted. */
  dependencies: string[];
  /** The document the route shows, when there is one. */
  documentId?: string;
  /** `/sitemap.xml` as an index: the routes of its parts, which must be rendered (and stored) with it. */
  parts?: string[];
}

export const HTML_CONTENT_TYPE = "text/html; charset=utf-8";

/** Filled by a route handler once it knows its document, so that a failure can name it. */
export interface RenderTrace {
  documentId?: string;
  /** `/sitemap.xml` as an index: the routes of its parts, which must be rendered (and stored) with it. */
  parts?: string[];
}
