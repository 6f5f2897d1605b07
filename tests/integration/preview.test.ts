import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenRuleFor } from "#preview/preview-token.ts";
import { safeSitePath } from "#preview/safe-path.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import {
  ABOUT_ID,
  cookieOf,
  draftOfAbout,
  type PreviewFixture,
  previewFixture,
  putDraft,
} from "../support/preview-fixture.ts";

let content: LocalPrismic;
let local: PreviewFixture;

beforeAll(async () => {
  content = await startLocalPrismic();
  local = await previewFixture(content.endpoint);
});
afterAll(async () => {
  await local?.app.close();
  await content?.stop();
});

const previewLink = (token: string, documentId = ABOUT_ID) =>
  `/api/preview?token=${encodeURIComponent(token)}&documentId=${documentId}`;

describe("preview links", () => {
  it("refuses a foreign host, a malformed token and another repository with a 400 page, making no request", async () => {
    const bad = [
      "https://evil.example/previews/abc?websitePreviewId=abc",
      "not a url",
      "",
      "https://other.prismic.io/previews/abc:def?websitePreviewId=x",
      `${content.url}/api/v2`,
      `${content.url}/previews/../admin/drafts`,
      `http://user:pw@${new URL(content.url).host}/previews/abc`,
      `${content.url.replace("127.0.0.1", "localhost")}/previews/abc`,
    ];
    const before = local.requests.length;
    for (const token of bad) {
      const response = await local.app.inject(previewLink(token));
      expect(response.statusCode, token).toBe(400);
      expect(response.headers["content-type"]).toContain("text/html");
      expect(response.body).toContain("This preview link cannot be used");
      expect(response.headers["set-cookie"]).toBeUndefined();
    }
    const missing = await local.app.inject("/api/preview?documentId=x");
    expect(missing.statusCode).toBe(400);
    expect(local.requests.length).toBe(before);
  });

  it("accepts only https://<repo>.prismic.io/previews/… for a real repository", async () => {
    const rule = tokenRuleFor("https://demo.cdn.prismic.io/api/v2", "demo");
    expect(rule).toEqual({ kind: "prismic", host: "demo.prismic.io" });
    const { checkPreviewToken } = await import("#preview/preview-token.ts");
    expect(checkPreviewToken("https://demo.prismic.io/previews/Zab:Zcd?websitePreviewId=Zef", rule).ok).toBe(
      true,
    );
    for (const token of [
      "http://demo.prismic.io/previews/Zab:Zcd",
      "https://demo.prismic.io:8443/previews/Zab",
      "https://other.prismic.io/previews/Zab",
      "https://demo.prismic.io.evil.example/previews/Zab",
      "https://demo.prismic.io/api/v2",
      "https://demo.prismic.io/previews/a/b",
    ])
      expect(checkPreviewToken(token, rule).ok, token).toBe(false);
  });

  it("keeps every redirect on the site", async () => {
    const table: [unknown, string][] = [
      ["/about", "/about"],
      ["/price-list/websites?x=1", "/price-list/websites?x=1"],
      ["//evil.example", "/"],
      ["/\\evil.example", "/"],
      ["/\t/evil.example", "/"],
      ["https://evil.example/", "/"],
      ["javascript:alert(1)", "/"],
      ["about", "/"],
      [undefined, "/"],
      ["/a/../..//evil.example", "/"],
    ];
    for (const [input, expected] of table) expect(safeSitePath(input), String(input)).toBe(expected);
    for (const path of ["//evil.example", "/\\evil.example", "https://evil.example"]) {
      const exit = await local.app.inject(`/api/exit-preview?path=${encodeURIComponent(path)}`);
      expect(exit.statusCode).toBe(302);
      expect(exit.headers.location).toBe("/");
    }
    const back = await local.app.inject("/api/exit-preview?path=%2Fabout");
    expect(back.headers.location).toBe("/about");
    expect(String(back.headers["set-cookie"])).toMatch(/^io\.prismic\.preview=; Max-Age=0;.*Path=\//);
  });
});

describe("preview routes", () => {
  it("answers /home with 301 to / like the site server, keeping the query", async () => {
    const home = await local.app.inject("/home?x=1");
    expect(home.statusCode).toBe(301);
    expect(home.headers.location).toBe("/?x=1");
    expect((await local.app.inject("/home/")).headers.location).toBe("/");
  });
});

describe("previewing a draft", () => {
  it("sets the cookie, redirects to the document's page, shows the draft there and not on master", async () => {
    const token = await putDraft(content.url, draftOfAbout("About us — draft title"));
    const link = await local.app.inject(previewLink(token));
    expect(link.statusCode).toBe(302);
    expect(link.headers.location).toBe("/about");
    const setCookie = String(link.headers["set-cookie"]);
    expect(setCookie).toBe(`io.prismic.preview=${encodeURIComponent(token)}; Path=/; SameSite=Lax; HttpOnly`);

    const preview = await local.app.inject({ url: "/about", headers: { cookie: cookieOf(setCookie) } });
    expect(preview.statusCode).toBe(200);
    expect(preview.headers["cache-control"]).toBe("no-store");
    expect(preview.headers["x-robots-tag"]).toBe("noindex");
    expect(preview.body).toContain("About us — draft title");
    expect(preview.body).toContain('href="/api/exit-preview?path=%2Fabout"');
    expect(preview.body).toMatch(/<script src="\/assets\/preview\.[0-9a-f]{10}\.js"><\/script>/);
    expect(preview.body).not.toContain("static.cdn.prismic.io");

    const master = await local.app.inject("/about");
    expect(master.statusCode).toBe(200);
    expect(master.body).toContain("About Northwind Studio");
    expect(master.body).not.toContain("draft title");
    expect(master.body).not.toContain("data-preview-banner");
    expect(master.headers["cache-control"]).toBe("no-store");

    const script = await local.app.inject(
      /src="(\/assets\/preview\.[0-9a-f]+\.js)"/.exec(preview.body)?.[1] ?? "",
    );
    expect(script.statusCode).toBe(200);
    expect(script.body).toContain("prismicPreviewUpdate");
  });

  it("marks the cookie SameSite=None; Secure behind an https proxy", async () => {
    const token = await putDraft(content.url, draftOfAbout("Secure draft"));
    const link = await local.app.inject({
      url: previewLink(token),
      headers: { "x-forwarded-proto": "https" },
    });
    expect(String(link.headers["set-cookie"])).toMatch(/; Path=\/; SameSite=None; Secure; HttpOnly$/);
  });

  it("opens the home page for an unknown document", async () => {
    const token = await putDraft(content.url, draftOfAbout("Another draft"));
    const link = await local.app.inject(previewLink(token, "NoSuchDocument1"));
    expect(link.statusCode).toBe(302);
    expect(link.headers.location).toBe("/");
    expect(link.headers["set-cookie"]).toBeDefined();
  });

  it("clears the cookie and says the preview has ended for an expired or unknown preview ref", async () => {
    const gone = `${content.url}/previews/expiredsession?websitePreviewId=expiredsession`;
    const page = await local.app.inject({
      url: "/about",
      headers: { cookie: `io.prismic.preview=${encodeURIComponent(gone)}` },
    });
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain("This preview has ended");
    expect(page.body).toContain('href="https://www.northwind.example/about"');
    expect(String(page.headers["set-cookie"])).toMatch(/^io\.prismic\.preview=; Max-Age=0/);
    const link = await local.app.inject(previewLink(gone));
    expect(link.statusCode).toBe(410);
    expect(link.body).toContain("This preview has ended");
  });
});

describe("a real Prismic repository", () => {
  it("adds the toolbar and leaves the cookie readable by it", async () => {
    const real = await previewFixture(content.endpoint, { kind: "prismic", host: "demo.prismic.io" });
    try {
      const page = await real.app.inject("/about");
      expect(page.body).toContain(
        '<script async defer src="https://static.cdn.prismic.io/prismic.js?new=true&amp;repo=demo"></script>',
      );
      expect(String(page.headers["content-security-policy"])).toContain(
        "frame-ancestors 'self' https://*.prismic.io",
      );
      const token = "https://demo.prismic.io/previews/Zab:Zcd?websitePreviewId=Zef";
      const link = await real.app.inject({
        url: `/api/preview?token=${encodeURIComponent(token)}`,
        headers: { "x-forwarded-proto": "https" },
      });
      expect(link.statusCode).toBe(302);
      expect(String(link.headers["set-cookie"])).toBe(
        `io.prismic.preview=${encodeURIComponent(token)}; Path=/; SameSite=None; Secure`,
      );
    } finally {
      await real.app.close();
    }
  });
});
