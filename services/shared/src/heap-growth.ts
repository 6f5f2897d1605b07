import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets a heap grow past what its last full collection kept, in percent: 30 % is the most
 * V8 itself lets a heap with a limit of at most 256 MB grow (the render threads' `resourceLimits`).
 * A main thread gets a factor of up to 4 on a machine with a few GB (its default heap limit is 4 GB
 * on 24 GiB), so a worker whose main heap kept 60 MB could grow to ~240 MB before collecting.
 * Measured on a 10,000-route fan-out: the publishing worker peaked at 278–383 MB of RSS without this
 * cap and at 259–285 MB with it, no slower (docs/benchmarks.md, "Heap growth").
 */
export const HEAP_GROWING_PERCENT = 30;

/**
 * The same for a one-shot build (`pressroom build`, `pressroom verify`), which renders every page once
 * and ends. A full collection every 30 % of growth cost a 10,000-page build 15–20 % of its CPU (V8's
 * concurrent marking of the whole heap, tens of times) for no lower peak: 60 % (CPU 20.2 s, median of
 * 5, against 22.9 s at 30 %). Since the build's main thread has a 4 MB young generation
 * (BUILD_SEMI_SPACE_MB), 100 %: CPU 10.95–11.51 s against 11.99–12.43 s at 60 %, lower in each of 3
 * triples, the helper threads 2.6–2.7 s against 3.3–3.4; peak RSS 220–230 MB against 210–213; 150 %
 * saved no more and peaked at 227–239 MB (docs/benchmarks.md, issue 22's seventh pass). A worker keeps
 * 30 %: its peak is a fan-out's, measured at that setting.
 */
export const BUILD_HEAP_GROWING_PERCENT = 100;

/**
 * The size in MB of each half of the young generation of `pressroom build`'s and `pressroom verify`'s
 * main thread (V8's `--max-semi-space-size`; the render threads' own are about the same). V8 reads it
 * when a thread starts, so bin/pressroom.js starts those commands again with it (the value is written
 * there too, before any TypeScript loads; tests/integration/build-process.test.ts holds the two to the
 * same value). Node 20 gives a main thread halves of up to 16 MB, Node 24 up to 64. Measured on a
 * 10,000-page build on Node 20 (docs/benchmarks.md, "Issue 22, seventh pass"): 5-7 % less CPU and
 * 12-28 MB less peak RSS with 4, the same 22-23 full collections of the main heap, 60 scavenges
 * instead of 20 and 12 % fewer page faults (the cause is not isolated: likely a young generation that
 * stays in the CPU's caches); on Node 24, a peak of 267-284 MB instead of 307-320.
 */
export const BUILD_SEMI_SPACE_MB = 4;

/**
 * Sets the growth factor of every V8 heap of this process (main thread and render threads) to
 * `1 + percent / 100` (V8's `--heap-growing-percent`, which replaces the factor V8 would compute),
 * without lowering any heap's limit: a large site still gets the heap it needs, it is collected
 * sooner on the way. V8 reads the flag at each collection, so it takes effect when set at start,
 * before the process has allocated much; `node --heap-growing-percent=N` on the command line wins
 * over it (NODE_OPTIONS refuses that flag).
 */
export function limitHeapGrowth(
  percent = HEAP_GROWING_PERCENT,
  execArgv: readonly string[] = process.execArgv,
): void {
  if (!Number.isInteger(percent) || percent <= 0)
    throw new RangeError(`heap growing percent must be a positive integer, got ${percent}`);
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
