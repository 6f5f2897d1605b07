import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { islandsIn } from "#web/islands-in.ts";

// A full collection on demand: V8's `gc`, exposed once for this file's process.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("islandsIn (what a page hydrates, for the JavaScript budget)", () => {
  it("names each island a page contains, once each", () => {
    const html =
      '<div data-island="cookie-notice"></div><nav data-island="mobile-menu"></nav>' +
      "<p>data-island=&quot;carousel&quot; as text, escaped by React</p>" +
      '<div data-island="cookie-notice"></div>';
    expect([...islandsIn(html)]).toEqual(["cookie-notice", "mobile-menu"]);
  });

  it("keeps no page alive through the names it answers", () => {
    // A build holds each page's island names until its batch is written. A name of 13 characters
    // or more taken from a match is, in V8, a view into the page's text: every page of the batch
    // would stay alive with its names.
    const pages = 20;
    const pageOf = (index: number) =>
      `<p>${"Côte d’Ivoire ".repeat(40_000)}${index}</p><div data-island="cookie-notice"></div>`;
    islandsIn(pageOf(0)); // warm up: compile, caches
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = Array.from({ length: pages }, (_, index) => islandsIn(pageOf(index)));
    gc();
    const held = process.memoryUsage().heapUsed - before;
    expect(kept.every((names) => names.has("cookie-notice"))).toBe(true);
    // Each page is about 1.1 MB (UTF-16): 20 pages held by their names would be 22 MB.
    expect(held).toBeLessThan(5_000_000);
  });
});
