import { recordingSource } from "../content/index.ts";
import { NotFoundView } from "../pages/not-found-view.tsx";
import { HTML_CONTENT_TYPE, type RenderContext, type RenderResult } from "../render-context.ts";
import { renderHtml } from "../render-html.tsx";

/**
 * The 404 page. Every unmatched path gets these same bytes (stored once, as
 * 404.html), so its dependencies are only what it shows: settings and the
 * documents the layout links to. No `type:` dependency: publishing a page
 * at a path that used to 404 renders that page's own route; 404.html itself
 * does not change.
 */
export async function renderNotFound(ctx: RenderContext): Promise<RenderResult> {
  const recorder = recordingSource(ctx.source);
  const settings = await recorder.source.getSettings();
  const html = renderHtml(
    <NotFoundView settings={settings} siteUrl={ctx.siteUrl} assets={ctx.assets} mode={ctx.mode} />,
    ctx.fragments,
  );
  return { status: 404, html, contentType: HTML_CONTENT_TYPE, dependencies: recorder.dependencies() };
}
