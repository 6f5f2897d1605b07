import type { PrismicDocument } from "@prismicio/client";
import { documentsOfAnswers } from "./search-answers.ts";

const PER_CHUNK = 100;
const utf8 = new TextEncoder();

/**
 * Every document a build listed, as listings read it (document-hash.ts `stub`), held until the
 * listings render: as UTF-8 JSON in a search answer's shape (`{"results":[…]}`), 100 stubs a chunk.
 * A rebuild holds the documents of its versions' listing so too, until every version is known.
 * Bytes sit outside the JavaScript heap, at their size: as objects, 100,000 stubs held ~100 MB of
 * heap (and a structured clone as large again to hand them to a render thread), as bytes ~30 MB. A
 * render thread is handed copies, moved to it and parsed there like any search answer.
 */
export class ListedStubs {
  private readonly chunks: ArrayBuffer[] = [];
  private pending: PrismicDocument[] = [];
  private count = 0;

  get length(): number {
    return this.count;
  }

  add(stub: PrismicDocument): void {
    this.pending.push(stub);
    this.count++;
    if (this.pending.length >= PER_CHUNK) this.seal();
  }

  /** Copies of the chunks, to move to a render thread (`RenderPool.render`'s answers). */
  answers(): ArrayBuffer[] {
    this.seal();
    return this.chunks.map((chunk) => chunk.slice(0));
  }

  /** Each stub, parsed again a chunk at a time: no more than a chunk's objects live at once. */
  *[Symbol.iterator](): IterableIterator<PrismicDocument> {
    this.seal();
    for (const chunk of this.chunks) yield* documentsOfAnswers([chunk]);
  }

  private seal(): void {
    if (this.pending.length === 0) return;
    const bytes = utf8.encode(JSON.stringify({ results: this.pending }));
    this.chunks.push(
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
        ? (bytes.buffer as ArrayBuffer)
        : (bytes.slice().buffer as ArrayBuffer),
    );
    this.pending = [];
  }
}
