import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { type SiteStore, sha256 } from "#storage";
import type { ContentNotice } from "#website/contract.ts";
import { SpillFile } from "./spill-file.ts";

/**
 * What the last build rendered each page from, and what it knew of each document, kept beside the
 * manifest (never served: the site server refuses `.pressroom/`). Written by builds only: a publish
 * that rewrites a page changes its hash in the manifest, so the entry no longer matches and the next
 * build renders that page again. Gzipped (about a third of its 40 MB at 100,000 pages): neither the
 * build that writes it nor the one that reads it holds the file's JSON whole.
 */
export const PAGE_INPUTS_KEY = ".pressroom/page-inputs.json.gz";
/** Where builds kept the file before it was gzipped: deleted when the file is written. */
const FORMER_KEY = ".pressroom/page-inputs.json";
const VERSION = 3;

export interface PageInputs {
  /** The first 32 hex digits of the sha256 of the bytes that build stored. */
  hash: string;
  /** render-inputs.ts: what those bytes were rendered from. */
  inputs: string;
  /** The islands the page hydrates (the JavaScript budget counts reused pages too). */
  islands?: string[];
}

/** Name → an entry's JSON: route → page inputs, or id → document record. */
export interface Entries {
  get(name: string): string | undefined;
  readonly size: number;
}

/** Route → its page inputs' JSON (a string costs a third of the objects it stands for). */
export type PageInputsFile = ReadonlyMap<string, string>;
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
  /** The ref its records describe (content at a ref never changes). */
  ref?: string;
  /** How many routes that build failed to render (absent in a file written before it was recorded). */
  failed?: number;
  /** Id → its record's JSON. */
  documents: ReadonlyMap<string, string>;
}

export const shortHash = (hash: string) => hash.slice(0, 32);

export const NO_RECORDS: BuildRecords = { pages: new Map(), documents: new Map() };

/** The last build's file, read as far as its first line: what it describes, and its entries on demand. */
export interface StoredRecords {
  header: RecordsHeader;
  /**
   * Every entry (route → page inputs, id → record), each kept as its JSON: the file is inflated and
   * read a line at a time, never parsed whole into objects (tens of MB at 100,000 routes). A file
   * that turns out unreadable is none (pages render).
   */
  read(): Promise<BuildRecords>;
}

/**
 * The last build's file, when there is one of this version: only its first line is read here, so
 * that a build under other code or other shared documents, which can keep nothing by it, never
 * makes a string of its entries. Anything unreadable or of another version is none.
 */
export async function openPageInputs(store: SiteStore): Promise<StoredRecords | undefined> {
  const object = await store.get(PAGE_INPUTS_KEY);
  if (!object) return undefined;
  const body = object.body;
  try {
    let header: RecordsHeader | undefined;
    await forEachLine(body, (line) => {
      header = headerOf(line);
      return false;
    });
    if (!header) return undefined;
    const described = header;
    return { header: described, read: () => readEntries(body, described) };
  } catch {
    return undefined;
  }
}

/** The first line's fields (`{"version":3,…,"pages":{`), when of this version. */
function headerOf(line: Buffer): RecordsHeader | undefined {
  const parsed = JSON.parse(`${line.toString()}}}`) as Record<string, unknown>;
  if (parsed.version !== VERSION || !isRecord(parsed.pages)) return undefined;
  const header: Record<string, unknown> = {};
  for (const [field, type] of Object.entries(HEADER_FIELDS))
    if (typeof parsed[field] === type) header[field] = parsed[field];
  return header as RecordsHeader;
}

/**
 * The entries apart: each line opening with a quote is an entry (`"name":{…}`) of the pages (after
 * the first other line) or the documents (after the second); the file must end with its third.
 */
async function readEntries(body: Buffer, header: RecordsHeader): Promise<BuildRecords> {
  const sections = [new Map<string, string>(), new Map<string, string>()];
  let others = 0;
  try {
    await forEachLine(body, (line) => {
      if (line[0] !== QUOTE) {
        others++;
        return true;
      }
      const section = sections[others - 1];
      if (!section) throw new Error("an entry outside the pages and documents");
      // Name and entry read apart from the bytes: each string is its own, holding nothing of the chunk.
      const close = closingQuote(line);
      const last = line[line.length - 1] === COMMA ? line.length - 1 : line.length;
      section.set(
        JSON.parse(line.toString("utf8", 0, close + 1)) as string,
        line.toString("utf8", close + 2, last),
      );
      return true;
    });
  } catch {
    return NO_RECORDS;
  }
  const [pages, documents] = sections as [Map<string, string>, Map<string, string>];
  return others === 3 ? { ...header, pages, documents } : NO_RECORDS;
}

/**
 * Inflates `gzipped` and hands each line (without its newline) to `onLine` until it answers false;
 * a line may be a view of a chunk, valid only during the call. Throws when the bytes are not gzip.
 */
async function forEachLine(gzipped: Buffer, onLine: (line: Buffer) => boolean): Promise<void> {
  const inflate = createGunzip({ chunkSize: CHUNK });
  inflate.end(gzipped);
  let carried: Buffer | undefined;
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      let start = 0;
      for (let found = chunk.indexOf(NEWLINE); found !== -1; found = chunk.indexOf(NEWLINE, start)) {
        const line = carried
          ? Buffer.concat([carried, chunk.subarray(0, found)])
          : chunk.subarray(start, found);
        carried = undefined;
        start = found + 1;
        if (!onLine(line)) return;
      }
      const rest = chunk.subarray(start);
      carried = carried ? Buffer.concat([carried, rest]) : Buffer.from(rest);
    }
    if (carried?.length) onLine(carried);
  } finally {
    inflate.destroy();
  }
}

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
/** Bytes inflated, or read from a build's temporary file, at a time. */
const CHUNK = 1 << 16;

/** Where the JSON string opening `line` ends (its closing quote). */
function closingQuote(line: Buffer): number {
  for (let i = 1; i < line.length; i++) {
    if (line[i] === BACKSLASH) i++;
    else if (line[i] === QUOTE) return i;
  }
  throw new Error("an entry without its name");
}

/** An entry's JSON (of `PageInputs` or `DocumentRecord`), parsed. */
export function parseEntry<T>(json: string | undefined): T | undefined {
  return json === undefined ? undefined : (JSON.parse(json) as T);
}

/** A record's version (`v`), without parsing the rest: keepRecord writes it first. */
export function versionInRecord(json: string | undefined): string | undefined {
  if (json === undefined) return undefined;
  if (json.startsWith('{"v":"')) {
    const end = json.indexOf('"', 6);
    if (end !== -1 && !json.slice(6, end).includes("\\")) return json.slice(6, end);
  }
  return parseEntry<DocumentRecord>(json)?.v;
}

/** The first line's fields and their JSON types: what the writer writes and the reader keeps. */
const HEADER_FIELDS = {
  code: "string",
  shared: "string",
  newest: "string",
  ref: "string",
  failed: "number",
} as const;

/** What a build writes beside its pages and documents (BuildRecords without them). */
export type RecordsHeader = Pick<BuildRecords, keyof typeof HEADER_FIELDS>;

/**
 * A build's entries (route → page inputs, id → record) as the file's lines, appended as they come,
 * never read back during the build (a name added twice is written twice, and the later one wins
 * when read, as in an object). In a temporary file (spill-file.ts: it goes when the log is taken or
 * closed, or the process ends), so that a build holds nothing of them per route while it renders
 * (tens of MB at 100,000).
 */
export class EntryLog {
  private readonly file = new SpillFile("entries");
  private text = "";
  private empty = true;

  /** `json`: the entry's JSON (of `PageInputs` or `DocumentRecord`). */
  add(name: string, json: string): void {
    // Each entry on a line of its own (JSON allows it; no string holds a raw newline): openPageInputs
    // reads them one at a time.
    this.text += `${this.empty ? "" : ","}\n${JSON.stringify(name)}:${json}`;
    this.empty = false;
    if (this.text.length >= 1 << 16) this.flush();
  }

  /**
   * The entries' bytes, the inside of a JSON object, a chunk at a time (each chunk a buffer of its
   * own); lets go of them once read.
   */
  *chunks(): Generator<Buffer> {
    this.flush();
    const { size } = this.file;
    try {
      for (let offset = 0; offset < size; offset += CHUNK) {
        const chunk = Buffer.allocUnsafe(Math.min(CHUNK, size - offset));
        this.file.readInto(offset, chunk.length, chunk);
        yield chunk;
      }
    } finally {
      this.close();
    }
  }

  /** Lets go of the entries (a build that fails never takes them). */
  close(): void {
    this.file.close();
  }

  private flush(): void {
    if (this.text.length === 0) return;
    this.file.append(Buffer.from(this.text));
    this.text = "";
  }
}

/**
 * Writes the file: its first line says what the entries describe (`openPageInputs` reads no more to
 * know), then the pages' entries, then the documents'. Gzipped as it is put together, into a
 * temporary file, so that the build holds only the gzipped bytes at its end, when it holds most.
 * `site`: the site's version that build ran (render-code.ts), recorded for whoever reads the file.
 */
export async function writePageInputs(
  store: SiteStore,
  header: RecordsHeader,
  pages: EntryLog,
  documents: EntryLog,
  site: string,
): Promise<void> {
  let head = `{"version":${VERSION},"site":${JSON.stringify(site)}`;
  for (const field of Object.keys(HEADER_FIELDS) as (keyof RecordsHeader)[])
    if (header[field] !== undefined) head += `,${JSON.stringify(field)}:${JSON.stringify(header[field])}`;
  function* parts(): Generator<Buffer> {
    yield Buffer.from(`${head},"pages":{`);
    yield* pages.chunks();
    yield Buffer.from('\n},"documents":{');
    yield* documents.chunks();
    yield Buffer.from("\n}}");
  }
  const gzipped = new SpillFile("page-inputs");
  try {
    // Level 1: the next build is the file's only reader; level 6 makes the 100,000-page file a
    // tenth smaller (11.6 MB against 13.0) for 60 % more CPU (`gzip -1` and `-6` on it, 29 Nov 2026).
    await pipeline(Readable.from(parts()), createGzip({ level: 1, chunkSize: CHUNK }), async (chunks) => {
      for await (const chunk of chunks as AsyncIterable<Buffer>) gzipped.append(chunk);
    });
    const body = Buffer.allocUnsafe(gzipped.size);
    gzipped.readInto(0, body.length, body);
    await store.put(PAGE_INPUTS_KEY, body, {
      contentType: "application/gzip",
      cacheControl: CACHE_CONTROL.metadata,
      contentHash: sha256(body),
    });
  } finally {
    gzipped.close();
    pages.close();
    documents.close();
  }
  await store.delete(FORMER_KEY);
}

function isRecord(value: unknown): value is Record<string, never> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
