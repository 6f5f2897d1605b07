/**
 * A build's stubs ordered by listing slot (worker/src/build/slotted-stubs.ts): a range of slots reads
 * back exactly the stubs whose id falls in it, byte for byte as given (text beyond ASCII included,
 * read across the megabyte a read takes), and stubs that change between the two passes that order
 * them are refused.
 */
import type { PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { LISTING_SLOTS, listingSlotOf } from "#content/dependencies.ts";
import { SlottedStubs } from "#worker/build/slotted-stubs.ts";

/** `count` stubs, some with text beyond ASCII; ~400 bytes each, so 5,000 pass the read size. */
const stubs = (count: number): PrismicDocument[] =>
  Array.from(
    { length: count },
    (_, i) =>
      ({
        id: `Stub${String(i).padStart(6, "0")}`,
        uid: i % 7 === 0 ? `crème-brûlée-${i}` : `page-${i}`,
        url: `/page-${i}`,
        type: i % 10 === 0 ? "price_list" : "page",
        last_publication_date: "2026-11-30T10:00:00+0000",
        data: { note: "x".repeat(300), ...(i % 11 === 0 ? { title: "日本語のページ" } : {}) },
      }) as unknown as PrismicDocument,
  );

describe("SlottedStubs", () => {
  it("reads back each range of slots' stubs, and only theirs, as they were given", () => {
    const given = stubs(5_000);
    const slotted = new SlottedStubs(given);
    try {
      const byId = new Map(given.map((stub) => [stub.id, stub]));
      const seen = new Set<string>();
      for (const width of [LISTING_SLOTS, 64, 1]) {
        seen.clear();
        for (let from = 0; from < LISTING_SLOTS; from += width) {
          for (const stub of slotted.inSlots({ from, to: from + width })) {
            const slot = listingSlotOf(stub.id);
            expect(slot >= from && slot < from + width).toBe(true);
            expect(stub).toEqual(byId.get(stub.id));
            expect(seen.has(stub.id)).toBe(false);
            seen.add(stub.id);
          }
        }
        expect(seen.size).toBe(given.length);
      }
      // Read again: the file stays until closed.
      expect([...slotted.inSlots({ from: 0, to: LISTING_SLOTS })]).toHaveLength(given.length);
    } finally {
      slotted.close();
    }
  });

  it("reads nothing of an empty site, and refuses stubs that change between its two passes", () => {
    const empty = new SlottedStubs([]);
    expect([...empty.inSlots({ from: 0, to: LISTING_SLOTS })]).toEqual([]);
    empty.close();
    let pass = 0;
    const changing = {
      *[Symbol.iterator]() {
        pass++;
        yield* stubs(pass === 1 ? 10 : 11);
      },
    };
    expect(() => new SlottedStubs(changing)).toThrow(/changed between two passes/);
  });
});
