import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets a heap grow past what its last full collection kept, in percent: 30 % is the most
 * V8 itself lets a heap of at most 256 MB grow (the render threads' `resourceLimits`). A main thread
 * would otherwise grow by a factor of up to 4 before collecting, which sets a worker's peak RSS
 * (docs/decisions/003-heap-growth.md).
 */
export const HEAP_GROWING_PERCENT = 30;

/**
 * The same for a one-shot build (`pressroom build`, `pressroom verify`), which renders every page once
 * and ends: a full collection every 30 % of growth costs it CPU for no lower peak. A worker keeps 30 %,
 * its peak being a fan-out's (docs/decisions/003-heap-growth.md).
 */
export const BUILD_HEAP_GROWING_PERCENT = 100;

/**
 * The same for a build's main thread while none of its render threads runs (`lowerHeapGrowth`): it
 * then holds every route's manifest entry and the last build's, and renders the listings at its end;
 * a rebuild after one publish of 100,000 pages peaked at 293 MB at 10 % against 312 MB at 30 %, for
 * no more CPU (docs/decisions/003-heap-growth.md).
 */
export const BUILD_ALONE_GROWING_PERCENT = 10;

/**
 * The size in MB of each half of the young generation of `pressroom build`'s and `pressroom verify`'s
 * main thread (V8's `--max-semi-space-size`). V8 reads it when a thread starts, so bin/pressroom.js
 * starts those commands again with it; the value is written there too, before any TypeScript loads
 * (tests/integration/build-process.test.ts keeps the two equal). Why 4:
 * docs/decisions/004-semi-space-flag.md.
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
  if (operatorSet(execArgv)) return;
  setGrowth(percent);
}

/** The growth this module last set, in percent; undefined while V8 computes its own factor. */
let growing: number | undefined;

function setGrowth(percent: number | undefined): void {
  // 0 hands the factor back to V8 (it applies the flag only when positive).
  setFlagsFromString(`--heap-growing-percent=${percent ?? 0}`);
  growing = percent;
}

const operatorSet = (execArgv: readonly string[]) =>
  execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg));

/**
 * Lowers the growth to `percent` (`BUILD_ALONE_GROWING_PERCENT`) until the answer is called, which
 * sets back what was set before, V8's own factor when nothing was. For a build while none of its
 * render threads runs: its main thread alone then holds every route (before they start, and after
 * they end while it renders the listings), and a 100 % growth let a 100,000-page
 * build's heap reach twice what it kept (docs/decisions/003-heap-growth.md). Nothing when the
 * command line set the growth or a lower one is set already.
 */
export function lowerHeapGrowth(
  percent = BUILD_ALONE_GROWING_PERCENT,
  execArgv: readonly string[] = process.execArgv,
): () => void {
  if (operatorSet(execArgv) || (growing !== undefined && growing <= percent)) return () => {};
  const before = growing;
  setGrowth(percent);
  // Set back only if nothing changed it meanwhile (another build of this process lowered it too).
  return () => {
    if (growing === percent) setGrowth(before);
  };
}
