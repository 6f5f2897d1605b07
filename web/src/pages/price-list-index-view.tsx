import type { ReactNode } from "react";
import { PageHeader } from "../components/page-header.tsx";
import { lowestPrice } from "../components/price-table.tsx";
import { RichText } from "../components/rich-text.tsx";
import { SiteLayout } from "../components/site-layout.tsx";
import type { PriceListDocument } from "../content/index.ts";
import { brandOf, documentTitle, priceListHeading, siteShareImage } from "../lib/page-meta.ts";
import { isSafeHref } from "../lib/safe-href.ts";
import { routeForDocument } from "../routes.ts";
import { priceListIndexGraph } from "../structured-data/route-graph.ts";
import { editorNotes } from "./editor-notes.ts";
import type { ViewProps } from "./view-props.ts";

const TITLE = "Price lists";

/** Every price list as a card (title, description, lowest price), sorted by title. */
export function PriceListIndexView({
  priceLists,
  ...view
}: ViewProps & { priceLists: readonly PriceListDocument[] }): ReactNode {
  const brand = brandOf(view.settings);
  const cards = priceLists
    .map((list) => ({
      list,
      title: priceListHeading(list).text,
      href: list.url || routeForDocument(list),
    }))
    // Every URL the HTML carries passes the site's filter (lib/safe-href.ts), the route resolver's too.
    .filter((card): card is typeof card & { href: string } => isSafeHref(card.href))
    // The API's and a memory source's orders differ; the bytes must not.
    .sort((a, b) => compare(a.title, b.title) || compare(a.href, b.href));
  return (
    <SiteLayout
      settings={view.settings}
      siteUrl={view.siteUrl}
      assets={view.assets}
      currentPath={view.path}
      notes={editorNotes(view.mode, view.settings)}
      meta={{
        title: documentTitle(TITLE, brand),
        shareTitle: TITLE,
        description: cards.length > 0 ? `Prices: ${cards.map((c) => c.title).join(", ")}.` : undefined,
        canonicalPath: view.path,
        image: siteShareImage(view.settings),
        noindex: view.mode === "preview",
      }}
      structuredData={priceListIndexGraph(view.siteUrl)}
    >
      <PageHeader
        title={TITLE}
        lede={
          <p>
            {brand
              ? `Everything ${brand} offers, with prices up front.`
              : "Everything we offer, with prices up front."}
          </p>
        }
      />
      <section className="price-index" aria-label={TITLE}>
        <div className="container">
          <ul className="price-index__grid">
            {cards.map(({ list, title, href }) => {
              const from = lowestPrice(list);
              return (
                <li key={list.id}>
                  <article className="price-index__card">
                    <h2 className="price-index__title">
                      <a href={href}>{title}</a>
                    </h2>
                    <div className="price-index__description prose">
                      <RichText field={list.data.description} headings={{ parent: 2 }} />
                    </div>
                    {from ? (
                      <p className="price-index__from">
                        From <strong>{from}</strong>
                      </p>
                    ) : null}
                  </article>
                </li>
              );
            })}
          </ul>
        </div>
      </section>
    </SiteLayout>
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
