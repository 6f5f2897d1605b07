import { asText } from "@prismicio/client";
import type { Offer, OfferCatalog, Service } from "schema-dts";
import { groupRows } from "../components/price-table.tsx";
import type { PriceListDocument } from "../content/index.ts";

/**
 * A price list as an `OfferCatalog` of `Offer`s, one per row the table shows (rows without a
 * name are not shown, nor listed here): the service offered (name, description, category), and
 * `price` with `priceCurrency` where the row has a price (Google's offer properties,
 * developers.google.com/search/docs/appearance/structured-data/merchant-listing: `price` a number,
 * `priceCurrency` ISO 4217); the unit ("per month") as a `UnitPriceSpecification`'s `unitText`.
 * `url` is the list's own page (the route resolver's url), also when a page embeds it.
 */
export function offerCatalogNode(
  priceList: PriceListDocument,
  listUrl: string | undefined,
): OfferCatalog | undefined {
  const currency = (priceList.data.currency as string | null | undefined) ?? "USD";
  const offers: Offer[] = [];
  for (const group of groupRows(priceList.data.rows ?? [])) {
    for (const row of group.rows) {
      const name = row.name?.trim() ?? "";
      const description = row.description?.trim();
      const service: Service = {
        "@type": "Service",
        name,
        ...(description ? { description } : {}),
        ...(group.category ? { category: group.category } : {}),
      };
      const price = typeof row.price === "number" && Number.isFinite(row.price) ? row.price : undefined;
      const unit = row.unit?.trim();
      offers.push({
        "@type": "Offer",
        name,
        itemOffered: service,
        ...(price === undefined
          ? {}
          : {
              price,
              priceCurrency: currency,
              ...(unit
                ? {
                    priceSpecification: {
                      "@type": "UnitPriceSpecification",
                      price,
                      priceCurrency: currency,
                      unitText: unit,
                    },
                  }
                : {}),
            }),
      });
    }
  }
  if (offers.length === 0) return undefined;
  const name = asText(priceList.data.title ?? []).trim();
  return {
    "@type": "OfferCatalog",
    ...(listUrl ? { "@id": `${listUrl}#offers`, url: listUrl } : {}),
    ...(name ? { name } : {}),
    numberOfItems: offers.length,
    itemListElement: offers,
  };
}
