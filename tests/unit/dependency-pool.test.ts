import { describe, expect, it } from "vitest";
import type { IndexedRoute } from "#worker/publish/dependency-index.ts";
import { dependencyPool } from "#worker/publish/dependency-pool.ts";

/** Entries as a publish gets them: each parsed from its own JSON (the index's, a child job's). */
const parsed = (dependencies: string[], key: string): IndexedRoute =>
  JSON.parse(JSON.stringify({ key, hash: "h", status: 200, dependencies })) as IndexedRoute;

describe("dependencyPool (one copy of each dependency string per publish)", () => {
  it("leaves every entry's dependencies as they were, in order, whatever the others hold", () => {
    const pooled = dependencyPool();
    const first = pooled(parsed(["doc:settings", "url:about", "sees:about:/about"], "a/index.html"));
    const second = pooled(parsed(["url:about", "doc:settings", "type:price_list"], "b/index.html"));
    const third = pooled(parsed([], "c/index.html"));
    expect(first.dependencies).toEqual(["doc:settings", "url:about", "sees:about:/about"]);
    expect(second.dependencies).toEqual(["url:about", "doc:settings", "type:price_list"]);
    expect(third.dependencies).toEqual([]);
    expect([first.key, second.key, third.key]).toEqual(["a/index.html", "b/index.html", "c/index.html"]);
  });
});
