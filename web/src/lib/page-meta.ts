import { asText, type ImageField, isFilled, type RichTextField } from "@prismicio/client";
import type { PageDocument, PriceListDocument, SettingsDocument } from "../content/content-source.ts";
import { variationOf } from "../content/normalize.ts";
import { HOME_UID } from "../routes.ts";
import { isSafeImageSrc } from "./safe-href.ts";

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

/** A heading, and where it came from when the document's own title is empty (content-notices.ts says so to editors). */
export interface Heading {
  text: string;
  from: "title" | "meta title" | "UID" | "site name";
}

/**
 * A page's `<h1>`: its title; without one (a title field added after the page was published, or
 * left empty), its meta title, then its UID as words, then (the home page) the site name.
 */
export function pageHeading(page: PageDocument, brand: string): Heading {
  const title = asText(page.data.title).trim();
  if (title) return { text: title, from: "title" };
  const meta = page.data.meta_title?.trim();
  if (meta) return { text: meta, from: "meta title" };
  const uid = page.uid === HOME_UID ? "" : uidAsTitle(page.uid);
  if (uid) return { text: uid, from: "UID" };
  return brand ? { text: brand, from: "site name" } : { text: uidAsTitle(page.uid) || "Home", from: "UID" };
}

/** A price list's title, or its UID as words. */
export function priceListHeading(list: PriceListDocument): Heading {
  const title = asText(list.data.title).trim();
  return title ? { text: title, from: "title" } : { text: uidAsTitle(list.uid) || "Price list", from: "UID" };
}

/** A UID as a reader would write it: "care-plans" → "Care plans". */
export function uidAsTitle(uid: string | null | undefined): string {
  const words = (uid ?? "").replace(/[-_]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The page's own title (og:title): the SEO meta title when set, otherwise its heading. */
export function pageTitleOf(page: PageDocument, brand: string): string {
  return page.data.meta_title?.trim() || pageHeading(page, brand).text;
}

/**
 * What a shared link to a page shows: its meta_image when set, otherwise the first hero's image,
 * otherwise the site's default share image (`siteShareImage`).
 */
export function shareImageOf(page: PageDocument, settings: SettingsDocument): MetaImage | undefined {
  const meta = metaImage(page.data.meta_image);
  if (meta) return meta;
  for (const slice of page.data.slices) {
    // A hero of a variation no component renders is not on the page (and its fields are unknown).
    if (slice.slice_type === "hero" && variationOf(slice)) {
      const hero = metaImage(slice.primary.image);
      if (hero) return hero;
      break;
    }
  }
  return siteShareImage(settings);
}

/**
 * The settings' default share image, for routes without an image of their own (price lists, pages
 * without a meta image or hero). Absent (settings published before the field existed) or refused
 * by the image filter: no og:image.
 */
export function siteShareImage(settings: SettingsDocument): MetaImage | undefined {
  return metaImage(settings.data.share_image);
}

/** An image for share previews: only a URL that passes the site's image filter (safe-href.ts) reaches og:image. */
export function metaImage(field: ImageField | null | undefined): MetaImage | undefined {
  if (!isFilled.image(field) || !isSafeImageSrc(field.url)) return undefined;
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
