import { readdirSync, readlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { SpillFile } from "#worker/build/spill-file.ts";

/** The descriptors of this process open on a file of `name` that no longer has a name. */
const unlinkedOpen = (name: string) =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).includes(`pressroom-${name}-`);
    } catch {
      return false;
    }
  });

/** `count` entries of varied lengths (1–400 bytes), each of its own bytes. */
function entries(count: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => Buffer.from(`${i}:${"x".repeat((i * 7919) % 400)}`));
}

let open: SpillFile[] = [];
const spill = (name: string) => {
  const file = new SpillFile(name);
  open.push(file);
  return file;
};
afterEach(() => {
  for (const file of open) file.close();
  open = [];
});

describe("a build's temporary file", () => {
  it("gives back every entry as appended, in any order", () => {
    const file = spill("entries-test");
    const written = entries(5_000);
    const at = written.map((bytes) => file.append(bytes));
    expect(file.size).toBe(written.reduce((sum, bytes) => sum + bytes.length, 0));
    const order = written.map((_, i) => (i * 2_654_435_761) % written.length); // a permutation
    const wrong = order.filter((i) => {
      const bytes = written[i] as Buffer;
      const read = Buffer.alloc(bytes.length + 2);
      file.readInto(at[i] as number, bytes.length, read, 1);
      return !read.subarray(1, -1).equals(bytes);
    });
    expect(wrong).toEqual([]);
    // Past its end: said, never a short read taken for an entry.
    expect(() => file.readInto(file.size - 2, 4, Buffer.alloc(4))).toThrow(/cut short/);
  });

  it("has no name from the start, and is gone from the process once closed", () => {
    const file = new SpillFile("unlinked-test");
    file.append(Buffer.from("kept only while open"));
    const fds = unlinkedOpen("unlinked-test");
    expect(fds).toHaveLength(1);
    expect(readlinkSync(`/proc/self/fd/${fds[0]}`)).toMatch(/ \(deleted\)$/);
    file.close();
    expect(unlinkedOpen("unlinked-test")).toHaveLength(0);
    expect(() => file.readInto(0, 4, Buffer.alloc(4))).toThrow(/after it was closed/);
  });
});
