import { describe, expect, it } from "vitest";
import { ContentApiError, ContentTimeoutError } from "#errors";
import {
  builtInPage,
  ERROR_PAGE_FAILED,
  ERROR_PAGE_FAILED_AS_WELL,
  jsonError,
  prefersJson,
  statusForFailure,
  statusText,
  withRequestId,
} from "#http/error-pages.ts";
import { StorageError } from "#storage";
import { ERROR_PAGE_TEXT } from "#web/pages/error-view.tsx";

describe("prefersJson", () => {
  it.each<[string | undefined, boolean]>([
    [undefined, false],
    ["*/*", false],
    ["application/json", true],
    ["application/json, text/plain, */*", true],
    ["application/problem+json", true],
    ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", false],
    ["text/html, application/json", false],
    ["application/json, text/html", true],
    ["text/html;q=0.5, application/json", true],
    ["application/json;q=0, text/html", false],
  ])("%s → %s", (accept, expected) => {
    expect(prefersJson(accept)).toBe(expected);
  });
});

describe("statusForFailure", () => {
  const storage = (retryable: boolean) =>
    new StorageError("get", "index.html", "s3://bucket/site", retryable, "boom");
  it.each<[string, unknown, 500 | 503]>([
    ["storage that a retry may cure", storage(true), 503],
    ["storage that no retry cures (EACCES)", storage(false), 500],
    ["the content API answering 503", new ContentApiError(503, "https://x/api/v2", null), 503],
    ["the content API rate limiting", new ContentApiError(429, "https://x/api/v2", null), 503],
    ["the content API answering 400", new ContentApiError(400, "https://x/api/v2", null), 500],
    ["a content timeout", new ContentTimeoutError("https://x/api/v2", 1000), 503],
    ["a refused connection (undici)", new TypeError("fetch failed"), 503],
    ["a wrapped storage failure", new Error("render", { cause: storage(true) }), 503],
    ["a bug", new Error("undefined is not a function"), 500],
    ["a thrown string", "boom", 500],
  ])("%s → %s", (_name, error, status) => {
    expect(statusForFailure(error)).toBe(status);
  });
});

describe("the built-in page", () => {
  it("says the spec's words by case, shows the reference escaped, links home, and hides the cause", () => {
    const first = builtInPage({ status: 404, requestId: "<id>", fallback: "failed" });
    expect(first).toContain(`${ERROR_PAGE_FAILED}.`);
    expect(first).not.toContain(ERROR_PAGE_FAILED_AS_WELL);
    expect(first).toContain("Reference: <code>&#60;id&#62;</code>");
    expect(first).toContain('<a class="fallback__home" href="/">Go back to home</a>');
    const second = builtInPage({ status: 503, requestId: "abc", fallback: "failed-as-well" });
    expect(second).toContain(`${ERROR_PAGE_FAILED_AS_WELL}.`);
    expect(second).toContain("<title>This site is briefly unavailable</title>");
    const plain = builtInPage({ status: 400, requestId: "abc" });
    expect(plain).not.toContain("error page");
  });

  it("fills a stored page's request id slot, and leaves a page without one alone", () => {
    const slot = '<p class="error-page__reference" data-request-id="" hidden=""></p>';
    expect(withRequestId(`<main>${slot}</main>`, "f00d")).toBe(
      '<main><p class="error-page__reference" data-request-id="f00d">Reference: <code>f00d</code></p></main>',
    );
    expect(withRequestId("<main></main>", "f00d")).toBe("<main></main>");
  });

  it("gives JSON clients the status and a human message only", () => {
    expect(jsonError(503, "abc")).toEqual({
      statusCode: 503,
      error: "This site is briefly unavailable",
      requestId: "abc",
    });
  });
});

describe("the stored error pages and the built-in fallback", () => {
  it("say the same words (web/ and services/shared may not import each other, so each keeps a copy)", () => {
    for (const status of [500, 503] as const) expect(statusText(status)).toEqual(ERROR_PAGE_TEXT[status]);
  });
});
