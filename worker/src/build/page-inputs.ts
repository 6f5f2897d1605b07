import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { type SiteStore, sha256 } from "#storage";
import type { ContentNotice } from "#website/contract.ts";

/**
 * What the last build rendered each page from, and what it knew of each document, kept beside the
 * manifest (never served: the site server refuses `.pressroom/`). Written by builds only: a publish
 * that rewrites a page changes its hash in the manifest, so the entry no longer matches and the next
 * build renders that page again.
 */
export const PAGE_INPUTS_KEY = ".pressroom/page-inputs.json";
const VERSION = 2;

export interface PageInputs {
  /** The first 32 hex digits of the sha256 of the bytes that build stored. */
  hash: string;
  /** render-inputs.ts: what those bytes were rendered from. */
  inputs: string;
  /** The islands the page hydrates (the JavaScript budget counts reused pages too). */
  islands?: string[];
}

export type PageInputsFile = Record<string, PageInputs>;

/**
 * What a build knew of one document at its ref (document-records.ts): enough to list it again,
 * without its content, while its version and those of the documents it shows are unchanged.
 */
export interface DocumentRecord {
  /** Its version (document-records.ts `versionOf`). */
  v: string;
  /** The documents whose facts the API wrote into it (link targets, other languages), by id. */
  t?: string[];
  /** `documentHash` of the whole document. */
  h?: string;
  /** Its stub's data (document-hash.ts `stub`), when not empty. */
  d?: Record<string, unknown>;
  /** What editors should fix in it, when anything. */
  n?: readonly ContentNotice[];
  /** Why it gets no page, when it gets none. */
  r?: string;
}

/** The last build's state: its page inputs, and what it knew of the documents at its ref. */
export interface BuildRecords {
  pages: PageInputsFile;
  /** The code and shared documents its page inputs were hashed with (render-inputs.ts). */
  code?: string;
  shared?: string;
  /** The newest publication date at its ref (document-records.ts `newestDate`). */
  newest?: string;
  documents: Record<string, DocumentRecord>;
}

export const shortHash = (hash: string) => hash.slice(0, 32);

export const NO_RECORDS: BuildRecords = { pages: {}, documents: {} };

/** The last build's records; anything unreadable or of another version is none (pages render). */
export async function readPageInputs(store: SiteStore): Promise<BuildRecords> {
  const object = await store.get(PAGE_INPUTS_KEY);
  if (!object) return NO_RECORDS;
  try {
    const parsed = JSON.parse(object.body.toString()) as Partial<BuildRecords> & { version?: unknown };
    if (parsed.version !== VERSION || !isRecord(parsed.pages)) return NO_RECORDS;
    return {
      pages: parsed.pages,
      documents: isRecord(parsed.documents) ? parsed.documents : {},
      ...(typeof parsed.code === "string" ? { code: parsed.code } : {}),
      ...(typeof parsed.shared === "string" ? { shared: parsed.shared } : {}),
      ...(typeof parsed.newest === "string" ? { newest: parsed.newest } : {}),
    } as BuildRecords;
  } catch {
    return NO_RECORDS;
  }
}

/** What a build writes beside its pages and documents (BuildRecords without them). */
export type RecordsHeader = Pick<BuildRecords, "code" | "shared" | "newest">;

/**
 * `site`: the site's version that build ran (render-code.ts), recorded for whoever reads the file.
 * `pages` and `documents` hold each entry as its JSON (a build keeps them so: a string costs a
 * third of the object it stands for). The file is written as JSON.stringify would write the whole,
 * assembled in pieces of bytes: never one string of tens of megabytes.
 */
export async function writePageInputs(
  store: SiteStore,
  header: RecordsHeader,
  pages: ReadonlyMap<string, string>,
  documents: ReadonlyMap<string, string>,
  site: string,
): Promise<void> {
  const pieces: Buffer[] = [];
  let text = `{"version":${VERSION},"site":${JSON.stringify(site)},"pages":`;
  const flush = (limit: number) => {
    if (text.length < limit) return;
    pieces.push(Buffer.from(text));
    text = "";
  };
  for (const entries of [pages, documents]) {
    let first = true;
    text += "{";
    for (const [name, json] of entries) {
      text += `${first ? "" : ","}${JSON.stringify(name)}:${json}`;
      first = false;
      flush(1 << 20);
    }
    text += entries === pages ? '},"documents":' : "}";
  }
  for (const field of ["code", "shared", "newest"] as const)
    if (header[field] !== undefined) text += `,${JSON.stringify(field)}:${JSON.stringify(header[field])}`;
  text += "}";
  flush(0);
  const body = Buffer.concat(pieces);
  await store.put(PAGE_INPUTS_KEY, body, {
    contentType: "application/json",
    cacheControl: CACHE_CONTROL.metadata,
    contentHash: sha256(body),
  });
}

function isRecord(value: unknown): value is Record<string, never> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
