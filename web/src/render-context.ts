import type { RenderContext as ContractContext } from "#website/contract.ts";
import type { FragmentCache } from "./components/shared-markup.tsx";
import type { ContentSource } from "./content/index.ts";

// What a render is given and gives back is the website contract's, but for its content source, the
// site's typed view (content/typed-source.ts), and the shared markup's cache, typed here.
export type { RenderLogger, RenderMode, RenderResult } from "#website/contract.ts";

export interface RenderContext extends Omit<ContractContext, "source" | "fragments"> {
  /** Content at one ref; wrapped per render to record dependencies. */
  source: ContentSource;
  /**
   * Keeps the markup many pages share (footer, navigation, cookie notice) between renders
   * (components/shared-markup.tsx): the build's render threads and the worker's publishes pass one.
   */
  fragments?: FragmentCache;
}

export const HTML_CONTENT_TYPE = "text/html; charset=utf-8";

/** Filled by a route handler once it knows its document, so that a failure can name it. */
export interface RenderTrace {
  documentId?: string;
  /** `/sitemap.xml` as an index: the routes of its parts, which must be rendered (and stored) with it. */
  parts?: string[];
}
