import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { faviconSvg } from "./favicon.ts";
import { minifyCss } from "./lib/minify-css.ts";
import { paletteCss } from "./styles/palette.ts";

/** Public paths of the built assets, as pages link them. */
export interface SiteAssets {
  /** e.g. `/assets/site.3f2a9c01d4.css` */
  css: string;
  /** e.g. `/assets/favicon.9b1e22c0aa.svg` */
  favicon: string;
}

export interface AssetFile {
  /** Storage key, e.g. `assets/site.3f2a9c01d4.css`. */
  key: string;
  body: Buffer;
  contentType: string;
}

/** Concatenated in this order (the cascade depends on it). */
const STYLESHEETS = ["base.css", "layout.css", "components.css", "slices.css", "pages.css"];
const HASH_LENGTH = 10;

/**
 * The stylesheet and favicon, content-hashed so they can be cached forever
 * (`immutable`): a changed file gets a new name, and pages name it. Built once
 * per build or server start, never per render; the same sources always give
 * the same bytes and names.
 */
export async function buildSiteAssets(): Promise<{ files: AssetFile[]; assets: SiteAssets }> {
  const sheets = await Promise.all(
    STYLESHEETS.map((name) => readFile(new URL(`./styles/${name}`, import.meta.url), "utf8")),
  );
  const css = hashed(
    "site",
    "css",
    minifyCss([paletteCss(), ...sheets].join("\n")),
    "text/css; charset=utf-8",
  );
  const favicon = hashed("favicon", "svg", faviconSvg(), "image/svg+xml");
  return { files: [css, favicon], assets: { css: `/${css.key}`, favicon: `/${favicon.key}` } };
}

function hashed(name: string, extension: string, text: string, contentType: string): AssetFile {
  const body = Buffer.from(text, "utf8");
  const hash = createHash("sha256").update(body).digest("hex").slice(0, HASH_LENGTH);
  return { key: `assets/${name}.${hash}.${extension}`, body, contentType };
}
