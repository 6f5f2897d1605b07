import type { SharedSliceModel } from "@prismicio/client";
import carousel from "./Carousel/model.json" with { type: "json" };
import contactForm from "./ContactForm/model.json" with { type: "json" };
import faq from "./Faq/model.json" with { type: "json" };
import hero from "./Hero/model.json" with { type: "json" };
import priceListTable from "./PriceListTable/model.json" with { type: "json" };
import textSection from "./TextSection/model.json" with { type: "json" };

/**
 * Slice id → its Slice Machine model, read as data (bundled with the code that renders, so render
 * threads and the slice simulator have them too). The content normaliser
 * (web/src/content/normalize.ts) fills absent fields from them, and a slice whose variation is not
 * here renders as nothing. One line per slice folder, like `components` in index.ts;
 * tests/unit/models.test.ts fails when a folder is missing from either.
 */
export const sliceModels: Readonly<Record<string, SharedSliceModel>> = Object.assign(
  // A null prototype: a slice type named like an Object method ("constructor") must not find one.
  Object.create(null),
  Object.fromEntries(
    [carousel, contactForm, faq, hero, priceListTable, textSection].map((model) => [
      model.id,
      model as unknown as SharedSliceModel,
    ]),
  ),
);
