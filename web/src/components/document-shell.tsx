import type { ReactNode } from "react";
import type { Thing } from "schema-dts";
import type { SiteAssets } from "../assets.ts";
import type { PageMeta } from "../lib/page-meta.ts";
import { absoluteUrl } from "../lib/site-url.ts";
import { JsonLd } from "../structured-data/json-ld.tsx";
import { THEME_COLOR } from "../styles/palette.ts";

export interface DocumentShellProps {
  meta: PageMeta;
  brand: string;
  siteUrl: string;
  assets: SiteAssets;
  /** A Google Tag Manager container id, read by the browser bundle (web/src/browser/tag-manager.ts). */
  tagManagerId?: string;
  /** The route's JSON-LD nodes (web/src/structured-data/), one script in `<head>`. */
  structuredData?: readonly (Thing | undefined)[];
  children: ReactNode;
}

/** `<html>` with everything a search engine, a share preview and the browser need in `<head>`. */
export function DocumentShell({
  meta,
  brand,
  siteUrl,
  assets,
  tagManagerId,
  structuredData,
  children,
}: DocumentShellProps): ReactNode {
  const canonical =
    meta.canonicalUrl ??
    (meta.canonicalPath === undefined ? undefined : absoluteUrl(siteUrl, meta.canonicalPath));
  const image = meta.image;
  // Share previews need an absolute address; the URL passed the image filter already (metaImage).
  const imageUrl = image?.url.startsWith("/") ? absoluteUrl(siteUrl, image.url) : image?.url;
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{meta.title}</title>
        {meta.description ? <meta name="description" content={meta.description} /> : null}
        {meta.noindex ? <meta name="robots" content="noindex" /> : null}
        {canonical ? <link rel="canonical" href={canonical} /> : null}
        <meta property="og:type" content="website" />
        <meta property="og:site_name" content={brand} />
        <meta property="og:title" content={meta.shareTitle} />
        {meta.description ? <meta property="og:description" content={meta.description} /> : null}
        {canonical ? <meta property="og:url" content={canonical} /> : null}
        {imageUrl ? <meta property="og:image" content={imageUrl} /> : null}
        {image ? <meta property="og:image:width" content={String(image.width)} /> : null}
        {image ? <meta property="og:image:height" content={String(image.height)} /> : null}
        {image?.alt ? <meta property="og:image:alt" content={image.alt} /> : null}
        <meta name="twitter:card" content={image ? "summary_large_image" : "summary"} />
        <meta name="theme-color" content={THEME_COLOR} />
        {tagManagerId ? <meta name="pressroom:tag-manager" content={tagManagerId} /> : null}
        {structuredData ? <JsonLd nodes={structuredData} /> : null}
        <link rel="icon" href={assets.favicon} type="image/svg+xml" />
        <link rel="stylesheet" href={assets.css} />
        <script type="module" src={assets.browser.entry} />
      </head>
      <body>{children}</body>
    </html>
  );
}
