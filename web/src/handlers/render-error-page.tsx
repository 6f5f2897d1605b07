import { recordingSource } from "../content/index.ts";
import { ErrorView } from "../pages/error-view.tsx";
import { HTML_CONTENT_TYPE, type RenderContext, type RenderResult } from "../render-context.ts";
import { renderHtml } from "../render-html.tsx";
import type { ServerErrorStatus } from "../routes.ts";

/**
 * A stored server error page (`500.html`, `503.html`), rendered with the site so that it can be
 * served while content or storage is failing. Like the 404 page it depends only on what it shows:
 * settings and the documents the layout links to.
 */
export async function renderErrorPage(ctx: RenderContext, status: ServerErrorStatus): Promise<RenderResult> {
  const recorder = recordingSource(ctx.source);
  const settings = await recorder.source.getSettings();
  const html = renderHtml(
    <ErrorView
      settings={settings}
      siteUrl={ctx.siteUrl}
      assets={ctx.assets}
      mode={ctx.mode}
      status={status}
    />,
    ctx.fragments,
  );
  return { status, html, contentType: HTML_CONTENT_TYPE, dependencies: recorder.dependencies() };
}
