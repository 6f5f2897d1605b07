import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { AssetFile, BuiltAssets } from "#website/contract.ts";
import { buildBrowserBundle } from "./browser-bundle.ts";
import { faviconSvg } from "./favicon.ts";
import { minifyCss } from "./lib/minify-css.ts";
import { paletteCss } from "./styles/palette.ts";

export type { BuiltAssets, SiteAssets } from "#website/contract.ts";

export type { AssetFile };

/** Concatenated in this order (the cascade depends on it). */
const STYLESHEETS = ["base.css", "layout.css", "components.css", "slices.css", "pages.css"];
const HASH_LENGTH = 10;

let built: Promise<BuiltAssets> | undefined;

/**
 * The site's assets, built once per process: the sources cannot change while it runs, and
 * bundling the browser code with esbuild costs a few hundred milliseconds, which a worker would
 * otherwise pay again on every diff build. A failed build is not kept, so the next call retries.
 */
export function buildSiteAssets(): Promise<BuiltAssets> {
  built ??= bundleSiteAssets().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

/**
 * The stylesheet, favicon and browser bundle, content-hashed so they can be cached forever
 * (`immutable`): a changed file gets a new name, and pages name it. The same sources always give
 * the same bytes and names. Builds every time; `buildSiteAssets` keeps the result.
 */
export async function bundleSiteAssets(): Promise<BuiltAssets> {
  const [bundle, sheets] = await Promise.all([
    buildBrowserBundle(),
    Promise.all(STYLESHEETS.map((name) => readFile(new URL(`./styles/${name}`, import.meta.url), "utf8"))),
  ]);
  const css = hashed(
    "site",
    "css",
    minifyCss([paletteCss(), ...sheets].join("\n")),
    "text/css; charset=utf-8",
  );
  const favicon = hashed("favicon", "svg", faviconSvg(), "image/svg+xml");
  return {
    files: [css, favicon, ...bundle.files],
    assets: { css: `/${css.key}`, favicon: `/${favicon.key}`, browser: bundle.manifest },
  };
}

function hashed(name: string, extension: string, text: string, contentType: string): AssetFile {
  const body = Buffer.from(text, "utf8");
  const hash = createHash("sha256").update(body).digest("hex").slice(0, HASH_LENGTH);
  return { key: `assets/${name}.${hash}.${extension}`, body, contentType };
}
