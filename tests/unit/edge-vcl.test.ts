/**
 * The shipped VCL holds the edge's 503 page as text (Varnish cannot read the site's
 * code): it must stay the site's built-in fallback page, as `edgeUnavailablePage()` makes it.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { edgeUnavailablePage } from "#edge";

const vcl = readFileSync(new URL("../../infra/varnish/default.vcl", import.meta.url), "utf8");

describe("infra/varnish/default.vcl", () => {
  it("answers the site's fallback page when the site server is down and it holds no copy", () => {
    const synthetic = /synthetic\(\{"([\s\S]*?)"\}\);/.exec(vcl)?.[1];
    expect(synthetic).toBe(edgeUnavailablePage());
    // A VCL long string ends at the first `"}`: the page must never contain one.
    expect(edgeUnavailablePage()).not.toContain('"}');
  });
});
