import { absoluteUrl } from "../lib/site-url.ts";
import type { RenderContext, RenderResult } from "../render-context.ts";
import { SITEMAP_ROUTE } from "../routes.ts";

/**
 * `/robots.txt`: everything may be crawled, and here is the sitemap. A
 * preview deployment (drafts) asks crawlers to stay away entirely. It reads
 * no content, so it has no dependencies.
 */
export async function renderRobots(ctx: RenderContext): Promise<RenderResult> {
  const body =
    ctx.mode === "preview"
      ? "User-agent: *\nDisallow: /\n"
      : `User-agent: *\nAllow: /\n\nSitemap: ${absoluteUrl(ctx.siteUrl, SITEMAP_ROUTE)}\n`;
  return { status: 200, html: body, contentType: "text/plain; charset=utf-8", dependencies: [] };
}
