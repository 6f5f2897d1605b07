import { isFilled } from "@prismicio/client";
import type { SliceComponentProps } from "@prismicio/react";
import type { ReactNode } from "react";
import type { PriceListTableSlice } from "../../prismicio-types.d.ts";
import { PriceTable } from "../../src/components/price-table.tsx";
import { RichText } from "../../src/components/rich-text.tsx";
import { islandId } from "../../src/lib/island-id.ts";
import { priceListHeading } from "../../src/lib/page-meta.ts";
import type { SliceContext } from "../../src/slice-context.ts";

/**
 * A price list document shown inside a page. The document is fetched through
 * the content source by the link's id before rendering (not via fetchLinks),
 * so its current rows are shown and the page depends on it.
 */
export default function PriceListTable({
  slice,
  index,
  context,
}: SliceComponentProps<PriceListTableSlice, SliceContext>): ReactNode {
  const link = slice.primary.price_list;
  const priceList = isFilled.contentRelationship(link) ? context.priceLists.get(link.id) : undefined;
  if (!priceList) {
    // Production leaves the section out (render.ts logs it); editors see why in preview.
    return context.mode === "preview" ? (
      <div className="container">
        <p className="slice-missing" role="note">
          This price list table links to no published price list.
        </p>
      </div>
    ) : null;
  }
  const headingId = `${islandId(slice, index)}-heading`;
  const heading = slice.primary.heading?.trim() || priceListHeading(priceList).text;
  const showDescription = slice.primary.show_description !== false;
  return (
    <section
      className="slice price-section"
      data-slice-type={slice.slice_type}
      data-slice-variation={slice.variation}
      aria-labelledby={headingId}
    >
      <div className="container">
        <div className="price-section__intro">
          <h2 className="section-heading" id={headingId}>
            {heading}
          </h2>
          {showDescription && isFilled.richText(priceList.data.description) ? (
            <div className="price-section__description prose">
              <RichText field={priceList.data.description} headings={{ parent: 2 }} />
            </div>
          ) : null}
        </div>
        <PriceTable priceList={priceList} />
      </div>
    </section>
  );
}
