import type { SliceComponentType } from "@prismicio/react";
import type { SliceContext } from "../src/slice-context.ts";
import Carousel from "./Carousel/index.tsx";
import ContactForm from "./ContactForm/index.tsx";
import Faq from "./Faq/index.tsx";
import Hero from "./Hero/index.tsx";
import { knownVariationsOnly } from "./missing-slice.tsx";
import PriceListTable from "./PriceListTable/index.tsx";
import TextSection from "./TextSection/index.tsx";

export { MissingSlice } from "./missing-slice.tsx";
export { sliceModels } from "./models.ts";

/**
 * Slice id → component, as Slice Machine lays it out. Imported statically:
 * the server renders every slice, and the browser only loads islands. Each
 * renders the variations its model (models.ts) has; another variation renders
 * as MissingSlice (nothing in production).
 */
// A null prototype: a slice type named like an Object method ("constructor") must not find one.
// biome-ignore lint/suspicious/noExplicitAny: each component takes its own slice type; SliceZone picks by slice_type
export const components: Record<string, SliceComponentType<any, SliceContext>> = Object.assign(
  Object.create(null),
  Object.fromEntries(
    Object.entries({
      hero: Hero,
      text_section: TextSection,
      carousel: Carousel,
      faq: Faq,
      price_list_table: PriceListTable,
      contact_form: ContactForm,
    }).map(([type, component]) => [type, knownVariationsOnly(component)]),
  ),
);
