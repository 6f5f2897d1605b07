import type { Models } from "./models.ts";

/** One problem with a document; `path` names the field, e.g. `data.slices[2].primary.heading`. */
export type ValidationIssue = { path: string; message: string };
export type Ctx = { models: Models; issues: ValidationIssue[] };
export type Obj = Record<string, unknown>;

// Prismic only blocks javascript: in its editor; the renderer must never get anything but these schemes.
const SAFE_URL = /^(?:https?:\/\/|mailto:|tel:)/i;
const TEXT_BLOCKS = new Set(
  "heading1,heading2,heading3,heading4,heading5,heading6,paragraph,preformatted,list-item,o-list-item".split(
    ",",
  ),
);
const SPAN_TYPES = new Set(["strong", "em", "hyperlink"]);
const LINK_TYPES = new Set(["Any", "Web", "Document", "Media"]);
const SELECT_TO_LINK_TYPE: Record<string, string> = { document: "Document", web: "Web", media: "Media" };

export const isObject = (value: unknown): value is Obj =>
  typeof value === "object" && value !== null && !Array.isArray(value);
export const isNumber = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value);
export const describe = (value: unknown): string =>
  Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
export const add = (ctx: Ctx, path: string, message: string): void => {
  ctx.issues.push({ path, message });
};

/** An image field, or an image block of rich text (same shape without the empty form). */
export function checkImage(value: unknown, path: string, ctx: Ctx): void {
  if (!isObject(value)) {
    add(ctx, path, `must be an image object or {}, got ${describe(value)}`);
  } else if (Object.keys(value).length > 0) {
    if (typeof value.url !== "string" || value.url === "")
      add(ctx, path, "needs a url (an empty image is {})");
    const dims = value.dimensions;
    if (!isObject(dims) || !isNumber(dims.width) || !isNumber(dims.height)) {
      add(ctx, path, "needs dimensions {width, height}");
    }
    if (value.alt !== undefined && value.alt !== null && typeof value.alt !== "string") {
      add(ctx, path, "alt must be a string or null");
    }
  }
}

/** Block and span types come from the field's `single` or `multi` list; `single` allows one block. */
export function checkRichText(value: unknown, config: Obj, path: string, ctx: Ctx): void {
  if (!Array.isArray(value)) {
    add(ctx, path, `must be a rich text array, got ${describe(value)}`);
    return;
  }
  const spec = (config.single ?? config.multi ?? "paragraph") as string;
  const allowed = new Set(spec.split(",").map((s) => s.trim()));
  if (config.multi === undefined && value.length > 1) {
    add(ctx, path, `accepts one block (single: "${spec}"), got ${value.length}`);
  }
  for (const [i, block] of value.entries()) {
    const p = `${path}[${i}]`;
    if (!isObject(block) || typeof block.type !== "string") add(ctx, p, "must be a block with a type");
    else if (!allowed.has(block.type)) add(ctx, p, `block type "${block.type}" not allowed here (${spec})`);
    else if (block.type === "image") checkImage(block, p, ctx);
    else if (block.type === "embed") {
      if (!isObject(block.oembed) || typeof block.oembed.embed_url !== "string") {
        add(ctx, p, "needs oembed.embed_url");
      }
    } else if (!TEXT_BLOCKS.has(block.type)) add(ctx, p, `unknown block type "${block.type}"`);
    else if (typeof block.text !== "string") add(ctx, p, "needs a text string");
    else if (!Array.isArray(block.spans)) add(ctx, p, "needs a spans array");
    else checkSpans(block.spans, block.text.length, allowed, spec, p, ctx);
  }
}

function checkSpans(
  spans: unknown[],
  length: number,
  allowed: Set<string>,
  spec: string,
  path: string,
  ctx: Ctx,
) {
  for (const [j, span] of spans.entries()) {
    const p = `${path}.spans[${j}]`;
    if (!isObject(span) || !isNumber(span.start) || !isNumber(span.end)) {
      add(ctx, p, "needs start and end");
      continue;
    }
    if (span.start < 0 || span.start > span.end || span.end > length) add(ctx, p, "is outside the text");
    // Labels are named by the field's `labels`, which the site does not restrict.
    if (span.type === "label") continue;
    if (!SPAN_TYPES.has(span.type as string)) add(ctx, p, `unknown span type ${JSON.stringify(span.type)}`);
    else if (!allowed.has(span.type as string)) add(ctx, p, `${span.type} is not allowed here (${spec})`);
    else if (span.type === "hyperlink") {
      if (isObject(span.data) && span.data.link_type === "Any")
        add(ctx, `${p}.data`, "a hyperlink needs a target");
      else checkLink(span.data, {}, `${p}.data`, ctx);
    }
  }
}

/** `select` fixes the kind of link; `customtypes` the types a Document link may reach. */
export function checkLink(value: unknown, config: Obj, path: string, ctx: Ctx): void {
  if (!isObject(value) || typeof value.link_type !== "string" || !LINK_TYPES.has(value.link_type)) {
    add(ctx, path, "must be a link with link_type Any, Web, Document or Media");
    return;
  }
  const type = value.link_type;
  const expected = SELECT_TO_LINK_TYPE[String(config.select)];
  if (expected && type !== expected && type !== "Any") {
    add(ctx, path, `must link to ${expected}, not ${type}`);
    return;
  }
  // Prismic sends an empty link as {link_type: "Any"} or as {link_type: <selected type>} with no target.
  if (type === "Any" || (value.url === undefined && value.id === undefined)) return;
  if (type === "Web" || type === "Media") {
    if (typeof value.url !== "string" || !SAFE_URL.test(value.url)) {
      add(ctx, path, "url must be http(s), mailto or tel");
    }
    return;
  }
  if (typeof value.id !== "string" || typeof value.type !== "string") {
    add(ctx, path, "a Document link needs id and type");
    return;
  }
  // A link whose target was unpublished or deleted comes back from the API in Prismic's broken-link
  // shape; Prismic still publishes a document holding one (the link reads as broken until the target
  // returns), so what the API returned can always be written back.
  if (value.type === "broken_type" && value.isBroken === true) return;
  if (!ctx.models.customTypes.some((ct) => ct.id === value.type)) {
    add(ctx, path, `links to unknown custom type "${value.type}"`);
  }
  const customtypes = config.customtypes as (string | { id: string })[] | undefined;
  const ids = customtypes?.map((ct) => (typeof ct === "string" ? ct : ct.id));
  if (ids && !ids.includes(value.type))
    add(ctx, path, `may link to ${ids.join(", ")} only, not "${value.type}"`);
}
