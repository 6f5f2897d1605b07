import { SpillFile } from "./spill-file.ts";

const PER_CHUNK = 100;
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** What the worker's index keeps of a route's last render beside its manifest entry. */
export interface KnownRoute {
  /**
   * What the render read (dependency-index.ts): a change to any of them renders the route again.
   * None for a page kept as stored: its render is the one the index recorded, with its dependencies.
   */
  dependencies?: string[];
  /** What it was rendered from (render-inputs.ts), when a build rendered it. */
  inputs?: string;
}

/** A line of the file: `[route, dependencies or null, inputs]`, inputs left out when there are none. */
type Line = [route: string, dependencies: string[] | null, inputs?: string];

/**
 * Each route's dependencies and inputs, as a build that feeds the worker's index renders or keeps
 * it, held until the index is written: as UTF-8 JSON, 100 routes a chunk, in a temporary file
 * (spill-file.ts), read back a chunk at a time. As arrays in memory they took 13 MB of heap at
 * 30,000 routes (a heap snapshot: the arrays 9.6 MB, the strings, one copy of each, 3.9 MB), so
 * ~45 MB at 100,000, for a build that reads them only as it writes the index. `close` lets go of
 * the file.
 */
export class RouteEntries {
  private readonly file = new SpillFile("routes");
  /** Where each chunk is in the file: offset, length. */
  private readonly spans: [number, number][] = [];
  private pending: string[] = [];

  add(route: string, known: KnownRoute): void {
    const line: Line = [route, known.dependencies ?? null];
    if (known.inputs !== undefined) line.push(known.inputs);
    this.pending.push(JSON.stringify(line));
    if (this.pending.length >= PER_CHUNK) this.seal();
  }

  /**
   * Each route and what it was rendered with, in the order added, parsed a chunk at a time: no
   * more than a chunk's objects live at once. A route added twice comes twice.
   */
  *[Symbol.iterator](): IterableIterator<[route: string, known: KnownRoute]> {
    this.seal();
    for (const [offset, length] of this.spans) {
      const chunk = new Uint8Array(length);
      this.file.readInto(offset, length, chunk);
      for (const [route, dependencies, inputs] of JSON.parse(utf8Decoder.decode(chunk)) as Line[]) {
        const known: KnownRoute = {};
        if (dependencies) known.dependencies = dependencies;
        if (inputs !== undefined) known.inputs = inputs;
        yield [route, known];
      }
    }
  }

  /** Lets go of the temporary file; reading after throws. */
  close(): void {
    this.file.close();
  }

  private seal(): void {
    if (this.pending.length === 0) return;
    const bytes = utf8.encode(`[${this.pending.join(",")}]`);
    this.pending = [];
    this.spans.push([this.file.append(bytes), bytes.byteLength]);
  }
}
