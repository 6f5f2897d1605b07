import { isFilled } from "@prismicio/client";
import type { ReactNode } from "react";
import { PageHeader } from "../components/page-header.tsx";
import { PriceTable } from "../components/price-table.tsx";
import { RichText } from "../components/rich-text.tsx";
import { SiteLayout } from "../components/site-layout.tsx";
import type { PriceListDocument } from "../content/index.ts";
import { brandOf, documentTitle, priceListHeading, siteShareImage, summary } from "../lib/page-meta.ts";
import { PRICE_LIST_INDEX_ROUTE } from "../routes.ts";
import { priceListGraph } from "../structured-data/route-graph.ts";
import { editorNotes } from "./editor-notes.ts";
import type { ViewProps } from "./view-props.ts";

/** A price list on its own route: title, description, the table, and the way back to all lists. */
export function PriceListView({
  priceList,
  ...view
}: ViewProps & { priceList: PriceListDocument }): ReactNode {
  const title = priceListHeading(priceList).text;
  return (
    <SiteLayout
      settings={view.settings}
      siteUrl={view.siteUrl}
      assets={view.assets}
      currentPath={view.path}
      notes={editorNotes(view.mode, view.settings, priceList)}
      meta={{
        title: documentTitle(title, brandOf(view.settings)),
        shareTitle: title,
        description: summary(priceList.data.description),
        canonicalPath: view.path,
        image: siteShareImage(view.settings),
        noindex: view.mode === "preview",
      }}
      structuredData={priceListGraph({ priceList, siteUrl: view.siteUrl, path: view.path })}
    >
      <PageHeader
        eyebrow="Price list"
        title={title}
        lede={
          isFilled.richText(priceList.data.description) ? (
            <RichText field={priceList.data.description} />
          ) : undefined
        }
      />
      <section className="slice price-section" aria-label={`${title}: prices`}>
        <div className="container">
          <PriceTable priceList={priceList} />
        </div>
      </section>
      <div className="price-list-back">
        <div className="container">
          <a className="arrow-link" href={PRICE_LIST_INDEX_ROUTE}>
            All price lists
          </a>
        </div>
      </div>
    </SiteLayout>
  );
}
