import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { calendarYear } from "#content/dependencies.ts";
import { sha256 } from "#storage";
import type { SiteAssets } from "#website/contract.ts";
import { renderThreadBundle } from "./render-thread-bundle.ts";

export interface SiteCode {
  /** The render thread's bundle (render-thread-bundle.ts): the website's server side, its routes and models. */
  bundle: URL;
  assets: SiteAssets;
  siteUrl: string;
  sitemapUrlLimit?: number;
}

/**
 * The site's **version**: everything besides content and the year that decides a page's bytes, as
 * one hash: the render thread's code (its bundle, named by its content hash: the server-side render
 * code with its dependencies as bundled, the route table and the models it imports), the version
 * of each package it imports (left out of the bundle), Node's version, the browser assets' hashed
 * names the pages refer to, the site URL and the sitemap's part size. The index, the manifest and
 * the page inputs record it; a worker that finds another one rebuilds the site (diff-build.ts).
 */
export async function siteVersion(options: SiteCode): Promise<string> {
  return (await siteParts(options)).version;
}

/**
 * The site's version, and its `frame`: everything in it but the bundle's own code (packages, Node,
 * assets, site URL, sitemap part size). Two versions with the same frame differ only by the render code.
 */
export async function siteParts(options: SiteCode): Promise<{ version: string; frame: string }> {
  const bundle = fileURLToPath(options.bundle);
  const code = await readFile(bundle, "utf8");
  const frame = sha256(
    JSON.stringify({
      packages: packageVersions(code, bundle),
      node: process.version,
      assets: options.assets,
      siteUrl: options.siteUrl,
      sitemapUrlLimit: options.sitemapUrlLimit || null,
    }),
  ).slice(0, 32);
  const name = bundle.slice(bundle.lastIndexOf("/") + 1);
  return { version: sha256(JSON.stringify({ bundle: name, frame })).slice(0, 32), frame };
}

let current: { key: string; parts: Promise<{ version: string; frame: string }> } | undefined;

/**
 * This process's site version and frame: its render thread's bundle (made once per process) with
 * `site`'s assets and settings. The same answer every time for the same settings.
 */
export function currentSiteParts(
  site: Omit<SiteCode, "bundle">,
): Promise<{ version: string; frame: string }> {
  const key = JSON.stringify([site.assets, site.siteUrl, site.sitemapUrlLimit || null]);
  if (current?.key !== key)
    current = { key, parts: renderThreadBundle().then((bundle) => siteParts({ ...site, bundle })) };
  return current.parts;
}

/** This process's site version (`currentSiteParts`). */
export async function currentSiteVersion(site: Omit<SiteCode, "bundle">): Promise<string> {
  return (await currentSiteParts(site)).version;
}

/**
 * What a page's render reads besides content, as one hash: the site's version and the calendar
 * year (a render may show it: `year:<n>`, #content/dependencies.ts). A page rendered under other
 * code is never reused (render-inputs.ts): a deploy renders every page again on its first build.
 */
export async function renderCode(options: SiteCode & { now?: Date }): Promise<string> {
  return renderCodeOf(await siteVersion(options), options.now);
}

/** `renderCode` of the site version `site` (an earlier one, recorded by the index). */
export function renderCodeOf(site: string, now?: Date): string {
  return sha256(JSON.stringify({ site, year: calendarYear(now) }));
}

/** `name@version` of every package the bundle imports, sorted (`node:` modules aside). */
function packageVersions(code: string, from: string): string[] {
  const names = new Set<string>();
  for (const match of code.matchAll(/\bfrom\s*"([^".][^"]*)"|\bimport\s*\(\s*"([^".][^"]*)"/g)) {
    const specifier = match[1] ?? match[2];
    if (!specifier || specifier.startsWith("node:")) continue;
    const parts = specifier.split("/");
    names.add(specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] as string));
  }
  const lookIn = createRequire(from).resolve.paths("") ?? [];
  return [...names].sort().map((name) => `${name}@${versionOf(name, lookIn)}`);
}

/** The version in the package.json Node would find for `name` (its `exports` may hide that file). */
function versionOf(name: string, lookIn: readonly string[]): string {
  for (const folder of lookIn) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, name, "package.json"), "utf8")) as {
        version?: string;
      };
      return manifest.version ?? "?";
    } catch {
      // not in this node_modules: the next one up
    }
  }
  return "missing";
}
