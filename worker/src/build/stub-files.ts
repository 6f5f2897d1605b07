import type { PrismicDocument } from "@prismicio/client";
import { documentsOfAnswers } from "./search-answers.ts";
import { readAt } from "./spill-file.ts";

/**
 * A publish's listing stubs where a render thread of the same process reads them (index-stubs.ts
 * `forThread`): each type's temporary file by its descriptor (threads share the process's open
 * files), as the offset and length of each chunk (a search answer's bytes, listed-stubs.ts).
 */
export interface StubFiles {
  types: {
    type: string;
    fd: number;
    spans: readonly (readonly [number, number])[];
  }[];
}

/**
 * Each type's stubs, read again from its file a chunk at a time at each pass (no more than a
 * chunk's objects live at once): what the publish's listings read on the main thread (index-stubs.ts
 * `byType`). The files must stay open until the reading ends.
 */
export function stubsByType(files: StubFiles): Map<string, Iterable<PrismicDocument>> {
  return new Map(
    files.types.map(({ type, fd, spans }) => [
      type,
      {
        *[Symbol.iterator]() {
          yield* stubsAt(spans, (offset, length, target) => readAt(fd, offset, length, target));
        },
      },
    ]),
  );
}

/**
 * The stubs of the chunks at `spans` (offset, length: each a search answer's bytes), each read with
 * `read` and parsed in turn, each chunk let go once its stubs are read: what `ListedStubs` iterates
 * on the thread that wrote them (through its file, which refuses a read once closed), and a render
 * thread through the file's descriptor.
 */
export function* stubsAt(
  spans: readonly (readonly [number, number])[],
  read: (offset: number, length: number, target: Uint8Array) => void,
): IterableIterator<PrismicDocument> {
  for (const [offset, length] of spans) {
    const chunk = new Uint8Array(length);
    read(offset, length, chunk);
    yield* documentsOfAnswers([chunk.buffer]);
  }
}
