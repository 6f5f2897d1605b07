import type { PrismicDocument } from "@prismicio/client";
import type { ContentNotice } from "#website/contract.ts";
import { pageHeading, priceListHeading } from "../lib/page-meta.ts";
import { HOME_UID } from "../routes.ts";
import type { PageDocument, PriceListDocument, SettingsDocument } from "./content-source.ts";
import { documentCache } from "./document-cache.ts";
import { sliceModels } from "./models.ts";
import { documentConversions, normalizeDocument } from "./normalize.ts";

/**
 * What an editor should fix in a document the site renders anyway: a field the page needs that is
 * empty or absent (a field added to the model after the document was published), shown with a
 * fallback; a slice no component or variation renders, left out; a field holding a value of another
 * kind than its model's (its type was changed after the document was published), converted or
 * shown empty (normalize.ts). Reported like a refused uid:
 * logged (and counted) by the build and the publish that read the document, listed by
 * `pressroom status`, and shown on the page in preview (docs/editors.md, "When a page falls back").
 */
export type { ContentNotice } from "#website/contract.ts";

const cache = documentCache<ContentNotice[]>("notices");

/**
 * The notices of one document, as the API returned it (pure; cached per document object). Only
 * what changes what visitors see: an absent optional field is simply empty, and is not reported.
 */
export function documentNotices(doc: PrismicDocument): readonly ContentNotice[] {
  let notices = cache.get(doc);
  if (!notices) {
    notices = find(normalizeDocument(doc), doc);
    cache.set(doc, notices);
  }
  return notices;
}

/** One line for logs and `pressroom status`: `page Z9n… (about) slices[2]: …`. */
export function describeNotice(notice: ContentNotice): string {
  const uid = notice.uid ? ` (${notice.uid})` : "";
  return `${notice.type} ${notice.documentId}${uid} ${notice.field}: ${notice.message}`;
}

function find(doc: PrismicDocument, raw: PrismicDocument): ContentNotice[] {
  const notices: ContentNotice[] = [];
  const note = (field: string, kind: ContentNotice["kind"], message: string) =>
    notices.push({ documentId: doc.id, type: doc.type, uid: doc.uid ?? null, field, kind, message });
  if (doc.type === "page") {
    const page = doc as PageDocument;
    const heading = pageHeading(page, "");
    if (heading.from !== "title") {
      const shown =
        heading.from === "meta title"
          ? `its meta title (“${heading.text}”)`
          : page.uid === HOME_UID
            ? "the site name"
            : `“${heading.text}” (its UID)`;
      note("title", "fallback", `has no title: visitors see ${shown} as its heading`);
    }
    sliceNotices(raw.data.slices, note);
  } else if (doc.type === "price_list") {
    const list = doc as PriceListDocument;
    const heading = priceListHeading(list);
    if (heading.from !== "title")
      note("title", "fallback", `has no title: visitors see “${heading.text}” (its UID)`);
    if (!list.data.rows.some((row) => row.name))
      note("rows", "fallback", "has no rows with a name: no prices are shown");
  } else if (doc.type === "settings") {
    const settings = doc as SettingsDocument;
    if (!settings.data.brand_name?.trim())
      note("brand_name", "fallback", "has no brand name: the header, page titles and the footer show none");
    if (!settings.data.header_navigation.some((item) => item.label && item.link.link_type !== "Any"))
      note("header_navigation", "fallback", "has no header navigation: the header shows the brand only");
  }
  conversionNotices(raw, note);
  return notices;
}

/** Slices as the API sent them: a type or a variation no model describes is left out of the page. */
function sliceNotices(
  value: unknown,
  note: (field: string, kind: ContentNotice["kind"], message: string) => void,
) {
  if (!Array.isArray(value)) return;
  value.forEach((slice: { slice_type?: unknown; variation?: unknown }, index) => {
    if (typeof slice?.slice_type !== "string") return;
    const model = sliceModels[slice.slice_type];
    if (!model) {
      note(
        `slices[${index}]`,
        "unknown-slice",
        `slice “${slice.slice_type}” has no component: visitors do not see it`,
      );
    } else if (!model.variations.some((v) => v.id === slice.variation)) {
      note(
        `slices[${index}]`,
        "unknown-variation",
        `slice “${slice.slice_type}” has variation “${String(slice.variation)}”, which no component renders: visitors do not see it`,
      );
    }
  });
}

/** Values of another kind than their model's (a field whose type changed), as normalize.ts read them. */
function conversionNotices(
  doc: PrismicDocument,
  note: (field: string, kind: ContentNotice["kind"], message: string) => void,
) {
  for (const { field, found, expected, outcome } of documentConversions(doc))
    note(
      field,
      "converted",
      `has ${found} in “${field}”, where the model has ${expected} (was the field's type changed?): ${outcome}; fill it in again and publish`,
    );
}
