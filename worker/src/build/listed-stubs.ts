import { createHash } from "node:crypto";
import type { PrismicDocument } from "@prismicio/client";
import { DOCUMENT_HASH_CHARS } from "./document-hash.ts";
import { documentsOfAnswers } from "./search-answers.ts";
import { SpillFile } from "./spill-file.ts";

const PER_CHUNK = 100;
/** Bytes of each stub's hash that `digest` combines. */
const HASH_BYTES = 16;
/** The place of a stub added without a document hash. */
const BLANK_HASH = " ".repeat(DOCUMENT_HASH_CHARS);
const utf8 = new TextEncoder();

/** `buffer`, or a copy twice as long (and again) once `bytes` would not fit in it. */
function room(buffer: Buffer, bytes: number): Buffer {
  if (bytes <= buffer.length) return buffer;
  let length = buffer.length * 2;
  while (length < bytes) length *= 2;
  const grown = Buffer.alloc(length);
  buffer.copy(grown);
  return grown;
}

/**
 * Every document a build listed, as listings read it (document-hash.ts `stub`), held until the
 * build ends (or its caller's index is written: full-build.ts `BuiltDocuments`): as UTF-8 JSON in a
 * search answer's shape (`{"results":[…]}`), 100 stubs a chunk, in a temporary file (spill-file.ts),
 * read back a chunk at a time by each listing that iterates them. A rebuild holds the documents of
 * its versions' listing so too, until every version is known. Nothing is held in memory per stub
 * but its hash (with `digest`) and its document's (with `documentHashes`, for the index), as bytes
 * end to end; as objects, 100,000 stubs held ~100 MB of heap, and a map of their documents' hashes
 * 11 MB. `close` lets go of the file (reading the stubs to the end with `drain` does too).
 */
export class ListedStubs {
  private readonly file = new SpillFile("stubs");
  /** Where each chunk is in the file: offset, length. */
  private readonly spans: [number, number][] = [];
  private pending: string[] = [];
  private count = 0;
  private taken = false;
  /** Each stub's hash, end to end (`HASH_BYTES` each), when made to answer `digest`. */
  private hashes: Buffer | undefined;
  /** Each stub's document hash as `add` was given it (`DOCUMENT_HASH_CHARS` ASCII bytes each). */
  private documentHashes: Buffer | undefined;

  /**
   * `digest`: keep each stub's hash (16 bytes a stub) so that `digest` can answer;
   * `documentHashes`: keep the document hash each stub is added with, for `withDocumentHashes`.
   */
  constructor(options: { digest?: boolean; documentHashes?: boolean } = {}) {
    this.hashes = options.digest ? Buffer.alloc(HASH_BYTES * 1024) : undefined;
    this.documentHashes = options.documentHashes ? Buffer.alloc(DOCUMENT_HASH_CHARS * 1024) : undefined;
  }

  get length(): number {
    return this.count;
  }

  /** `documentHash`: its document's (document-hash.ts), kept when made with `documentHashes`. */
  add(stub: PrismicDocument, documentHash?: string): void {
    const json = JSON.stringify(stub);
    this.pending.push(json);
    if (this.hashes) this.keepHash(json);
    if (this.documentHashes) this.keepDocumentHash(documentHash);
    this.count++;
    if (this.pending.length >= PER_CHUNK) this.seal();
  }

  /**
   * One hash of every stub, whatever the order they were listed in (the API's pages arrive as they
   * are answered): what the listings read of the streamed documents (render-inputs.ts).
   */
  digest(): string {
    const { hashes } = this;
    if (!hashes) throw new Error("ListedStubs made without { digest: true }");
    const each = Array.from({ length: this.count }, (_, i) =>
      hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES),
    );
    const all = createHash("sha256");
    for (const hash of each.sort(Buffer.compare)) all.update(hash);
    return all.digest("hex").slice(0, 32);
  }

  private keepHash(json: string): void {
    this.hashes = room(this.hashes as Buffer, (this.count + 1) * HASH_BYTES);
    createHash("sha256")
      .update(json)
      .digest()
      .copy(this.hashes, this.count * HASH_BYTES, 0, HASH_BYTES);
  }

  /**
   * Keeps `hash` in the stub's place; a place left blank (spaces) when there is none, or it is not
   * one document-hash.ts makes (a record an older build wrote): `withDocumentHashes` then gives none.
   */
  private keepDocumentHash(hash: string | undefined): void {
    const at = this.count * DOCUMENT_HASH_CHARS;
    this.documentHashes = room(this.documentHashes as Buffer, at + DOCUMENT_HASH_CHARS);
    const ours = hash !== undefined && hash.length === DOCUMENT_HASH_CHARS && /^[0-9a-f]+$/.test(hash);
    this.documentHashes.write(ours ? hash : BLANK_HASH, at, "latin1");
  }

  /**
   * Each stub (as the iterator reads them) with the document hash it was added with; undefined
   * where it was added without one (the caller hashes it again).
   */
  *withDocumentHashes(): IterableIterator<[PrismicDocument, string | undefined]> {
    const hashes = this.documentHashes;
    if (!hashes) throw new Error("ListedStubs made without { documentHashes: true }");
    let at = 0;
    for (const stub of this) {
      const hash = hashes.toString("latin1", at, at + DOCUMENT_HASH_CHARS);
      yield [stub, hash === BLANK_HASH ? undefined : hash];
      at += DOCUMENT_HASH_CHARS;
    }
  }

  /**
   * Each stub, parsed a chunk at a time, each chunk let go once its stubs are read: nothing is
   * held after (reading the stubs again throws).
   */
  *drain(): IterableIterator<PrismicDocument> {
    yield* this;
    this.close();
  }

  /** Each stub, parsed again a chunk at a time: no more than a chunk's objects live at once. */
  *[Symbol.iterator](): IterableIterator<PrismicDocument> {
    if (this.taken) throw new Error("the stubs were read once (drain) or closed");
    this.seal();
    yield* stubsAt(this.spans, (offset, length, target) => this.file.readInto(offset, length, target));
  }

  /** Lets go of the temporary file (a build that fails never reads the stubs to the end). */
  close(): void {
    this.file.close();
    this.taken = true;
  }

  private seal(): void {
    if (this.pending.length === 0) return;
    const bytes = utf8.encode(`{"results":[${this.pending.join(",")}]}`);
    this.pending = [];
    this.spans.push([this.file.append(bytes), bytes.byteLength]);
  }
}

/**
 * The stubs of the chunks at `spans` (offset, length: each a search answer's bytes), each read with
 * `read` and parsed in turn, each chunk let go once its stubs are read.
 */
function* stubsAt(
  spans: readonly (readonly [number, number])[],
  read: (offset: number, length: number, target: Uint8Array) => void,
): IterableIterator<PrismicDocument> {
  for (const [offset, length] of spans) {
    const chunk = new Uint8Array(length);
    read(offset, length, chunk);
    yield* documentsOfAnswers([chunk.buffer]);
  }
}
