import type { CustomTypeModel } from "@prismicio/client";
import page from "#customtypes/page/index.json" with { type: "json" };
import priceList from "#customtypes/price_list/index.json" with { type: "json" };
import redirect from "#customtypes/redirect/index.json" with { type: "json" };
import settings from "#customtypes/settings/index.json" with { type: "json" };

export { sliceModels } from "../../slices/models.ts";

/**
 * Custom type id → its Slice Machine model (`customtypes/<id>/index.json`), read as data: the
 * content normaliser (normalize.ts) fills a document's absent fields from it. These JSON files are
 * the one thing outside web/ that web/ imports (.dependency-cruiser.cjs): the models are the
 * contract between Prismic and the site. tests/unit/models.test.ts fails when a custom type folder
 * is missing here.
 */
export const customTypeModels: Readonly<Record<string, CustomTypeModel>> = Object.assign(
  Object.create(null),
  Object.fromEntries(
    [page, priceList, redirect, settings].map((model) => [model.id, model as unknown as CustomTypeModel]),
  ),
);
