import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { documentCache } from "#web/content/document-cache.ts";

// A full collection on demand: V8's `gc`, exposed once for this file's process.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const oldSpaceUsed = () =>
  getHeapSpaceStatistics().find((space) => space.space_name === "old_space")?.space_used_size ?? 0;

describe("documentCache (a value computed from a document, kept as long as the document)", () => {
  it("answers what was set for the same object only, and no copy or serialisation of it sees it", () => {
    const links = documentCache<string[]>("links");
    const notices = documentCache<string>("notices");
    const doc = { id: "Z9nW", data: { title: "Pricing" } };
    const other = { id: "Z9nW", data: { title: "Pricing" } };
    links.set(doc, ["a", "b"]);
    notices.set(doc, "none");
    expect(links.get(doc)).toEqual(["a", "b"]);
    expect(notices.get(doc)).toBe("none");
    expect(links.get(other)).toBeUndefined();
    // A document is hashed, copied and sent to other threads: the value must not travel with it.
    expect(JSON.stringify(doc)).toBe(JSON.stringify(other));
    expect(Object.keys(doc)).toEqual(["id", "data"]);
    expect(links.get({ ...doc })).toBeUndefined();
    expect(links.get(structuredClone(doc))).toBeUndefined();
    expect(doc).toEqual(other);
  });

  it("keeps a value for a frozen document too", () => {
    const cache = documentCache<number>("frozen");
    const doc = Object.freeze({ id: "frozen" });
    cache.set(doc, 42);
    expect(cache.get(doc)).toBe(42);
    expect(cache.get(Object.freeze({ id: "frozen" }))).toBeUndefined();
  });

  it("lets a value die young with its document", () => {
    // A build parses each page's document just before rendering it, and drops it after: its
    // normalisation, notices and links must not outlive it, or they fill the render thread's old
    // generation (as values held in a module-level WeakMap do).
    const cache = documentCache<number[]>("young");
    const alive: object[] = [];
    gc();
    gc();
    const before = oldSpaceUsed();
    for (let i = 0; i < 2000; i++) {
      const doc = { id: i, data: new Array(2000).fill(i) };
      cache.set(doc, new Array(2000).fill(i + 1)); // 16 KB a value, 32 MB in all
      alive.push(doc); // a few documents in use at a time, as a render thread's batch
      if (alive.length > 50) alive.shift();
    }
    expect(alive).toHaveLength(50);
    expect(oldSpaceUsed() - before).toBeLessThan(3_000_000);
  });
});
