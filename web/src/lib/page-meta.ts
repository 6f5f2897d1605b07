import { asText, type ImageField, isFilled, type RichTextField } from "@prismicio/client";
import type { PageDocument, SettingsDocument } from "../content/index.ts";

export interface MetaImage {
  url: string;
  alt: string;
  width: number;
  height: number;
}

/** What the document head says about a route. */
export interface PageMeta {
  /** The full `<title>`: "<page title> · <brand>". */
  title: string;
  /** og:title: the page title alone (the site name is og:site_name). */
  shareTitle: string;
  description?: string;
  /** Absent for the 404 page: it has no address of its own. */
  canonicalPath?: string;
  /** An absolute URL that replaces `siteUrl` + `canonicalPath` (a page's canonical override: `canonicalOverrideOf`). */
  canonicalUrl?: string;
  image?: MetaImage;
  noindex?: boolean;
}

const SEPARATOR = " · ";
const DESCRIPTION_LENGTH = 160;

/**
 * Every title is "<page title> · <brand>", the home page too (its meta title
 * says what the site is; the brand closes it like everywhere else), so tabs
 * and search results read the same across the site.
 */
export function documentTitle(pageTitle: string, brand: string): string {
  const title = pageTitle.trim();
  if (!title || title === brand) return brand;
  return brand ? `${title}${SEPARATOR}${brand}` : title;
}

export function brandOf(settings: SettingsDocument): string {
  return settings.data.brand_name?.trim() ?? "";
}

/** The page's own title: the SEO meta title when set, otherwise the title field's text. */
export function pageTitleOf(page: PageDocument): string {
  return page.data.meta_title?.trim() || asText(page.data.title).trim();
}

/** meta_image when set, otherwise the first hero's image: what a shared link shows. */
export function shareImageOf(page: PageDocument): MetaImage | undefined {
  const meta = metaImage(page.data.meta_image);
  if (meta) return meta;
  for (const slice of page.data.slices) {
    if (slice.slice_type === "hero") return metaImage(slice.primary.image);
  }
  return undefined;
}

export function metaImage(field: ImageField | null | undefined): MetaImage | undefined {
  if (!isFilled.image(field)) return undefined;
  return {
    url: field.url,
    alt: field.alt ?? "",
    width: field.dimensions.width,
    height: field.dimensions.height,
  };
}

/** Plain text cut at a word boundary, for descriptions derived from rich text. */
export function summary(field: RichTextField | null | undefined): string | undefined {
  const text = asText(field ?? [], { separator: " " })
    .replace(/\s+/g, " ")
    .trim();
  if (!text) return undefined;
  if (text.length <= DESCRIPTION_LENGTH) return text;
  const cut = text.slice(0, DESCRIPTION_LENGTH - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), DESCRIPTION_LENGTH / 2))}…`;
}
