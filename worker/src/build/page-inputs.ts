import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { type SiteStore, sha256 } from "#storage";
import type { ContentNotice } from "#website/contract.ts";
import { SpillFile } from "./spill-file.ts";

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

/**
 * The last build's records; anything unreadable or of another version is none (pages render). Each
 * entry is kept as its JSON: the file is read a line at a time (writePageInputs puts each entry on
 * a line of its own), never parsed whole into objects; a file written on one line is parsed whole.
 */
export async function readPageInputs(store: SiteStore): Promise<BuildRecords> {
  const object = await store.get(PAGE_INPUTS_KEY);
  if (!object) return NO_RECORDS;
  try {
    const { skeleton, sections } = splitEntries(object.body);
    const parsed = JSON.parse(skeleton) as Record<string, unknown> & { version?: unknown };
    if (parsed.version !== VERSION || !isRecord(parsed.pages)) return NO_RECORDS;
    const [pages = new Map(), documents = new Map()] = sections ?? [
      entriesOf(parsed.pages),
      entriesOf(parsed.documents),
    ];
    return {
      pages,
      documents,
      ...(typeof parsed.code === "string" ? { code: parsed.code } : {}),
      ...(typeof parsed.shared === "string" ? { shared: parsed.shared } : {}),
      ...(typeof parsed.newest === "string" ? { newest: parsed.newest } : {}),
      ...(typeof parsed.ref === "string" ? { ref: parsed.ref } : {}),
      ...(typeof parsed.failed === "number" ? { failed: parsed.failed } : {}),
    };
  } catch {
    return NO_RECORDS;
  }
}

/**
 * The file's lines apart: each line opening with a quote is an entry (`"name":{…}`) of the pages
 * (after the first other line) or the documents (after the second); the other lines together are
 * the file with both empty. A file on one line is its own skeleton (`sections` undefined).
 */
function splitEntries(body: Buffer): { skeleton: string; sections?: Map<string, string>[] } {
  if (!body.includes(NEWLINE)) return { skeleton: body.toString() };
  const sections = [new Map<string, string>(), new Map<string, string>()];
  let skeleton = "";
  let others = 0;
  for (let start = 0; start < body.length; ) {
    const found = body.indexOf(NEWLINE, start);
    const end = found === -1 ? body.length : found;
    const line = start;
    start = end + 1;
    if (body[line] !== QUOTE) {
      skeleton += body.toString("utf8", line, end);
      others++;
      continue;
    }
    const section = sections[others - 1];
    if (!section) throw new Error("an entry outside the pages and documents");
    // Name and entry read apart from the bytes: each string is its own, holding nothing of the line.
    const close = closingQuote(body, line, end);
    const last = body[end - 1] === COMMA ? end - 1 : end;
    section.set(
      JSON.parse(body.toString("utf8", line, close + 1)) as string,
      body.toString("utf8", close + 2, last),
    );
  }
  return { skeleton, sections };
}

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;

/** Where the JSON string opening the line at `start` ends (its closing quote). */
function closingQuote(body: Buffer, start: number, end: number): number {
  for (let i = start + 1; i < end; i++) {
    if (body[i] === BACKSLASH) i++;
    else if (body[i] === QUOTE) return i;
  }
  throw new Error("an entry without its name");
}

function entriesOf(value: unknown): Map<string, string> {
  const entries = new Map<string, string>();
  if (isRecord(value))
    for (const [name, entry] of Object.entries(value)) entries.set(name, JSON.stringify(entry));
  return entries;
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

/** What a build writes beside its pages and documents (BuildRecords without them). */
export type RecordsHeader = Pick<BuildRecords, "code" | "shared" | "newest" | "ref" | "failed">;

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
    // Each entry on a line of its own (JSON allows it; no string holds a raw newline): readPageInputs
    // reads them one at a time.
    this.text += `${this.empty ? "" : ","}\n${JSON.stringify(name)}:${json}`;
    this.empty = false;
    if (this.text.length >= 1 << 16) this.flush();
  }

  /** How many bytes the entries take (`copyInto`). */
  get size(): number {
    this.flush();
    return this.file.size;
  }

  /**
   * Copies the entries' bytes, the inside of a JSON object, into `target` at `offset` (the file is
   * put together in one buffer, each log copied once), then lets go of them. Answers the offset
   * after them.
   */
  copyInto(target: Buffer, offset: number): number {
    const { size } = this;
    this.file.readInto(0, size, target, offset);
    this.close();
    return offset + size;
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
 * Writes the file. `site`: the site's version that build ran (render-code.ts), recorded for whoever
 * reads the file.
 */
export async function writePageInputs(
  store: SiteStore,
  header: RecordsHeader,
  pages: EntryLog,
  documents: EntryLog,
  site: string,
): Promise<void> {
  let trailer = "\n}";
  for (const field of ["code", "shared", "newest", "ref", "failed"] as const)
    if (header[field] !== undefined) trailer += `,${JSON.stringify(field)}:${JSON.stringify(header[field])}`;
  const parts = [
    Buffer.from(`{"version":${VERSION},"site":${JSON.stringify(site)},"pages":{`),
    pages,
    Buffer.from('\n},"documents":{'),
    documents,
    Buffer.from(`${trailer}}`),
  ];
  const body = Buffer.allocUnsafe(
    parts.reduce((sum, part) => sum + (part instanceof EntryLog ? part.size : part.length), 0),
  );
  let offset = 0;
  for (const part of parts)
    offset = part instanceof EntryLog ? part.copyInto(body, offset) : offset + part.copy(body, offset);
  await store.put(PAGE_INPUTS_KEY, body, {
    contentType: "application/json",
    cacheControl: CACHE_CONTROL.metadata,
    contentHash: sha256(body),
  });
}

function isRecord(value: unknown): value is Record<string, never> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
