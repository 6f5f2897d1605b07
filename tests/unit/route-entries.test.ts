import { describe, expect, it } from "vitest";
import { type KnownRoute, RouteEntries } from "#worker/build/route-entries.ts";

/** What a diff build records of `count` routes: rendered (with inputs), kept as stored, failed. */
function recorded(count: number): [string, KnownRoute][] {
  return Array.from({ length: count }, (_, i): [string, KnownRoute] => {
    const route = i === 0 ? "/" : `/page-${i}/“quoted” \\ ${"é".repeat(i % 3)}`;
    if (i % 3 === 0) return [route, { inputs: `inputs-${i}` }]; // kept: the index's dependencies
    if (i % 3 === 1)
      return [
        route,
        { dependencies: ["doc:settings", `doc:${i}`, `url:/page-${i + 1}`], inputs: `inputs-${i}` },
      ];
    return [route, { dependencies: [`doc:${i}`] }]; // failed: its own document, no inputs
  });
}

describe("each route's dependencies, held in a build's temporary file", () => {
  it("gives back every route as recorded, in order, over many chunks", () => {
    const entries = new RouteEntries();
    try {
      const written = recorded(1_234);
      for (const [route, known] of written) entries.add(route, known);
      expect([...entries]).toEqual(written);
    } finally {
      entries.close();
    }
  });

  it("gives back a route recorded twice twice, and nothing for none", () => {
    const entries = new RouteEntries();
    try {
      expect([...entries]).toEqual([]);
      entries.add("/about", { dependencies: ["doc:a"] });
      entries.add("/about", { dependencies: ["doc:b"], inputs: "x" });
      expect([...entries]).toEqual([
        ["/about", { dependencies: ["doc:a"] }],
        ["/about", { dependencies: ["doc:b"], inputs: "x" }],
      ]);
    } finally {
      entries.close();
    }
  });

  it("refuses to be read once closed", () => {
    const entries = new RouteEntries();
    entries.add("/", { dependencies: [] });
    entries.close();
    expect(() => [...entries]).toThrow(/temporary file was read after it was closed/);
  });
});
