import type { Client } from "@prismicio/client";
import { createClientSource } from "#content/source.ts";
import { typedSource } from "./content/index.ts";
import { renderErrorPage } from "./handlers/render-error-page.tsx";
import { renderNotFound } from "./handlers/render-not-found.tsx";
import { renderPage } from "./handlers/render-page.tsx";
import { renderPriceList, renderPriceListIndex } from "./handlers/render-price-list.tsx";
import { renderRobots } from "./handlers/render-robots.ts";
import { renderSitemap, renderSitemapPart } from "./handlers/render-sitemap.ts";
import type { RenderContext, RenderResult, RenderTrace } from "./render-context.ts";
import { RenderError } from "./render-error.ts";
import { HOME_UID, parseRoute, pathForRoute } from "./routes.ts";

export type { RenderContext, RenderLogger, RenderMode, RenderResult } from "./render-context.ts";
export { RenderError } from "./render-error.ts";

/**
 * Renders one route at the source's ref: the bytes to store, their content
 * type, and what they depend on (the dependency index). A path that matches
 * no route, or whose document does not exist, gives the 404 page. Any error
 * becomes a RenderError naming the route and document; nothing is written
 * by this function, so the last good object stays live.
 */
export async function renderRoute(path: string, ctx: RenderContext): Promise<RenderResult> {
  const route = parseRoute(path);
  const trace: RenderTrace = {};
  try {
    switch (route.kind) {
      case "home":
        return await renderPage(ctx, trace, HOME_UID, "/");
      case "page":
        return await renderPage(ctx, trace, route.uid, pathForRoute(route));
      case "price-list":
        return await renderPriceList(ctx, trace, route.uid, pathForRoute(route));
      case "price-list-index":
        return await renderPriceListIndex(ctx);
      case "sitemap":
        return await renderSitemap(ctx);
      case "sitemap-part":
        // A part of another division than the content's now: 404.
        return (await renderSitemapPart(ctx, route.part, route.of)) ?? (await renderNotFound(ctx));
      case "robots":
        return await renderRobots(ctx);
      case "not-found":
        return await renderNotFound(ctx);
      case "error":
        return await renderErrorPage(ctx, route.status);
    }
  } catch (error) {
    throw new RenderError(path, trace.documentId, error);
  }
}

export interface ClientRenderOptions extends Omit<RenderContext, "source"> {
  /** A content client carrying the route resolver (services/shared's createContentClient). */
  client: Client;
  /** The ref to read: the master ref for a publish, the editor's ref for a preview. */
  ref: string;
}

/** renderRoute reading through a content client at `ref` (preview server, single-route publishes). */
export function renderRouteWithClient(path: string, options: ClientRenderOptions): Promise<RenderResult> {
  const { client, ref, ...rest } = options;
  return renderRoute(path, { ...rest, source: typedSource(createClientSource(client, ref)) });
}
