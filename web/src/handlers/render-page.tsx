import { components } from "../../slices/index.ts";
import { recordingSource } from "../content/index.ts";
import { PageView } from "../pages/page-view.tsx";
import {
  HTML_CONTENT_TYPE,
  type RenderContext,
  type RenderResult,
  type RenderTrace,
} from "../render-context.ts";
import { renderHtml } from "../render-html.ts";
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
  const sliceContext = await loadSliceContext(page.data.slices, recorder.source, ctx.mode);
  page.data.slices.forEach((slice, index) => {
    const details = {
      route: path,
      documentId: page.id,
      sliceType: slice.slice_type,
      sliceId: slice.id,
      index,
    };
    if (!Object.hasOwn(components, slice.slice_type)) {
      ctx.logger?.warn(details, "no component for this slice type: the slice is left out");
    } else if (
      slice.slice_type === "price_list_table" &&
      !sliceContext.priceLists.has((slice.primary.price_list as { id?: string }).id ?? "")
    ) {
      ctx.logger?.warn(
        details,
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
  );
  return {
    status: 200,
    html,
    contentType: HTML_CONTENT_TYPE,
    dependencies: recorder.dependencies(),
    documentId: page.id,
  };
}
