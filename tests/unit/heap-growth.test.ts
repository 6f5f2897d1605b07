import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { limitHeapGrowth, lowerHeapGrowth } from "#heap-growth";

const MODULE = fileURLToPath(new URL("../../services/shared/src/heap-growth.ts", import.meta.url));

/**
 * A process that keeps a set of 200,000 small objects alive (~30 MB of heap in use) and replaces it
 * 15 times (as a worker replaces its batches), then prints the largest old generation V8 committed
 * meanwhile, in MB: what the growth factor governs. (The young generation is sized apart, and
 * differently by each V8: up to 32 MB on Node 20, 128 MB on Node 24, the image's runtime.)
 * `apply`: it calls limitHeapGrowth first.
 */
function peakHeapMB(apply: boolean | string, nodeArgs: string[] = []): number {
  const program = `
    import { getHeapSpaceStatistics } from "node:v8";
    ${apply === true ? `(await import(${JSON.stringify(MODULE)})).limitHeapGrowth();` : apply || ""}
    let peak = 0;
    let live = [];
    // Each figure reaches its peak within 12 rounds (the same MB at 12 as at 30; at 8, V8's own
    // factor has not yet: 76 against 128 MB, 30 Nov, Node 20).
    for (let round = 0; round < 15; round++) {
      live = [];
      for (let i = 0; i < 200_000; i++) live.push({ key: "k" + i + ":" + round, pair: [i, i + 1] });
      const old = getHeapSpaceStatistics().find((space) => space.space_name === "old_space");
      peak = Math.max(peak, old?.space_size ?? 0);
    }
    console.log(Math.round(peak / 2 ** 20));
  `;
  const out = execFileSync(
    process.execPath,
    [...nodeArgs, "--import", "tsx", "--input-type=module", "-e", program],
    { encoding: "utf8" },
  );
  return Number(out.trim());
}

/** `peakHeapMB(true)`, measured once for the tests that compare against it (the same process each time). */
let limitedPeak: number | undefined;
const limitedPeakMB = () => (limitedPeak ??= peakHeapMB(true));

describe("limitHeapGrowth", () => {
  it("keeps a process's heap near what it keeps alive instead of letting it grow to several times that", () => {
    // A heap limit of 2 GB or more gives V8's own factor its top (4x) on any machine; with less
    // memory V8 picks a smaller limit and a smaller factor.
    const unlimited = peakHeapMB(false, ["--max-old-space-size=4096"]);
    const limited = limitedPeakMB();
    // ~30 MB stay in use: V8's own factor let the whole heap reach 148–177 MB, the cap ~89 MB (24 Nov,
    // Node 20); its old generation 128 MB against 49 MB (Node 20), 167 against 88 MB (Node 24).
    expect(limited).toBeLessThan(unlimited * 0.8);
  }, 60_000);

  it("leaves the growth an operator set on the command line", () => {
    const operators = peakHeapMB(true, ["--heap-growing-percent=300"]);
    const limited = limitedPeakMB();
    expect(operators).toBeGreaterThan(limited * 1.25);
  }, 60_000);

  it("lowers the growth for a while (a build's last stages) and sets back V8's own factor after", async () => {
    const lower = `const { lowerHeapGrowth } = await import(${JSON.stringify(MODULE)});`;
    const unlimited = ["--max-old-space-size=4096"];
    const lowered = peakHeapMB(`${lower} lowerHeapGrowth();`, unlimited);
    const restored = peakHeapMB(`${lower} lowerHeapGrowth()();`, unlimited);
    // 24 Nov figures above: ~50 MB lowered, ~100-128 MB with V8's own factor (Node 20).
    expect(lowered).toBeLessThan(restored * 0.8);
    // Set on the command line, the operator's value stands: nothing to lower, nothing to set back.
    expect(lowerHeapGrowth(30, ["--heap-growing-percent=300"])).toBeTypeOf("function");
  }, 60_000);

  it("refuses a growth that is not a positive whole percentage, with the value in the message", () => {
    expect(() => limitHeapGrowth(0, [])).toThrow(/positive integer, got 0/);
    expect(() => limitHeapGrowth(12.5, [])).toThrow(/got 12.5/);
  });
});
