import { isFilled } from "@prismicio/client";
import {
  type ContentSource,
  type PageDocument,
  type PriceListDocument,
  variationOf,
} from "./content/index.ts";
import type { RenderMode } from "./render-context.ts";
import type { SliceContext } from "./slice-context.ts";

type Slices = PageDocument["data"]["slices"];

/**
 * Everything slices need beyond their own data, fetched before rendering
 * (renders are synchronous): the price lists embedded by price_list_table
 * slices, by id through the source (so the page depends on them and shows
 * their current rows), and which image is the page's main one.
 */
export async function loadSliceContext(
  slices: Slices,
  source: ContentSource,
  mode: RenderMode,
): Promise<SliceContext> {
  const ids = new Set<string>();
  let priorityIndex = -1;
  slices.forEach((slice, index) => {
    // Slices of a variation no model has render as nothing: nothing to load for them.
    if (!variationOf(slice)) return;
    if (slice.slice_type === "price_list_table" && isFilled.contentRelationship(slice.primary.price_list)) {
      ids.add(slice.primary.price_list.id);
    }
    if (priorityIndex === -1 && slice.slice_type === "hero" && isFilled.image(slice.primary.image)) {
      priorityIndex = index;
    }
  });
  const priceLists = new Map<string, PriceListDocument>();
  await Promise.all(
    [...ids].map(async (id) => {
      const doc = await source.getByID(id);
      if (doc?.type === "price_list") priceLists.set(id, doc);
    }),
  );
  return { mode, priceLists, priorityIndex };
}
