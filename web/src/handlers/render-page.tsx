import { isFilled } from "@prismicio/client";
import { recordingSource, variationOf } from "../content/index.ts";
import { renderFailpoint } from "../failpoints.ts";
import { PageView } from "../pages/page-view.tsx";
import {
  HTML_CONTENT_TYPE,
  type RenderContext,
  type RenderResult,
  type RenderTrace,
} from "../render-context.ts";
import { renderHtml } from "../render-html.tsx";
import { HOME_UID } from "../routes.ts";
import { loadSliceContext } from "../slice-loader.ts";
import { renderNotFound } from "./render-not-found.tsx";

/** `/` (the page with uid `home`) and `/{uid}`. */
export async function renderPage(
  ctx: RenderContext,
  trace: RenderTrace,
  uid: string,
  path: string,
): Promise<RenderResult> {
  const recorder = recordingSource(ctx.source);
  const [settings, page] = await Promise.all([
    recorder.source.getSettings(),
    recorder.source.getPageByUID(uid),
  ]);
  if (!page) return renderNotFound(ctx);
  trace.documentId = page.id;
  renderFailpoint(page);
  const sliceContext = await loadSliceContext(page.data.slices, recorder.source, ctx.mode);
  // Slices no component or variation renders are the document's own fault, reported once per publish
  // where the document is read (content-notices.ts); a table whose price list is gone depends on
  // another document, so it is said here.
  page.data.slices.forEach((slice, index) => {
    if (
      slice.slice_type === "price_list_table" &&
      variationOf(slice) &&
      !(
        isFilled.contentRelationship(slice.primary.price_list) &&
        sliceContext.priceLists.has(slice.primary.price_list.id)
      )
    ) {
      ctx.logger?.warn(
        { route: path, documentId: page.id, sliceType: slice.slice_type, sliceId: slice.id, index },
        "the price list table links to no published price list: the slice is left out",
      );
    }
  });
  const html = renderHtml(
    <PageView
      page={page}
      sliceContext={sliceContext}
      settings={settings}
      siteUrl={ctx.siteUrl}
      assets={ctx.assets}
      mode={ctx.mode}
      path={uid === HOME_UID ? "/" : path}
    />,
    ctx.fragments,
  );
  return {
    status: 200,
    html,
    contentType: HTML_CONTENT_TYPE,
    dependencies: recorder.dependencies(),
    documentId: page.id,
  };
}
