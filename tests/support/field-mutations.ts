import type { CustomTypeModelField, PrismicDocument } from "@prismicio/client";
import type { Models } from "#local-prismic/models.ts";

/**
 * Documents as an earlier model version left them: every field of every model as a path, and
 * copies of a repository with fields taken away (or `null`, or emptied) along those paths. What a
 * repository looks like after fields are added in Slice Machine and documents are not published
 * again (the model-evolution property test, tests/integration/model-evolution.test.ts).
 */

type Obj = Record<string, unknown>;
type Fields = Record<string, CustomTypeModelField>;

/** One field of one model, wherever documents hold it. */
export interface FieldPath {
  /** The custom type (`page`) or shared slice (`hero`) whose model has the field. */
  owner: string;
  /** Where the field lives: a document's data, a group's items, a slice's primary or items. */
  where: "data" | "group" | "primary" | "items";
  /** The group field holding the items (`where: "group"`). */
  group?: string;
  field: string;
  type: CustomTypeModelField["type"];
}

/**
 * How a field is taken away: gone (an older model), `null`, or its empty value as Prismic sends it;
 * or `retyped`: holding a value of another kind, as a document published before the field's type
 * was changed does (`retypedValue`).
 */
export type Mutation = "absent" | "null" | "empty" | "retyped";

export const describePath = (p: FieldPath): string =>
  `${p.owner}.${p.where === "data" ? "" : p.where === "group" ? `${p.group}[].` : `${p.where}.`}${p.field}`;

/** Every field of every custom type (tabs flattened, the uid aside) and of every slice variation. */
export function fieldPaths(models: Models): FieldPath[] {
  const paths: FieldPath[] = [];
  for (const model of models.customTypes) {
    const fields: Fields = Object.assign({}, ...Object.values(model.json));
    for (const [field, def] of Object.entries(fields)) {
      if (def.type === "UID") continue;
      paths.push({ owner: model.id, where: "data", field, type: def.type });
      if (def.type === "Group") {
        const items = (def.config?.fields ?? {}) as Fields;
        for (const [inner, innerDef] of Object.entries(items))
          paths.push({ owner: model.id, where: "group", group: field, field: inner, type: innerDef.type });
      }
    }
  }
  for (const slice of models.slices) {
    for (const variation of slice.variations) {
      for (const [where, fields] of [
        ["primary", variation.primary ?? {}],
        ["items", variation.items ?? {}],
      ] as const) {
        for (const [field, def] of Object.entries(fields as Fields))
          paths.push({ owner: slice.id, where, field, type: def.type });
      }
    }
  }
  return paths;
}

/**
 * `docs` with `path` taken away by `mutation` in every document (and every group item or slice)
 * holding it. Only changed documents are copied; the others are shared.
 */
export function mutate(
  docs: readonly PrismicDocument[],
  changes: [FieldPath, Mutation][],
): PrismicDocument[] {
  return docs.map((doc) => {
    let copy: PrismicDocument | undefined;
    for (const [path, mutation] of changes) {
      if (holders(copy ?? doc, path).length === 0) continue;
      copy ??= structuredClone(doc);
      for (const target of holders(copy, path)) apply(target, path, mutation);
    }
    return copy ?? doc;
  });
}

/** Every slice of `sliceType` in `docs` changed by `change` (its `primary`, `items`, variation…). */
export function mutateSlices(
  docs: readonly PrismicDocument[],
  sliceType: string,
  change: (slice: Obj) => void,
): PrismicDocument[] {
  return docs.map((doc) => {
    const slices = doc.data.slices as Obj[] | undefined;
    if (!slices?.some((slice) => slice.slice_type === sliceType)) return doc;
    const copy = structuredClone(doc);
    for (const slice of copy.data.slices as Obj[]) if (slice.slice_type === sliceType) change(slice);
    return copy;
  });
}

/** The objects holding `path`'s field in `doc`. */
function holders(doc: PrismicDocument, path: FieldPath): Obj[] {
  const data = doc.data as Obj;
  if (path.where === "data") return doc.type === path.owner ? [data] : [];
  if (path.where === "group") {
    const items = doc.type === path.owner ? data[path.group as string] : undefined;
    return Array.isArray(items) ? (items as Obj[]) : [];
  }
  const slices = Array.isArray(data.slices) ? (data.slices as Obj[]) : [];
  return slices
    .filter((slice) => slice.slice_type === path.owner)
    .flatMap((slice) => {
      const held = slice[path.where];
      if (path.where === "primary") return held && typeof held === "object" ? [held as Obj] : [];
      return Array.isArray(held) ? (held as Obj[]) : [];
    });
}

function apply(holder: Obj, path: FieldPath, mutation: Mutation): void {
  if (mutation === "absent") delete holder[path.field];
  else if (mutation === "null") holder[path.field] = null;
  else if (mutation === "retyped") holder[path.field] = retypedValue(path.type);
  else holder[path.field] = emptyValue(path.type);
}

/**
 * A value of the kind the field most plausibly had before its type was changed in Slice Machine:
 * Key Text for rich text and the structured fields, rich text for Key Text and the other text-like
 * fields, number-like and boolean-like Key Text for a Number and a Boolean.
 */
export function retypedValue(type: FieldPath["type"]): unknown {
  switch (type) {
    case "Text":
    case "Select":
    case "Color":
    case "Date":
    case "Timestamp":
      return [{ type: "paragraph", text: "Rich text from an earlier model", spans: [] }];
    case "Number":
      return "42";
    case "Boolean":
      return "yes";
    case "Image":
    case "Link":
    case "Embed":
    case "GeoPoint":
      return "https://www.example.com/from-an-earlier-model";
    default:
      // Rich text, a group, a slice zone: Key Text.
      return "Text from an earlier model";
  }
}

/** An empty field as the Document API returns it. */
function emptyValue(type: FieldPath["type"]): unknown {
  switch (type) {
    case "StructuredText":
    case "Group":
    case "Slices":
      return [];
    case "Image":
    case "Embed":
    case "GeoPoint":
      return {};
    case "Link":
      return { link_type: "Any" };
    case "Boolean":
      return false;
    case "Text":
      return "";
    default:
      return null;
  }
}
