import { createHash } from "node:crypto";
import type { PrismicDocument } from "@prismicio/client";
import { documentsOfAnswers } from "./search-answers.ts";
import { SpillFile } from "./spill-file.ts";

const PER_CHUNK = 100;
/** Bytes of each stub's hash that `digest` combines. */
const HASH_BYTES = 16;
const utf8 = new TextEncoder();
/** A stub's lists, empty in most (document-hash.ts `stubOf`). */
const LISTS = ["tags", "slugs", "linked_documents", "alternate_languages"] as const;
const NONE: readonly never[] = Object.freeze([]);
const NO_DATA: Readonly<Record<string, never>> = Object.freeze({});
const isEmptyList = (value: unknown) => Array.isArray(value) && value.length === 0;
const isEmptyRecord = (value: unknown) =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/**
 * Every document a build listed, as listings read it (document-hash.ts `stub`), held until the
 * listings render: as UTF-8 JSON in a search answer's shape (`{"results":[…]}`), 100 stubs a chunk.
 * A rebuild holds the documents of its versions' listing so too, until every version is known.
 * Bytes sit outside the JavaScript heap, at their size: as objects, 100,000 stubs held ~100 MB of
 * heap (and a structured clone as large again to hand them to a render thread), as bytes ~30 MB. A
 * render thread is handed copies, moved to it and parsed there like any search answer. With `spill`,
 * the chunks wait in a temporary file (spill-file.ts) and are read back one at a time: nothing is
 * held per stub but its hash; `close` lets go of the file (and reading or taking the stubs to the
 * end does).
 */
export class ListedStubs {
  private readonly chunks: ArrayBuffer[] = [];
  /** With `spill`: the file, and where each chunk is in it (offset, length). */
  private readonly file: SpillFile | undefined;
  private readonly spans: [number, number][] = [];
  private pending: string[] = [];
  private count = 0;
  private taken = false;
  /** Each stub's hash, end to end (`HASH_BYTES` each), when made to answer `digest`. */
  private hashes: Buffer | undefined;

  /** `digest`: keep each stub's hash (16 bytes a stub) so that `digest` can answer. */
  constructor(options: { digest?: boolean; spill?: boolean } = {}) {
    this.hashes = options.digest ? Buffer.alloc(HASH_BYTES * 1024) : undefined;
    this.file = options.spill ? new SpillFile("stubs") : undefined;
  }

  get length(): number {
    return this.count;
  }

  add(stub: PrismicDocument): void {
    const json = JSON.stringify(stub);
    this.pending.push(json);
    if (this.hashes) this.keepHash(json);
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
    let hashes = this.hashes as Buffer;
    if ((this.count + 1) * HASH_BYTES > hashes.length) {
      const grown = Buffer.alloc(hashes.length * 2);
      hashes.copy(grown);
      this.hashes = hashes = grown;
    }
    createHash("sha256")
      .update(json)
      .digest()
      .copy(hashes, this.count * HASH_BYTES, 0, HASH_BYTES);
  }

  /** Copies of the chunks, to move to a render thread (`RenderPool.render`'s answers). */
  answers(): ArrayBuffer[] {
    this.readable();
    return this.file ? [...this.chunksRead()] : this.chunks.map((chunk) => chunk.slice(0));
  }

  /**
   * The chunks themselves, to move to a render thread: nothing is held after (no copy made; reading
   * the stubs again throws).
   */
  take(): ArrayBuffer[] {
    this.seal();
    if (this.file) {
      const chunks = [...this.chunksRead()];
      this.close();
      return chunks;
    }
    this.taken = true;
    return this.chunks.splice(0);
  }

  /**
   * Each stub, parsed a chunk at a time, each chunk let go once its stubs are read: nothing is
   * held after (reading the stubs again throws).
   */
  *drain(): IterableIterator<PrismicDocument> {
    this.readable();
    this.taken = true;
    if (this.file) {
      for (const chunk of this.chunksRead()) yield* documentsOfAnswers([chunk]);
      this.close();
      return;
    }
    for (let chunk = this.chunks.shift(); chunk !== undefined; chunk = this.chunks.shift())
      yield* documentsOfAnswers([chunk]);
  }

  /** Each stub, parsed again a chunk at a time: no more than a chunk's objects live at once. */
  *[Symbol.iterator](): IterableIterator<PrismicDocument> {
    this.readable();
    for (const chunk of this.file ? this.chunksRead() : this.chunks) yield* documentsOfAnswers([chunk]);
  }

  /**
   * Every stub, parsed a chunk at a time, as listings read them from memory (`createMemorySource`):
   * each empty list and empty `data` one shared frozen value, and each document's type and language
   * one string: most of a stub's objects are those lists, and 100,000 stubs are parsed at once.
   */
  documents(): PrismicDocument[] {
    const documents: PrismicDocument[] = [];
    const words = new Map<string, string>();
    const word = (text: string) => {
      const known = words.get(text);
      if (known !== undefined) return known;
      words.set(text, text);
      return text;
    };
    for (const doc of this) {
      const fields = doc as unknown as Record<string, unknown>;
      for (const field of LISTS) if (isEmptyList(fields[field])) fields[field] = NONE;
      if (isEmptyRecord(doc.data)) fields.data = NO_DATA;
      doc.type = word(doc.type);
      doc.lang = word(doc.lang);
      if (doc.last_publication_date === doc.first_publication_date)
        doc.last_publication_date = doc.first_publication_date;
      documents.push(doc);
    }
    return documents;
  }

  /** Lets go of the temporary file, with `spill` (a build that fails never reads the stubs to the end). */
  close(): void {
    this.file?.close();
    this.taken = true;
  }

  private readable(): void {
    if (this.taken) throw new Error("the stubs were handed on (take), read once (drain) or closed");
    this.seal();
  }

  /** With `spill`: each chunk read back from the file, one at a time. */
  private *chunksRead(): IterableIterator<ArrayBuffer> {
    const file = this.file as SpillFile;
    for (const [offset, length] of this.spans) {
      const chunk = new ArrayBuffer(length);
      file.readInto(offset, length, new Uint8Array(chunk));
      yield chunk;
    }
  }

  private seal(): void {
    if (this.pending.length === 0) return;
    const bytes = utf8.encode(`{"results":[${this.pending.join(",")}]}`);
    this.pending = [];
    if (this.file) {
      this.spans.push([this.file.append(bytes), bytes.byteLength]);
      return;
    }
    this.chunks.push(
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
        ? (bytes.buffer as ArrayBuffer)
        : (bytes.slice().buffer as ArrayBuffer),
    );
  }
}
