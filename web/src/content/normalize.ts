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
 *   - absent or `null` → the field type's empty value, as Prismic sends an empty field: `null`, `[]`,
 *     `{}`, `{link_type: "Any"}`; a Boolean or Select takes the model's `default_value` (what the
 *     editor shows when the document is opened);
 *   - groups' items and slices' `primary`/`items` the same, one level down, by the slice's model;
 *   - fields the model no longer has are left out: nothing can render them;
 *   - a value of another kind (text where the model has a list, a field whose type was changed) is
 *     not guessed at: ContentShapeError names the field, the render fails, the route keeps its last
 *     good page and is listed by `pressroom status` until the document is published again.
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

/** A field whose value is of another kind than its model's: the document does not fit the model. */
export class ContentShapeError extends Error {
  override readonly name = "ContentShapeError";
  constructor(
    readonly path: string,
    expected: string,
    value: unknown,
  ) {
    super(
      `${path} holds ${kindOf(value)} where the model has ${expected}: the document does not fit its model (was the field's type changed?); publish it again`,
    );
  }
}

const EMPTY_LINK = Object.freeze({ link_type: "Any" });

const normalized = new WeakMap<object, PrismicDocument>();
const fieldsByType = new Map<string, Fields>();

/** `doc` with its data normalised to its custom type's model; a type without a model is returned as it is. */
export function normalizeDocument<T extends PrismicDocument>(doc: T): T {
  const model = customTypeModels[doc.type];
  if (!model) return doc;
  let found = normalized.get(doc);
  if (!found) {
    found = { ...doc, data: normalizeFields(doc.data, dataFieldsOf(model), "data") };
    normalized.set(doc, found);
  }
  return found as T;
}

/** A slice zone's value: slices normalised by their models; `path` names it in a ContentShapeError. */
export function normalizeSlices(value: unknown, path = "slices"): Obj[] {
  return listOf(value, path, "a slice zone (a list of slices)").map((slice, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(slice) || typeof slice.slice_type !== "string")
      throw new ContentShapeError(at, "a slice (an object with a slice_type)", slice);
    const { id, ...rest } = slice;
    const variation = variationOf({ slice_type: slice.slice_type, variation: slice.variation });
    const primary = variation?.primary ?? {};
    const items = variation?.items ?? {};
    return {
      ...rest,
      // Island ids derive from it (lib/island-id.ts); without one they fall back to type and index.
      ...(typeof id === "string" ? { id } : {}),
      // A slice no model describes renders as nothing: only its shape is made safe.
      primary: variation
        ? normalizeFields(slice.primary, primary, `${at}.primary`)
        : objectOf(slice.primary, `${at}.primary`),
      items: listOf(slice.items, `${at}.items`, "a list of items").map((item, i) =>
        variation ? normalizeFields(item, items, `${at}.items[${i}]`) : item,
      ),
    };
  });
}

/** The model of a slice's variation; undefined when its type or variation is not (or no longer) modelled. */
export function variationOf(slice: { slice_type: string; variation?: unknown }) {
  return sliceModels[slice.slice_type]?.variations.find((v) => v.id === slice.variation);
}

function normalizeFields(value: unknown, fields: Fields, path: string): Obj {
  const source = objectOf(value, path);
  const out: Obj = {};
  for (const [key, field] of entriesOf(fields)) {
    const item = source[key];
    // The common cases first, without building the field's path (a build normalises every document).
    if (field.type === "Text" && (typeof item === "string" || item === undefined || item === null))
      out[key] = item ?? null;
    else out[key] = normalizeField(item, field, `${path}.${key}`);
  }
  return out;
}

/** A model's fields as entries, listed once per model object. */
const entries = new WeakMap<Fields, [string, CustomTypeModelField][]>();
function entriesOf(fields: Fields): [string, CustomTypeModelField][] {
  let found = entries.get(fields);
  if (!found) {
    found = Object.entries(fields);
    entries.set(fields, found);
  }
  return found;
}

/** One field: absent or `null` → its empty value; of the right kind → as it is; else a ContentShapeError. */
function normalizeField(value: unknown, field: CustomTypeModelField, path: string): unknown {
  const config = (field.config ?? {}) as Obj;
  const absent = value === undefined || value === null;
  const wrong = (expected: string): never => {
    throw new ContentShapeError(path, expected, value);
  };
  switch (field.type) {
    case "Text":
    case "Color":
    case "Date":
    case "Timestamp":
      return absent ? null : typeof value === "string" ? value : wrong("text");
    case "Number":
      return absent ? null : typeof value === "number" && Number.isFinite(value) ? value : wrong("a number");
    case "Boolean":
      return absent
        ? config.default_value === true
        : typeof value === "boolean"
          ? value
          : wrong("true or false");
    case "Select":
      // A value an earlier model offered is kept: the components treat unknown options themselves.
      if (absent) return typeof config.default_value === "string" ? config.default_value : null;
      return typeof value === "string" ? value : wrong("one of its options (text)");
    case "StructuredText":
      return richText(listOf(value, path, "rich text (a list of blocks)"));
    case "Image":
      return image(objectOf(value, path));
    case "Link":
      if (absent) return EMPTY_LINK;
      // `{}` is an older spelling of an empty link.
      return typeof objectOf(value, path).link_type === "string" ? value : EMPTY_LINK;
    case "Embed":
    case "GeoPoint":
      return objectOf(value, path);
    case "Group": {
      const fields = (config.fields ?? {}) as Fields;
      return listOf(value, path, "a group (a list of items)").map((item, i) =>
        normalizeFields(item, fields, `${path}[${i}]`),
      );
    }
    case "Slices":
      return normalizeSlices(value, path);
    default:
      // Table, IntegrationFields and legacy types: provider data the site does not read.
      return value ?? null;
  }
}

/** Blocks with a `type`; text blocks with their text and spans. A block of no known shape is left out. */
function richText(value: unknown[]): Obj[] {
  const blocks: Obj[] = [];
  for (const block of value) {
    if (!isObject(block) || typeof block.type !== "string") continue;
    if (block.type === "image") blocks.push(image(block));
    else if (block.type === "embed")
      blocks.push({ ...block, oembed: isObject(block.oembed) ? block.oembed : {} });
    else
      blocks.push({
        ...block,
        text: typeof block.text === "string" ? block.text : "",
        spans: Array.isArray(block.spans) ? block.spans.filter(isSpan) : [],
      });
  }
  return blocks.filter((block) => block.type !== "image" || typeof block.url === "string");
}

/**
 * A filled image has a url and its dimensions (Prismic always sends both); anything else is empty
 * (`{}`, Prismic's empty image). Rich text image blocks go through here too.
 */
function image(value: Obj): Obj {
  if (typeof value.url !== "string" || value.url === "")
    return value.type === "image" ? { type: "image" } : {};
  const dimensions = value.dimensions;
  if (!isObject(dimensions) || !isSize(dimensions.width) || !isSize(dimensions.height))
    return value.type === "image" ? { type: "image" } : {};
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
const isSize = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isSpan = (span: unknown): boolean =>
  isObject(span) && typeof span.type === "string" && isSize(span.start) && isSize(span.end);

/** An object, `{}` for absent or `null`; anything else does not fit. */
function objectOf(value: unknown, path: string): Obj {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new ContentShapeError(path, "an object", value);
  return value;
}

/** A list, `[]` for absent or `null`; anything else does not fit. */
function listOf(value: unknown, path: string, expected: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ContentShapeError(path, expected, value);
  return value;
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return "text";
  return `a ${typeof value}`;
}
