import type { PrismicDocument } from "@prismicio/client";
import { sha256 } from "../../../services/shared/src/storage/index.ts";
import type { SiteAssets } from "../../../web/src/assets.ts";
import { createMemorySource } from "../../../web/src/content/index.ts";
import { type RenderLogger, renderRoute } from "../../../web/src/render.ts";
import { keyForRoute } from "../../../web/src/routes.ts";

/** What every render of a build shares: sent once to each render thread. */
export interface SharedContent {
  siteUrl: string;
  assets: SiteAssets;
  /** Documents every batch may need: settings and every price list. */
  documents: PrismicDocument[];
  /** URLs per sitemap file (default: the protocol's 50,000; tests lower it). */
  sitemapUrlLimit?: number;
}

export interface RenderedRoute {
  route: string;
  key: string;
  html: string;
  hash: string;
  status: number;
  contentType: string;
  dependencies: string[];
  documentId?: string;
  /** The sitemap's parts when it is an index: to render too (never stored in the manifest). */
  parts?: string[];
}

/**
 * Renders routes whose content is in `documents` (plus the shared documents),
 * hashing each result where it was made (so the hashing runs on the render
 * thread, not on the thread that uploads).
 */
export async function renderBatch(
  shared: SharedContent,
  documents: readonly PrismicDocument[],
  routes: readonly string[],
  logger?: RenderLogger,
): Promise<RenderedRoute[]> {
  const source = createMemorySource([...shared.documents, ...documents]);
  const results: RenderedRoute[] = [];
  for (const route of routes) {
    const result = await renderRoute(route, {
      source,
      siteUrl: shared.siteUrl,
      assets: shared.assets,
      mode: "production",
      ...(shared.sitemapUrlLimit ? { sitemapUrlLimit: shared.sitemapUrlLimit } : {}),
      ...(logger ? { logger } : {}),
    });
    results.push({
      route,
      key: keyForRoute(route),
      html: result.html,
      hash: sha256(result.html),
      status: result.status,
      contentType: result.contentType,
      dependencies: result.dependencies,
      ...(result.documentId ? { documentId: result.documentId } : {}),
      ...(result.parts ? { parts: result.parts } : {}),
    });
  }
  return results;
}
