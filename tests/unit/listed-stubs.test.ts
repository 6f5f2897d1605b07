import { readFileSync } from "node:fs";
import type { PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { documentHash, stub } from "#worker/build/document-hash.ts";
import { ListedStubs } from "#worker/build/listed-stubs.ts";

const FIXTURES = new URL("../support/fixtures/", import.meta.url).pathname;
/**
 * Documents as Prismic wrote them: a real `documents/search` answer's results (prismic-client commit
 * e9e68554, test/fixtures/search.json, trimmed: tests/support/fixtures/SOURCES.md).
 */
const REAL = (
  JSON.parse(readFileSync(`${FIXTURES}prismic-client-2017.search.trimmed.json`, "utf8")) as {
    results: PrismicDocument[];
  }
).results;

/** `count` documents, the real ones in turn, each with an id and a line of data of its own. */
function documents(count: number): PrismicDocument[] {
  return Array.from({ length: count }, (_, i) => {
    const real = REAL[i % REAL.length] as PrismicDocument;
    return { ...real, id: `${real.id}${i}`, data: { ...real.data, line: `“${i}” ${"é".repeat(i % 4)}` } };
  });
}

describe("the documents a build listed, held in its temporary file for the index", () => {
  it("gives back each stub with the document hash it was added with, in order, over many chunks", () => {
    // More than a chunk (100 stubs) and more than the hashes' first 1,024 places.
    const docs = documents(2_345);
    const stubs = new ListedStubs({ digest: true, documentHashes: true });
    try {
      for (const doc of docs) stubs.add(stub(doc), documentHash(doc));
      const read = [...stubs.withDocumentHashes()];
      expect(read).toHaveLength(docs.length);
      expect(read.map(([doc]) => doc.id)).toEqual(docs.map((doc) => doc.id));
      // The hash is the whole document's, not its stub's: the index compares documents by it.
      expect(read.map(([, hash]) => hash)).toEqual(docs.map((doc) => documentHash(doc)));
      expect(read[7]?.[1]).not.toBe(documentHash(stub(docs[7] as PrismicDocument)));
      // The listings read the same stubs, unchanged by the hashes kept beside them.
      expect([...stubs].map((doc) => doc.id)).toEqual(docs.map((doc) => doc.id));
    } finally {
      stubs.close();
    }
  });

  it("gives a stub added without a hash of ours back without one, and the others' as given", () => {
    const docs = documents(4);
    const [first, second, third, fourth] = docs as [
      PrismicDocument,
      PrismicDocument,
      PrismicDocument,
      PrismicDocument,
    ];
    const stubs = new ListedStubs({ documentHashes: true });
    const plain = new ListedStubs();
    try {
      // A record an older build wrote may hold none, or a hash of another shape: the index hashes
      // such a document again (diff-build.ts `indexed`), never takes the wrong bytes for its hash.
      stubs.add(stub(first), documentHash(first));
      stubs.add(stub(second));
      stubs.add(stub(third), "a".repeat(64));
      stubs.add(stub(fourth), documentHash(fourth));
      expect([...stubs.withDocumentHashes()].map(([doc, hash]) => [doc.id, hash])).toEqual([
        [first.id, documentHash(first)],
        [second.id, undefined],
        [third.id, undefined],
        [fourth.id, documentHash(fourth)],
      ]);
      plain.add(stub(first));
      expect(() => [...plain.withDocumentHashes()]).toThrow(/without \{ documentHashes: true \}/);
    } finally {
      stubs.close();
      plain.close();
    }
  });
});
