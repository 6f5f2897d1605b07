import { describe, expect, it } from "vitest";
import { isSafeHref, isSafeImageSrc } from "#web/lib/safe-href.ts";

describe("isSafeHref: URLs as browsers read them", () => {
  it.each([
    ["/about", true],
    ["/price-list/websites?x=1#y", true],
    ["#main", true],
    ["https://example.org/", true],
    ["HTTP://example.org/", true],
    ["mailto:hello@example.org", true],
    ["tel:+15035550142", true],
    ["  /about  ", true],
    ["//evil.example", false],
    ["/\\evil.example", false],
    ["\\\\evil.example", false],
    ["\\/evil.example", false],
    ["/\t/evil.example", false],
    ["/\n/evil.example", false],
    ["/\r/evil.example", false],
    ["https:\\\\evil.example", true], // https://evil.example: an ordinary outside link, as the editor wrote it
    ["javascript:alert(1)", false],
    [" javascript:alert(1)", false],
    ["java\tscript:alert(1)", false],
    ["data:text/html,x", false],
    ["vbscript:x", false],
    ["ftp://example.org", false],
    ["", false],
    [null, false],
    [undefined, false],
  ])("%j → %s", (href, safe) => {
    expect(isSafeHref(href)).toBe(safe);
  });
});

describe("isSafeImageSrc", () => {
  it.each([
    ["https://images.prismic.io/repo/a.png?auto=format", true],
    ["http://127.0.0.1:4100/assets/images/logo.png", true],
    ["/assets/images/a.png", true],
    ["//evil.example/a.png", false],
    ["/\\evil.example/a.png", false],
    ["javascript:alert(1)", false],
    ["data:image/svg+xml,<svg onload=alert(1)>", false],
    ["mailto:x@example.org", false],
    ["#x", false],
    ["", false],
    [null, false],
  ])("%j → %s", (src, safe) => {
    expect(isSafeImageSrc(src)).toBe(safe);
  });
});
