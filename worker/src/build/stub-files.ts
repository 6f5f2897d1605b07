import { readSync } from "node:fs";
import type { PrismicDocument } from "@prismicio/client";
import { documentsOfAnswers } from "./search-answers.ts";

/**
 * A publish's listing stubs where a render thread of the same process reads them (index-stubs.ts
 * `forThread`): each type's temporary file by its descriptor (threads share the process's open
 * files), as the offset and length of each chunk (a search answer's bytes, listed-stubs.ts), and
 * the type's few stubs held in memory (a canonical override naming a document), sent along.
 */
export interface StubFiles {
  types: {
    type: string;
    fd: number;
    spans: readonly (readonly [number, number])[];
    held: PrismicDocument[];
  }[];
}

/**
 * Each type's stubs, read again from its file a chunk at a time at each pass (no more than a
 * chunk's objects live at once), its held stubs after: what the publish's listings read on the main
 * thread (index-stubs.ts `byType`). The files must stay open until the reading ends.
 */
export function stubsByType(files: StubFiles): Map<string, Iterable<PrismicDocument>> {
  return new Map(
    files.types.map(({ type, fd, spans, held }) => [
      type,
      {
        *[Symbol.iterator]() {
          for (const [offset, length] of spans) yield* documentsOfAnswers([readChunk(fd, offset, length)]);
          yield* held;
        },
      },
    ]),
  );
}

function readChunk(fd: number, offset: number, length: number): ArrayBuffer {
  const chunk = new Uint8Array(length);
  for (let read = 0; read < length; ) {
    const got = readSync(fd, chunk, read, length - read, offset + read);
    if (got === 0) throw new Error("a publish's temporary file of stubs was cut short");
    read += got;
  }
  return chunk.buffer;
}
