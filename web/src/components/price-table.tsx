import type { ReactNode } from "react";
import type { PriceListDocument } from "../content/index.ts";
import { formatPrice } from "../lib/format-price.ts";
import { priceListHeading } from "../lib/page-meta.ts";
import { SharedMarkup } from "./shared-markup.tsx";

type Row = PriceListDocument["data"]["rows"][number];

/** Rows grouped by category, groups in the order their first row appears (the editors' order). */
export function groupRows(rows: readonly Row[]): { category: string; rows: Row[] }[] {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    if (!row.name) continue;
    const category = row.category?.trim() ?? "";
    const group = groups.get(category);
    if (group) group.push(row);
    else groups.set(category, [row]);
  }
  return [...groups].map(([category, rows]) => ({ category, rows }));
}

/**
 * The rows of a price list as one accessible table: a row group per category, highlighted rows
 * marked. Its markup depends on the price list alone, so a build or a publish renders it once per
 * price list document and reuses it on every page that embeds the list (shared-markup.tsx; about
 * half of the generated pages embed one of 20 lists).
 */
export function PriceTable({ priceList }: { priceList: PriceListDocument }): ReactNode {
  const currency = priceList.data.currency ?? "USD";
  const groups = groupRows(priceList.data.rows);
  if (groups.length === 0) return null;
  return (
    <SharedMarkup as="div" className="price-card" source={priceList} cacheKey="price-table">
      {() => (
        <table className="price-table">
          <caption className="sr-only">{priceListHeading(priceList).text}</caption>
          <thead className="sr-only">
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Price</th>
            </tr>
          </thead>
          {groups.map((group) => (
            <tbody key={group.category}>
              {group.category ? (
                <tr className="price-table__group">
                  <th scope="rowgroup" colSpan={2}>
                    {group.category}
                  </th>
                </tr>
              ) : null}
              {group.rows.map((row, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: rendered once on the server and never reordered; the index keeps keys unique when editors repeat an entry
                <PriceRow key={`${i}-${row.name}`} row={row} currency={currency} />
              ))}
            </tbody>
          ))}
        </table>
      )}
    </SharedMarkup>
  );
}

function PriceRow({ row, currency }: { row: Row; currency: string }): ReactNode {
  const highlighted = row.highlighted === true;
  return (
    <tr
      className={highlighted ? "price-table__row is-highlighted" : "price-table__row"}
      data-highlighted={highlighted ? "true" : undefined}
    >
      <th scope="row" className="price-table__item">
        <span className="price-table__name">
          {row.name}
          {highlighted ? <span className="badge">Featured</span> : null}
        </span>
        {row.description ? <span className="price-table__description">{row.description}</span> : null}
        {row.note ? <span className="price-table__note">{row.note}</span> : null}
      </th>
      <td className="price-table__cost">
        <span className="price-table__price">
          {typeof row.price === "number" ? formatPrice(row.price, currency) : "On request"}
        </span>
        {row.unit ? <span className="price-table__unit">{row.unit}</span> : null}
      </td>
    </tr>
  );
}

/** The lowest price of a list, formatted: "from $45" on the index cards. */
export function lowestPrice(priceList: PriceListDocument): string | undefined {
  let lowest: number | undefined;
  for (const row of priceList.data.rows) {
    if (typeof row.price === "number" && (lowest === undefined || row.price < lowest)) lowest = row.price;
  }
  return lowest === undefined ? undefined : formatPrice(lowest, priceList.data.currency ?? "USD");
}
