import { recordingSource } from "../content/index.ts";
import { renderFailpoint } from "../failpoints.ts";
import { PriceListIndexView } from "../pages/price-list-index-view.tsx";
import { PriceListView } from "../pages/price-list-view.tsx";
import {
  HTML_CONTENT_TYPE,
  type RenderContext,
  type RenderResult,
  type RenderTrace,
} from "../render-context.ts";
import { renderHtml } from "../render-html.tsx";
import { PRICE_LIST_INDEX_ROUTE } from "../routes.ts";
import { renderNotFound } from "./render-not-found.tsx";

/** `/price-list/{uid}`. */
export async function renderPriceList(
  ctx: RenderContext,
  trace: RenderTrace,
  uid: string,
  path: string,
): Promise<RenderResult> {
  const recorder = recordingSource(ctx.source);
  const [settings, priceList] = await Promise.all([
    recorder.source.getSettings(),
    recorder.source.getPriceListByUID(uid),
  ]);
  if (!priceList) return renderNotFound(ctx);
  trace.documentId = priceList.id;
  renderFailpoint(priceList);
  const html = renderHtml(
    <PriceListView
      priceList={priceList}
      settings={settings}
      siteUrl={ctx.siteUrl}
      assets={ctx.assets}
      mode={ctx.mode}
      path={path}
    />,
    ctx.fragments,
  );
  return {
    status: 200,
    html,
    contentType: HTML_CONTENT_TYPE,
    dependencies: recorder.dependencies(),
    documentId: priceList.id,
  };
}

/** `/price-list/`: depends on `type:price_list` (a list appearing or going) and on every list shown. */
export async function renderPriceListIndex(ctx: RenderContext): Promise<RenderResult> {
  const recorder = recordingSource(ctx.source);
  const [settings, priceLists] = await Promise.all([
    recorder.source.getSettings(),
    recorder.source.getAllByType("price_list"),
  ]);
  const html = renderHtml(
    <PriceListIndexView
      priceLists={[...priceLists]}
      settings={settings}
      siteUrl={ctx.siteUrl}
      assets={ctx.assets}
      mode={ctx.mode}
      path={PRICE_LIST_INDEX_ROUTE}
    />,
    ctx.fragments,
  );
  return { status: 200, html, contentType: HTML_CONTENT_TYPE, dependencies: recorder.dependencies() };
}
