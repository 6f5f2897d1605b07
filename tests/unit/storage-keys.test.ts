import { describe, expect, it } from "vitest";
import type { StorageConfig } from "#config";
import { ConfigError } from "#errors";
import {
  assertSafeKey,
  assertSafePrefix,
  compareKeys,
  createSiteStore,
  parseStorageUrl,
  StorageKeyError,
} from "#storage";

const config = (url: string): StorageConfig => ({ url, s3Endpoint: undefined, s3Region: "us-east-1" });

describe("assertSafeKey", () => {
  it.each([
    "index.html",
    "about/index.html",
    "price-list/index.html",
    "price-list/basic/index.html",
    "assets/site.3f2a1b9c.css",
    "sitemap.xml",
    ".pressroom/manifest.json",
    "blog/café/index.html",
    "a..b/...",
    `${"a".repeat(255)}/`.repeat(3) + "a".repeat(255),
    "a".repeat(255),
    "é".repeat(127),
  ])("accepts %j", (key) => {
    expect(assertSafeKey(key)).toBe(key);
  });

  it.each([
    ["", /empty/],
    ["/etc/passwd", /absolute path/],
    ["C:/Windows/win.ini", /absolute path/],
    ["../escape.html", /"\.\." path segment/],
    ["a/../../escape.html", /"\.\." path segment/],
    ["..", /"\.\." path segment/],
    ["./index.html", /"\." path segment/],
    ["a/./b", /"\." path segment/],
    ["a\\b", /backslash/],
    ["..\\escape.html", /backslash/],
    ["a//b", /empty path segment/],
    ["about/", /ends with a slash/],
    ["/", /absolute path/],
    ["a\u0000b", /control character/],
    ["a\nb", /control character/],
    ["a\u007fb", /control character/],
    ["a\u0085b", /control character/],
    ["bad\uD800surrogate", /invalid character/],
    ["bad\uDC00", /invalid character/],
    ["a".repeat(1025), /longer than 1024 bytes/],
    ["é".repeat(513), /longer than 1024 bytes/],
    // A folder holds at most 255 bytes a name: refused by every driver (a 404 on the site, not a 500).
    ["a".repeat(256), /path segment longer than 255 bytes/],
    [`assets/${"a".repeat(252)}.css`, /path segment longer than 255 bytes/],
    ["é".repeat(128), /path segment longer than 255 bytes/],
    [".pressroom-meta/index.html", /reserved/],
    ["about/.pressroom-tmp-1234", /reserved/],
  ])("refuses %j", (key, reason) => {
    const error = (() => {
      try {
        assertSafeKey(key);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(StorageKeyError);
    expect((error as StorageKeyError).key).toBe(key);
    expect((error as StorageKeyError).message).toMatch(reason);
    // The key is named (JSON-quoted, so control characters cannot forge log lines).
    expect((error as StorageKeyError).message).toContain(JSON.stringify(key.slice(0, 120)).slice(0, 40));
    expect(/[\n\r]/.test((error as Error).message)).toBe(false);
  });

  it("refuses what is not a string", () => {
    expect(() => assertSafeKey(undefined as unknown as string)).toThrow(StorageKeyError);
    expect(() => assertSafeKey(42 as unknown as string)).toThrow(/not a string/);
  });
});

describe("assertSafePrefix", () => {
  it.each(["", "price-list/", "price", "a/b/c", ".pressroom/", "..x", "."])("accepts %j", (prefix) => {
    expect(assertSafePrefix(prefix)).toBe(prefix);
  });

  it.each(["/", "/abs", "../", "a/../", "a//", "a\\b", "x\u0000", ".pressroom-meta/"])(
    "refuses %j",
    (prefix) => {
      expect(() => assertSafePrefix(prefix)).toThrow(StorageKeyError);
    },
  );
});

describe("compareKeys", () => {
  it("orders by UTF-8 bytes, as S3 lists", () => {
    // UTF-16 order would put U+FF01 after U+1F680 (a surrogate pair); UTF-8 byte order does not.
    const keys = ["z", "a/b", "a-b", "a.b", "\u{1F680}", "\uFF01", "A", "é"];
    expect([...keys].sort(compareKeys)).toEqual(["A", "a-b", "a.b", "a/b", "z", "é", "\uFF01", "\u{1F680}"]);
  });
});

describe("parseStorageUrl", () => {
  it.each([
    ["memory:", { kind: "memory" }],
    ["file:///srv/site", { kind: "file", root: "/srv/site" }],
    ["file:///srv/my%20site/", { kind: "file", root: "/srv/my site" }],
    ["file://./data/site", { kind: "file", root: "/work/app/data/site" }],
    ["file://data/site", { kind: "file", root: "/work/app/data/site" }],
    ["file://../sites/www", { kind: "file", root: "/work/sites/www" }],
    ["s3://site", { kind: "s3", bucket: "site", prefix: "" }],
    ["s3://site/", { kind: "s3", bucket: "site", prefix: "" }],
    ["s3://site/www", { kind: "s3", bucket: "site", prefix: "www/" }],
    ["s3://my.bucket-1/www/en/", { kind: "s3", bucket: "my.bucket-1", prefix: "www/en/" }],
  ])("%s", (url, expected) => {
    expect(parseStorageUrl(url, "/work/app")).toEqual(expected);
  });

  it.each([
    ["", /not file:\/\/<folder>, s3:\/\/<bucket>\/<prefix> or memory:/],
    ["ftp://host/site", /not file:\/\/<folder>/],
    ["file:./site", /not file:\/\/<folder>/],
    ["memory:x", /not file:\/\/<folder>/],
    ["file://", /missing the folder/],
    ["file://%E0%A4%A", /bad percent-escape/],
    ["file:///", /filesystem root/],
    ["s3://", /invalid S3 bucket ""/],
    ["s3://Site/www", /invalid S3 bucket "Site"/],
    ["s3://ab", /invalid S3 bucket "ab"/],
    ["s3://bad_bucket", /invalid S3 bucket/],
    ["s3://site/../other", /unsafe prefix \(has a "\.\." path segment\)/],
    ["s3://site/a//b", /unsafe prefix \(has an empty path segment\)/],
    ["s3://site//", /unsafe prefix/],
  ])("refuses %j clearly", (url, reason) => {
    expect(() => parseStorageUrl(url, "/work/app")).toThrow(ConfigError);
    expect(() => parseStorageUrl(url, "/work/app")).toThrow(reason);
    expect(() => parseStorageUrl(url, "/work/app")).toThrow(/Set STORAGE_URL to file:\/\/<folder>/);
  });
});

describe("createSiteStore", () => {
  it("chooses the driver by URL and describes it for logs, without any I/O", async () => {
    const stores = [
      createSiteStore(config("memory:")),
      createSiteStore(config("file:///nonexistent/pressroom-site")),
      createSiteStore(config("s3://site/www/")),
      createSiteStore(config("s3://site")),
    ];
    expect(stores.map((store) => store.description)).toEqual([
      "memory:",
      "file:///nonexistent/pressroom-site",
      "s3://site/www",
      "s3://site",
    ]);
    await Promise.all(stores.map((store) => store.close()));
  });

  it("resolves a relative folder against the working directory", () => {
    const store = createSiteStore(config("file://./data/site"));
    expect(store.description).toBe(new URL("data/site", `file://${process.cwd()}/`).href);
  });

  it("refuses a bad URL with a ConfigError saying how to fix it", () => {
    expect(() => createSiteStore(config("s3:/site"))).toThrow(ConfigError);
    expect(() => createSiteStore(config("s3:/site"))).toThrow(/STORAGE_URL="s3:\/site" is not/);
  });
});
