import type { CustomTypeModel, CustomTypeModelField, PrismicDocument } from "@prismicio/client";
import { customTypeModels, sliceModels } from "./models.ts";

/**
 * The content boundary: every document a render reads comes out of here with exactly the fields
 * its model has now, each in the shape the generated types promise (web/prismicio-types.d.ts).
 *
 * Prismic does not rewrite documents when a model changes: a field added in Slice Machine is absent
 * from every document until an editor publishes it again (prismicio/prismic-gatsby#453; Prismic's
 * own `emptyDocument.json` fixture is a page with `data: {}`), and a field removed stays in the
 * data. So, per field of the model:
 *   - absent, `null` or of another kind (a Text turned Group) → the field type's empty value, as
 *     Prismic sends an empty field: `null`, `[]`, `{}`, `{link_type: "Any"}`; a Boolean or Select
 *     takes the model's `default_value` (what the editor shows when the document is opened);
 *   - groups' items and slices' `primary`/`items` the same, one level down, by the slice's model;
 *   - fields the model no longer has are left out: nothing can render them.
 * Slices whose type or variation no model describes are kept as they are (with `primary` an object
 * and `items` an array): the page renders them as nothing and reports them (content-notices.ts).
 *
 * Decision (issue 20): one normalisation at the content boundary rather than `?.` and `?? []` in
 * every component. Components read the typed fields as the types say; a new field in Slice Machine
 * needs no code here; and no component can forget a case. The recording source applies it to every
 * document a render reads, once per document object (cached), never to the objects themselves.
 */

type Fields = Readonly<Record<string, CustomTypeModelField>>;
type Obj = Record<string, unknown>;

const EMPTY_LINK = Object.freeze({ link_type: "Any" });

const normalized = new WeakMap<object, PrismicDocument>();
const fieldsByType = new Map<string, Fields>();

/** `doc` with its data normalised to its custom type's model; a type without a model is returned as it is. */
export function normalizeDocument<T extends PrismicDocument>(doc: T): T {
  const model = customTypeModels[doc.type];
  if (!model) return doc;
  let found = normalized.get(doc);
  if (!found) {
    found = { ...doc, data: normalizeFields(doc.data, dataFieldsOf(model)) };
    normalized.set(doc, found);
  }
  return found as T;
}

/** A slice zone's value: slices normalised by their models, anything that is no slice left out. */
export function normalizeSlices(value: unknown): Obj[] {
  if (!Array.isArray(value)) return [];
  const slices: Obj[] = [];
  for (const slice of value) {
    if (!isObject(slice) || typeof slice.slice_type !== "string") continue;
    const { id, ...rest } = slice;
    const variation = variationOf({ slice_type: slice.slice_type, variation: slice.variation });
    slices.push({
      ...rest,
      // Island ids derive from it (lib/island-id.ts); without one they fall back to type and index.
      ...(typeof id === "string" ? { id } : {}),
      primary: variation ? normalizeFields(slice.primary, variation.primary ?? {}) : objectOr(slice.primary),
      items: variation
        ? arrayOr(slice.items).map((item) => normalizeFields(item, variation.items ?? {}))
        : arrayOr(slice.items),
    });
  }
  return slices;
}

/** The model of a slice's variation; undefined when its type or variation is not (or no longer) modelled. */
export function variationOf(slice: { slice_type: string; variation?: unknown }) {
  return sliceModels[slice.slice_type]?.variations.find((v) => v.id === slice.variation);
}

function normalizeFields(value: unknown, fields: Fields): Obj {
  const source = objectOr(value);
  const out: Obj = {};
  for (const [key, field] of Object.entries(fields)) out[key] = normalizeField(source[key], field);
  return out;
}

function normalizeField(value: unknown, field: CustomTypeModelField): unknown {
  const config = (field.config ?? {}) as Obj;
  switch (field.type) {
    case "Text":
    case "Color":
    case "Date":
    case "Timestamp":
      return typeof value === "string" ? value : null;
    case "Number":
      return typeof value === "number" && Number.isFinite(value) ? value : null;
    case "Boolean":
      return typeof value === "boolean" ? value : config.default_value === true;
    case "Select":
      // A value an earlier model offered is kept: the components treat unknown options themselves.
      return typeof value === "string"
        ? value
        : typeof config.default_value === "string"
          ? config.default_value
          : null;
    case "StructuredText":
      return richText(value);
    case "Image":
      return image(value);
    case "Link":
      return isObject(value) && typeof value.link_type === "string" ? value : EMPTY_LINK;
    case "Embed":
    case "GeoPoint":
      return objectOr(value);
    case "Group": {
      const fields = (config.fields ?? {}) as Fields;
      return arrayOr(value).map((item) => normalizeFields(item, fields));
    }
    case "Slices":
      return normalizeSlices(value);
    default:
      // Table, IntegrationFields and legacy types: provider data the site does not read.
      return value ?? null;
  }
}

/** Blocks with a `type`; text blocks with their text and spans (an editor's emptied field is `[]`). */
function richText(value: unknown): Obj[] {
  const blocks: Obj[] = [];
  for (const block of arrayOr(value)) {
    if (!isObject(block) || typeof block.type !== "string") continue;
    if (block.type === "image" || block.type === "embed") blocks.push(block);
    else
      blocks.push({
        ...block,
        text: typeof block.text === "string" ? block.text : "",
        spans: Array.isArray(block.spans) ? block.spans.filter(isObject) : [],
      });
  }
  return blocks;
}

/** A filled image has a url and its dimensions (Prismic always sends both); anything else is empty (`{}`). */
function image(value: unknown): Obj {
  if (!isObject(value) || typeof value.url !== "string" || value.url === "") return {};
  const dimensions = value.dimensions;
  if (!isObject(dimensions) || !isSize(dimensions.width) || !isSize(dimensions.height)) return {};
  return { ...value, alt: typeof value.alt === "string" ? value.alt : null };
}

function dataFieldsOf(model: CustomTypeModel): Fields {
  let fields = fieldsByType.get(model.id);
  if (!fields) {
    // Tabs are the editor's layout only; the uid is the document's, not its data's.
    const all: Record<string, CustomTypeModelField> = Object.assign({}, ...Object.values(model.json));
    fields = Object.fromEntries(Object.entries(all).filter(([, field]) => field.type !== "UID"));
    fieldsByType.set(model.id, fields);
  }
  return fields;
}

const isObject = (value: unknown): value is Obj =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const objectOr = (value: unknown): Obj => (isObject(value) ? value : {});
const arrayOr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const isSize = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
