import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { type SiteStore, sha256 } from "#storage";

/**
 * What the last build rendered each page from, kept beside the manifest (never served: the site
 * server refuses `.pressroom/`). Written by builds only: a publish that rewrites a page changes its
 * hash in the manifest, so the entry no longer matches and the next build renders that page again.
 */
export const PAGE_INPUTS_KEY = ".pressroom/page-inputs.json";
const VERSION = 1;

export interface PageInputs {
  /** The first 32 hex digits of the sha256 of the bytes that build stored. */
  hash: string;
  /** render-inputs.ts: what those bytes were rendered from. */
  inputs: string;
  /** The islands the page hydrates (the JavaScript budget counts reused pages too). */
  islands?: string[];
}

export type PageInputsFile = Record<string, PageInputs>;

export const shortHash = (hash: string) => hash.slice(0, 32);

/** The last build's page inputs; anything unreadable or of another version is none (pages render). */
export async function readPageInputs(store: SiteStore): Promise<PageInputsFile> {
  const object = await store.get(PAGE_INPUTS_KEY);
  if (!object) return {};
  try {
    const parsed = JSON.parse(object.body.toString()) as { version?: unknown; pages?: unknown };
    return parsed.version === VERSION && typeof parsed.pages === "object" && parsed.pages !== null
      ? (parsed.pages as PageInputsFile)
      : {};
  } catch {
    return {};
  }
}

/** `site`: the site's version that build ran (render-code.ts), recorded for whoever reads the file. */
export async function writePageInputs(store: SiteStore, pages: PageInputsFile, site: string): Promise<void> {
  const body = JSON.stringify({ version: VERSION, site, pages });
  await store.put(PAGE_INPUTS_KEY, body, {
    contentType: "application/json",
    cacheControl: CACHE_CONTROL.metadata,
    contentHash: sha256(body),
  });
}
