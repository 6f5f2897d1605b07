import {
  asText,
  type CustomTypeModel,
  type CustomTypeModelField,
  type PrismicDocument,
  type RichTextField,
} from "@prismicio/client";
import { documentCache } from "./document-cache.ts";
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
 *   - a value of another kind (a field whose type was changed: a document published before holds
 *     the old kind) is converted where that is lossless and obvious — text where the model has rich
 *     text → one paragraph (or heading, when the field allows no paragraph), rich text where it has
 *     text → its plain text, a number where it has text → its digits, a number-like text for a
 *     Number, a boolean-like one (`true`, `yes`, `on`, `1`…) for a Boolean, an http(s) address for
 *     a Link — and anything else reads as the field's empty value (group items and slices of no
 *     known shape are left out). Never a throw: each one is recorded (`documentConversions`) and
 *     reported to editors as a content notice (content-notices.ts). An empty value of the old kind
 *     (`""`, `[]`, `{}`) reads as the new kind's empty value and is not reported: nothing is lost.
 * Slices whose type or variation no model describes are kept as they are (with `primary` an object
 * and `items` an array): the page renders them as nothing and reports them (content-notices.ts).
 *
 * Normalising once at the content boundary, rather than `?.` and `?? []` in every component, means
 * components read the typed fields as the types say, a new field needs no code here, and no
 * component can forget a case. The recording source applies it to every document a render reads,
 * once per document object (cached), never to the objects themselves. A field whose type changed is
 * converted or emptied rather than failing the render: visitors get the page, editors the notice.
 */

type Fields = Readonly<Record<string, CustomTypeModelField>>;
type Obj = Record<string, unknown>;

/**
 * A value of another kind than its field's model (a field whose type was changed), and what the
 * normaliser made of it: a content notice for editors (content-notices.ts).
 */
export interface Conversion {
  /** Where, from the document's data: `meta_title`, `slices[0].primary.heading`, `rows[2]`. */
  field: string;
  /** What the document holds, in an editor's words: `text`, `rich text`, `a list`, `a number`. */
  found: string;
  /** What the model has there now: `rich text`, `text`, `a number`. */
  expected: string;
  /** What the site does with it: `shown as one paragraph`, `shown as its plain text`, `shown empty`. */
  outcome: string;
}

/** Where conversions are collected while a document is normalised (none without a document). */
type Sink = Conversion[] | undefined;

const EMPTY_LINK = Object.freeze({ link_type: "Any" });
const NONE: readonly Conversion[] = Object.freeze([]);

const normalized = documentCache<PrismicDocument>("normalized");
const conversionsOf = documentCache<readonly Conversion[]>("conversions");
const fieldsByType = new Map<string, Fields>();

/** `doc` with its data normalised to its custom type's model; a type without a model is returned as it is. */
export function normalizeDocument<T extends PrismicDocument>(doc: T): T {
  const model = customTypeModels[doc.type];
  if (!model) return doc;
  let found = normalized.get(doc);
  if (!found) {
    const sink: Conversion[] = [];
    const data = objectOf(doc.data, "data", "fields (an object)", sink);
    found = { ...doc, data: normalizeFields(data, dataFieldsOf(model), "", sink) };
    const conversions = sink.length === 0 ? NONE : Object.freeze(sink);
    // The normalised document is its own normalisation, and keeps what was converted to make it:
    // the pages ask for the notices of the documents they were handed (editor-notes.ts).
    for (const key of [doc, found]) {
      normalized.set(key, found);
      conversionsOf.set(key, conversions);
    }
  }
  return found as T;
}

/** The values of `doc` (as the API sent it) that were of another kind than their model's, in field order. */
export function documentConversions(doc: PrismicDocument): readonly Conversion[] {
  normalizeDocument(doc);
  return conversionsOf.get(doc) ?? NONE;
}

/** A slice zone's value: slices normalised by their models; `path` names the zone in `sink`'s conversions. */
export function normalizeSlices(value: unknown, path = "slices", sink?: Sink): Obj[] {
  const slices: Obj[] = [];
  listOf(value, path, EXPECTED.Slices as string, sink).forEach((slice, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(slice) || typeof slice.slice_type !== "string") {
      if (slice !== undefined && slice !== null) convert(sink, at, slice, "a slice", "left out");
      return;
    }
    const { id, ...rest } = slice;
    const variation = variationOf({ slice_type: slice.slice_type, variation: slice.variation });
    // A slice no model describes renders as nothing (and is reported as such): only its shape is made safe.
    const own = variation ? sink : undefined;
    const primary = objectOf(slice.primary, `${at}.primary`, "the slice's fields (an object)", own);
    const items = itemsOf(slice.items, `${at}.items`, own);
    slices.push({
      ...rest,
      // Island ids derive from it (lib/island-id.ts); without one they fall back to type and index.
      ...(typeof id === "string" ? { id } : {}),
      primary: variation ? normalizeFields(primary, variation.primary ?? {}, `${at}.primary`, own) : primary,
      items: items.map(([item, i]) =>
        variation ? normalizeFields(item, variation.items ?? {}, `${at}.items[${i}]`, own) : item,
      ),
    });
  });
  return slices;
}

/** The model of a slice's variation; undefined when its type or variation is not (or no longer) modelled. */
export function variationOf(slice: { slice_type: string; variation?: unknown }) {
  return sliceModels[slice.slice_type]?.variations.find((v) => v.id === slice.variation);
}

function normalizeFields(source: Obj, fields: Fields, path: string, sink: Sink): Obj {
  const out: Obj = {};
  for (const [key, field] of entriesOf(fields)) {
    const item = source[key];
    // The common cases first, without building the field's path (a build normalises every document).
    if (field.type === "Text" && (typeof item === "string" || item === undefined || item === null))
      out[key] = item ?? null;
    else out[key] = normalizeField(item, field, path === "" ? key : `${path}.${key}`, sink);
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

/**
 * One field: absent or `null` → its empty value; of the right kind → as it is; of another kind →
 * converted where that is lossless and obvious, else its empty value, and recorded in `sink`.
 */
function normalizeField(value: unknown, field: CustomTypeModelField, path: string, sink: Sink): unknown {
  if (value === undefined || value === null) return emptyValue(field);
  const converted = (outcome: string, result: unknown): unknown => {
    convert(sink, path, value, EXPECTED[field.type] ?? "another kind of value", outcome);
    return result;
  };
  const empty = (): unknown => converted(emptyOutcome(field), emptyValue(field));
  switch (field.type) {
    case "Text": {
      if (typeof value === "string") return value;
      const text = plainText(value);
      if (text === undefined || text === "") return empty();
      return converted(typeof value === "number" ? "shown as text" : "shown as its plain text", text);
    }
    case "Color":
    case "Date":
    case "Timestamp":
      return typeof value === "string" ? value : empty();
    case "Number": {
      if (typeof value === "number" && Number.isFinite(value)) return value;
      const number = typeof value === "string" && NUMBER_LIKE.test(value) ? Number(value) : Number.NaN;
      return Number.isFinite(number) ? converted(`read as the number ${number}`, number) : empty();
    }
    case "Boolean": {
      if (typeof value === "boolean") return value;
      const flag = booleanOf(value);
      return flag === undefined ? empty() : converted(`read as ${flag}`, flag);
    }
    case "Select":
      // A value an earlier model offered is kept: the components treat unknown options themselves.
      return typeof value === "string" ? value : empty();
    case "StructuredText": {
      if (Array.isArray(value))
        // A list with no block in it (a group's items) is no text: nothing of it can be shown.
        return value.length > 0 && !value.some(isBlock) ? empty() : richText(value);
      const text = typeof value === "string" || typeof value === "number" ? String(value) : "";
      if (text === "") return empty();
      const type = blockTypeFor((field.config ?? {}) as Obj);
      const block = type.startsWith("heading") ? "heading" : "paragraph";
      return converted(`shown as one ${block}`, [{ type, text, spans: [] }]);
    }
    case "Image":
      return isObject(value) ? image(value) : empty();
    case "Link":
      // `{}` is an older spelling of an empty link.
      if (isObject(value)) return typeof value.link_type === "string" ? value : EMPTY_LINK;
      if (typeof value === "string" && isWebAddress(value.trim()))
        return converted("shown as a link to that address", { link_type: "Web", url: value.trim() });
      return empty();
    case "Embed":
    case "GeoPoint":
      return isObject(value) ? value : empty();
    case "Group": {
      const fields = ((field.config ?? {}) as Obj).fields as Fields | undefined;
      return itemsOf(value, path, sink).map(([item, i]) =>
        normalizeFields(item, fields ?? {}, `${path}[${i}]`, sink),
      );
    }
    case "Slices":
      return normalizeSlices(value, path, sink);
    default:
      // Table, IntegrationFields and legacy types: provider data the site does not read.
      return value;
  }
}

/** What Prismic sends for an empty field of this type (a Boolean or Select: the model's default). */
function emptyValue(field: CustomTypeModelField): unknown {
  const config = (field.config ?? {}) as Obj;
  switch (field.type) {
    case "Boolean":
      return config.default_value === true;
    case "Select":
      return typeof config.default_value === "string" ? config.default_value : null;
    case "StructuredText":
    case "Group":
    case "Slices":
      return [];
    case "Image":
    case "Embed":
    case "GeoPoint":
      return {};
    case "Link":
      return EMPTY_LINK;
    default:
      return null;
  }
}

function emptyOutcome(field: CustomTypeModelField): string {
  const config = (field.config ?? {}) as Obj;
  if (field.type === "Boolean") return `read as its default (${config.default_value === true})`;
  if (field.type === "Select" && typeof config.default_value === "string")
    return `read as its default (“${config.default_value}”)`;
  return "shown empty";
}

/** The model's field types in an editor's words (Slice Machine's names). */
const EXPECTED: Partial<Record<CustomTypeModelField["type"], string>> = {
  Text: "text",
  Color: "a colour",
  Date: "a date",
  Timestamp: "a timestamp",
  Number: "a number",
  Boolean: "a boolean",
  Select: "a select",
  StructuredText: "rich text",
  Image: "an image",
  Link: "a link",
  Embed: "an embed",
  GeoPoint: "a geopoint",
  Group: "a group (repeatable fields)",
  Slices: "a slice zone",
};

const NUMBER_LIKE = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?\s*$/i;
const TRUE_WORDS = new Set(["true", "yes", "on", "1"]);
const FALSE_WORDS = new Set(["false", "no", "off", "0"]);

/** A Boolean's reading of another kind: `1`/`0` and boolean-like words; undefined for anything else. */
function booleanOf(value: unknown): boolean | undefined {
  if (value === 1 || value === 0) return value === 1;
  if (typeof value !== "string") return undefined;
  const word = value.trim().toLowerCase();
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : undefined;
}

/** A text field's reading of another kind: a number's digits, rich text's plain text; undefined for anything else. */
function plainText(value: unknown): string | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : undefined;
  if (Array.isArray(value) && value.some(isBlock))
    return asText(richText(value) as unknown as RichTextField).trim();
  return undefined;
}

/** The block a text becomes in a rich text field: a paragraph where the model allows one, else its first heading. */
function blockTypeFor(config: Obj): string {
  const allowed = String(config.single ?? config.multi ?? "paragraph").split(",");
  if (allowed.includes("paragraph")) return "paragraph";
  return allowed.find((type) => /^heading[1-6]$|^preformatted$/.test(type)) ?? "paragraph";
}

const isWebAddress = (text: string): boolean => /^https?:\/\/\S+$/i.test(text) && URL.canParse(text);

/**
 * Blocks with a `type`; text blocks with their text and spans. A block of no known shape is left
 * out. A block already in shape is kept as it is, and so is the list when every block is (what
 * Prismic sends for a document of today's model: a build normalises every page, copying nothing).
 */
function richText(value: unknown[]): Obj[] {
  let blocks: Obj[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const block = value[i];
    const shaped = isBlock(block) ? blockInShape(block) : undefined;
    if (shaped === block) {
      blocks?.push(block as Obj);
      continue;
    }
    blocks ??= value.slice(0, i) as Obj[];
    if (shaped) blocks.push(shaped);
  }
  return blocks ?? (value as Obj[]);
}

/** `block` itself when it is in shape, a mended copy, or undefined (an image without its url: left out). */
function blockInShape(block: Obj): Obj | undefined {
  if (block.type === "image") {
    const shaped = image(block);
    return typeof shaped.url === "string" ? shaped : undefined;
  }
  if (block.type === "embed") return isObject(block.oembed) ? block : { ...block, oembed: {} };
  const spans = block.spans;
  if (typeof block.text === "string" && Array.isArray(spans) && spans.every(isSpan)) return block;
  return {
    ...block,
    text: typeof block.text === "string" ? block.text : "",
    spans: Array.isArray(spans) ? spans.filter(isSpan) : [],
  };
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
  if (typeof value.alt === "string" || value.alt === null) return value;
  return { ...value, alt: null };
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
const isBlock = (value: unknown): value is Obj => isObject(value) && typeof value.type === "string";
const isSize = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isSpan = (span: unknown): boolean =>
  isObject(span) && typeof span.type === "string" && isSize(span.start) && isSize(span.end);

/** Records that `value` at `field` was of another kind than `expected`, unless it was empty (nothing is lost). */
function convert(sink: Sink, field: string, value: unknown, expected: string, outcome: string): void {
  if (sink && !isEmpty(value)) sink.push({ field, found: kindOf(value), expected, outcome });
}

/** The empty values of every kind: `""`, `[]`, `{}`, an empty link. */
function isEmpty(value: unknown): boolean {
  if (value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  if (!isObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 0 || (keys.length === 1 && value.link_type === "Any");
}

/** An object; `{}` for absent or `null`, and for anything else (recorded). */
function objectOf(value: unknown, path: string, expected: string, sink: Sink): Obj {
  if (isObject(value)) return value;
  if (value !== undefined && value !== null) convert(sink, path, value, expected, "shown empty");
  return {};
}

/** A list; `[]` for absent or `null`, and for anything else (recorded). */
function listOf(value: unknown, path: string, expected: string, sink: Sink): unknown[] {
  if (Array.isArray(value)) return value;
  if (value !== undefined && value !== null) convert(sink, path, value, expected, "shown empty");
  return [];
}

/** A group's (or a slice's) items with their index; an item that is not an object is left out (recorded). */
function itemsOf(value: unknown, path: string, sink: Sink): [Obj, number][] {
  const items: [Obj, number][] = [];
  listOf(value, path, EXPECTED.Group as string, sink).forEach((item, i) => {
    if (isObject(item)) items.push([item, i]);
    else if (item !== undefined && item !== null)
      convert(sink, `${path}[${i}]`, item, "an item (a set of fields)", "left out");
  });
  return items;
}

/** A value's kind in an editor's words. */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return value.some(isBlock) ? "rich text" : "a list";
  if (typeof value === "string") return "text";
  if (typeof value === "number") return "a number";
  if (typeof value === "boolean") return "a boolean";
  if (isObject(value)) {
    if (typeof value.link_type === "string") return "a link";
    if (typeof value.url === "string" && isObject(value.dimensions)) return "an image";
    return "an object";
  }
  return `a ${typeof value}`;
}
