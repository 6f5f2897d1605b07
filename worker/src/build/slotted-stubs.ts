import type { PrismicDocument } from "@prismicio/client";
import { LISTING_SLOTS, listingSlotOf, type SlotRange } from "#content/dependencies.ts";
import { SpillFile } from "./spill-file.ts";

/** Bytes a slot gathers before they are written at its place in the file. */
const FLUSH_BYTES = 16 * 1024;
/** Bytes read back at a time. */
const READ_BYTES = 1 << 20;

/**
 * A build's stubs again, ordered by listing slot (`listingSlotOf`) in a temporary file, so that a
 * divided sitemap's part reads its own slots' stubs and no others: at 100,000 pages a sitemap of 64
 * parts, each passing over every stub, took 13 s of a build. Made in two passes over `stubs` (each
 * slot's bytes counted, then each stub written at its slot's place, a few KB per slot gathered
 * first), as newline-separated JSON; nothing per stub stays in memory. `close` lets go of the file.
 */
export class SlottedStubs {
  private readonly file = new SpillFile("slotted");
  /** Where each slot's stubs start in the file; the last is where the last slot's end. */
  private readonly starts: number[] = [0];

  constructor(stubs: Iterable<PrismicDocument>) {
    const sizes = new Array<number>(LISTING_SLOTS).fill(0);
    for (const stub of stubs) {
      const slot = listingSlotOf(stub.id);
      sizes[slot] = (sizes[slot] as number) + Buffer.byteLength(JSON.stringify(stub)) + 1;
    }
    for (const size of sizes) this.starts.push((this.starts.at(-1) ?? 0) + size);
    const at = this.starts.slice(0, LISTING_SLOTS);
    const gathered: string[][] = Array.from({ length: LISTING_SLOTS }, () => []);
    const gatheredBytes = new Array<number>(LISTING_SLOTS).fill(0);
    const flush = (slot: number) => {
      const bytes = Buffer.from((gathered[slot] as string[]).join(""));
      this.file.writeAt(at[slot] as number, bytes);
      at[slot] = (at[slot] as number) + bytes.length;
      gathered[slot] = [];
      gatheredBytes[slot] = 0;
    };
    try {
      for (const stub of stubs) {
        const slot = listingSlotOf(stub.id);
        const line = `${JSON.stringify(stub)}\n`;
        (gathered[slot] as string[]).push(line);
        gatheredBytes[slot] = (gatheredBytes[slot] as number) + line.length;
        if ((gatheredBytes[slot] as number) >= FLUSH_BYTES) flush(slot);
      }
      for (let slot = 0; slot < LISTING_SLOTS; slot++)
        if ((gathered[slot] as string[]).length > 0) flush(slot);
      // The second pass must have met the stubs the first counted.
      for (let slot = 0; slot < LISTING_SLOTS; slot++)
        if (at[slot] !== this.starts[slot + 1])
          throw new Error(`the build's stubs changed between two passes over them (listing slot ${slot})`);
    } catch (error) {
      this.file.close();
      throw error;
    }
  }

  /** The stubs of the slots in `range`, read back a megabyte at a time. */
  *inSlots(range: SlotRange): IterableIterator<PrismicDocument> {
    const end = this.starts[range.to] as number;
    const decoder = new TextDecoder();
    let offset = this.starts[range.from] as number;
    let rest = "";
    while (offset < end) {
      const length = Math.min(READ_BYTES, end - offset);
      const chunk = new Uint8Array(length);
      this.file.readInto(offset, length, chunk);
      offset += length;
      const lines = (rest + decoder.decode(chunk, { stream: offset < end })).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) yield JSON.parse(line) as PrismicDocument;
    }
  }

  close(): void {
    this.file.close();
  }
}
