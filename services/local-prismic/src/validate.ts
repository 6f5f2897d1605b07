import type { CustomTypeModelField, SharedSliceModel } from "@prismicio/client";
// The website's own rule (the uid grammar and its reserved names), so that the edit API refuses
// exactly the uids the build would refuse: the one thing of the engine this service imports.
import { website } from "#website";
import type { Models } from "./models.ts";
import {
  add,
  type Ctx,
  checkImage,
  checkLink,
  checkRichText,
  describe,
  isNumber,
  isObject,
  type Obj,
  type ValidationIssue,
} from "./validate-values.ts";

export type { ValidationIssue } from "./validate-values.ts";
export type RepositoryIssue = ValidationIssue & { document: string };

/**
 * Formats the site relies on that a Prismic model cannot express (Text fields are free text to Prismic).
 * Keyed by `<custom type or slice id>[.<group> | .items].<field>`; empty values are allowed.
 */
const FORMAT_RULES: Record<string, [RegExp, string]> = {
  "settings.contact_phone": [/^\+[1-9]\d{6,14}$/, "must be an E.164 phone number like +14155550123"],
  "settings.contact_email": [/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "must be an email address"],
  "contact_form.default_country": [/^[A-Z]{2}$/, "must be an ISO 3166 alpha-2 country code like US"],
};

type Fields = Record<string, CustomTypeModelField>;

/** Checks one document, as the Document API returns it, against the models. Empty result = valid. */
export function validateDocument(doc: unknown, models: Models): ValidationIssue[] {
  const ctx: Ctx = { models, issues: [] };
  if (!isObject(doc)) return [{ path: "", message: `a document must be an object, got ${describe(doc)}` }];
  if (typeof doc.id !== "string" || doc.id === "") add(ctx, "id", "must be a non-empty string");
  if (typeof doc.lang !== "string" || doc.lang === "") add(ctx, "lang", "must be a language code like en-us");
  if (!Array.isArray(doc.tags) || !doc.tags.every((t) => typeof t === "string")) {
    add(ctx, "tags", "must be an array of strings");
  }
  const model = models.customTypes.find((ct) => ct.id === doc.type);
  if (!model) {
    const known = models.customTypes.map((ct) => ct.id).join(", ");
    add(ctx, "type", `unknown custom type ${JSON.stringify(doc.type)} (known: ${known})`);
    return ctx.issues;
  }
  const all: Fields = Object.assign({}, ...Object.values(model.json));
  const data = Object.fromEntries(Object.entries(all).filter(([, field]) => field.type !== "UID")) as Fields;
  if (Object.keys(data).length < Object.keys(all).length) {
    if (typeof doc.uid !== "string") add(ctx, "uid", `"${model.id}" documents need a uid`);
    else {
      const problem = website.routes.uidProblem(model.id, doc.uid);
      if (problem) add(ctx, "uid", problem);
    }
  } else if (doc.uid !== null && doc.uid !== undefined) {
    add(ctx, "uid", `"${model.id}" has no UID field, so uid must be null`);
  }
  if (!isObject(doc.data)) add(ctx, "data", `must be an object, got ${describe(doc.data)}`);
  else checkFieldMap(doc.data, data, "data", model.id, ctx);
  return ctx.issues;
}

/** Checks one slice value (as in a slice zone or a mocks.json) against the shared slice models. */
export function validateSlice(slice: unknown, models: Models, path = "slice"): ValidationIssue[] {
  const ctx: Ctx = { models, issues: [] };
  const type = isObject(slice) ? slice.slice_type : undefined;
  const model = models.slices.find((s) => s.id === type);
  if (!model) add(ctx, `${path}.slice_type`, `unknown slice ${JSON.stringify(type)}`);
  else checkSlice(slice as Obj, model, path, ctx);
  return ctx.issues;
}

/**
 * A singleton custom type (repeatable: false) may have one document only. `existing` is read only
 * for a singleton type (the store hands the documents of the type, read when iterated).
 */
export function checkSingleton(
  doc: { id: string; type: string },
  existing: Iterable<{ id: string; type: string }>,
  models: Models,
): ValidationIssue[] {
  const model = models.customTypes.find((ct) => ct.id === doc.type);
  if (!model || model.repeatable) return [];
  for (const other of existing) {
    if (other.type === doc.type && other.id !== doc.id)
      return [
        { path: "type", message: `"${doc.type}" is a singleton and document ${other.id} already exists` },
      ];
  }
  return [];
}

/** Every document, plus what only shows across documents: duplicate ids, singletons, duplicate uids. */
export function validateRepository(docs: readonly unknown[], models: Models): RepositoryIssue[] {
  const check = repositoryCheck(models);
  for (const doc of docs) check.add(doc);
  return check.issues;
}

/**
 * validateRepository one document at a time, keeping only what the checks across documents need
 * (ids, types, uids): a repository of 100,000 documents is seeded without holding them all.
 */
export function repositoryCheck(models: Models): { add(doc: unknown): void; issues: RepositoryIssue[] } {
  const issues: RepositoryIssue[] = [];
  const seenIds = new Set<string>();
  const seenUids = new Map<string, string>();
  const envelopes: { id: string; type: string }[] = [];
  let index = 0;
  const add = (doc: unknown) => {
    const env = (isObject(doc) ? doc : {}) as { id?: unknown; type?: unknown; uid?: unknown; lang?: unknown };
    const id = typeof env.id === "string" ? env.id : `#${index}`;
    index++;
    const report = (found: ValidationIssue[]) => {
      for (const issue of found) issues.push({ document: id, ...issue });
    };
    report(validateDocument(doc, models));
    if (seenIds.has(id)) report([{ path: "id", message: "duplicate document id" }]);
    seenIds.add(id);
    if (typeof env.type !== "string") return;
    report(checkSingleton({ id, type: env.type }, envelopes, models));
    // Only singletons are looked for among the envelopes: the others need not be kept.
    const model = models.customTypes.find((ct) => ct.id === env.type);
    if (model && !model.repeatable) envelopes.push({ id, type: env.type });
    if (typeof env.uid !== "string") return;
    // Uids are unique per type and language: they decide the route.
    const key = `${env.type}/${String(env.lang)}/${env.uid}`;
    const first = seenUids.get(key);
    if (first === undefined) seenUids.set(key, id);
    else if (first !== id) report([{ path: "uid", message: `uid "${env.uid}" is already used by ${first}` }]);
  };
  return { add, issues };
}

function checkFieldMap(value: Obj, fields: Fields, path: string, owner: string, ctx: Ctx): void {
  for (const key of Object.keys(value)) {
    if (!(key in fields)) add(ctx, `${path}.${key}`, `unknown field "${key}" (not in the model of ${owner})`);
  }
  for (const [key, field] of Object.entries(fields)) {
    // An absent field is valid: Prismic keeps a document as it was published, so a field added to
    // the model since is absent until the document is published again (prismicio/prismic-gatsby#453).
    // It is stored and served absent, never back-filled; the renderer reads it as empty.
    if (key in value) checkField(value[key], field, `${path}.${key}`, `${owner}.${key}`, ctx);
  }
}

function checkField(value: unknown, field: CustomTypeModelField, path: string, key: string, ctx: Ctx): void {
  const config = (field.config ?? {}) as Obj;
  const expect = (ok: boolean, what: string) => {
    if (!ok) add(ctx, path, `must be ${what}, got ${describe(value)}`);
  };
  switch (field.type) {
    case "Text": {
      expect(value === null || typeof value === "string", "a string or null");
      const rule = FORMAT_RULES[key];
      if (rule && typeof value === "string" && value !== "" && !rule[0].test(value)) add(ctx, path, rule[1]);
      break;
    }
    case "Number":
      expect(value === null || isNumber(value), "a number or null");
      if (isNumber(value) && isNumber(config.min) && value < config.min)
        add(ctx, path, `must be ≥ ${config.min}`);
      if (isNumber(value) && isNumber(config.max) && value > config.max)
        add(ctx, path, `must be ≤ ${config.max}`);
      break;
    case "Boolean":
      expect(typeof value === "boolean", "true or false");
      break;
    case "Select": {
      const options = (config.options ?? []) as unknown[];
      expect(value === null || options.includes(value), `null or one of ${options.join(", ")}`);
      break;
    }
    case "Color":
      expect(
        value === null || (typeof value === "string" && /^#[0-9a-f]{6}$/i.test(value)),
        "#rrggbb or null",
      );
      break;
    case "Date":
      expect(
        value === null || (typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)),
        "YYYY-MM-DD",
      );
      break;
    case "Timestamp":
      expect(
        value === null || (typeof value === "string" && !Number.isNaN(Date.parse(value))),
        "a timestamp",
      );
      break;
    case "GeoPoint":
      expect(
        isObject(value) &&
          (Object.keys(value).length === 0 || (isNumber(value.latitude) && isNumber(value.longitude))),
        "{latitude, longitude} or {}",
      );
      break;
    case "Embed":
      expect(isObject(value), "an oEmbed object or {}");
      if (isObject(value) && Object.keys(value).length > 0 && typeof value.embed_url !== "string") {
        add(ctx, path, "needs an embed_url");
      }
      break;
    case "Image":
      checkImage(value, path, ctx);
      break;
    case "StructuredText":
      checkRichText(value, config, path, ctx);
      break;
    case "Link":
      checkLink(value, config, path, ctx);
      break;
    case "Group":
      expect(Array.isArray(value), "an array of items");
      if (Array.isArray(value)) checkItems(value, (config.fields ?? {}) as Fields, path, key, ctx);
      break;
    case "Slices":
      checkSliceZone(value, config, path, ctx);
      break;
    case "UID":
      add(ctx, path, "a UID field belongs in the document's uid, not in data");
      break;
    default:
      // Table, IntegrationFields and legacy types carry provider data the site does not read.
      break;
  }
}

function checkItems(items: unknown[], fields: Fields, path: string, owner: string, ctx: Ctx): void {
  for (const [i, item] of items.entries()) {
    if (!isObject(item)) add(ctx, `${path}[${i}]`, `must be an object, got ${describe(item)}`);
    else checkFieldMap(item, fields, `${path}[${i}]`, owner, ctx);
  }
}

function checkSliceZone(value: unknown, config: Obj, path: string, ctx: Ctx): void {
  if (!Array.isArray(value)) {
    add(ctx, path, `must be an array of slices, got ${describe(value)}`);
    return;
  }
  const choices = (config.choices ?? {}) as Record<string, { type: string }>;
  for (const [i, slice] of value.entries()) {
    const p = `${path}[${i}]`;
    const type = isObject(slice) ? String(slice.slice_type) : "";
    const model = ctx.models.slices.find((s) => s.id === type);
    if (!isObject(slice)) add(ctx, p, `must be a slice object, got ${describe(slice)}`);
    else if (!(type in choices) || !model) {
      add(ctx, `${p}.slice_type`, `unknown slice "${type}" (allowed: ${Object.keys(choices).join(", ")})`);
    } else checkSlice(slice, model, p, ctx);
  }
}

function checkSlice(slice: Obj, model: SharedSliceModel, path: string, ctx: Ctx): void {
  if (typeof slice.id !== "string" || slice.id === "") add(ctx, `${path}.id`, "must be a non-empty string");
  const variation = model.variations.find((v) => v.id === slice.variation);
  if (!variation) {
    const known = model.variations.map((v) => v.id).join(", ");
    add(ctx, `${path}.variation`, `unknown variation ${JSON.stringify(slice.variation)} (known: ${known})`);
    return;
  }
  if (!isObject(slice.primary)) add(ctx, `${path}.primary`, "must be an object");
  else checkFieldMap(slice.primary, (variation.primary ?? {}) as Fields, `${path}.primary`, model.id, ctx);
  if (!Array.isArray(slice.items)) add(ctx, `${path}.items`, "must be an array");
  else checkItems(slice.items, (variation.items ?? {}) as Fields, `${path}.items`, `${model.id}.items`, ctx);
}
