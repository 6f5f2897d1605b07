/**
 * Editors' redirects, the pure parts: what a From path may be and how it is spelled,
 * what a `redirect` document says (every field absent or empty as Prismic may send it), where its
 * target sends visitors, and the storage key of a redirect object.
 */
import type { PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { canonicalPath, fromPathOf, ownPath, redirectKey } from "#redirects/redirect-paths.ts";
import { targetOf, withSuffix } from "#redirects/redirect-targets.ts";
import { type RedirectRule, redirectRuleOf } from "#web/redirects/redirect-rules.ts";

const SITE = "https://www.example.com";

describe("a From path", () => {
  it.each([
    ["/spring-sale", "/spring-sale"],
    ["  /spring-sale  ", "/spring-sale"],
    ["/Spring-Sale/", "/spring-sale"], // as the site's routes: lowercase, no trailing slash
    ["/blog/2019/Our-Move", "/blog/2019/our-move"],
    ["/über-uns", "/%C3%BCber-uns"], // percent-encoded as routes are
    ["/%C3%9Cber-uns", "/%C3%BCber-uns"],
    ["/price-list/2019-rates", "/price-list/2019-rates"],
    ["https://www.example.com/old-page", "/old-page"], // this site's own URL
    ["/about", "/about"], // a page's route is a valid From path: the page then wins (resolve-redirects)
  ])("%j is served as %j", (typed, path) => {
    expect(fromPathOf(typed, SITE)).toEqual({ path });
  });

  it.each([
    ["", "has no From path"],
    ["spring-sale", "is not a path of this site (start it with /)"],
    ["//evil.example/x", "is not a path of this site (start it with /)"],
    ["https://evil.example/spring", "is an address on another site"],
    ["javascript:alert(1)", "is an address on another site"],
    ["/spring?utm=1", "holds a query string or fragment"],
    ["/spring#top", "holds a query string or fragment"],
    ["/", "is the home page's address"],
    ["/home", "is the home page's other address"],
    ["/_pressroom/healthz", "starts with /_pressroom, which the site uses itself"],
    ["/assets/app.js", "ends in a file name"],
    ["/assets/old", "starts with /assets, which the site uses itself"],
    ["/api/contact", "starts with /api"],
    ["/price-list", "starts with /price-list"],
    ["/brochure.pdf", "ends in a file name (“brochure.pdf”)"],
    ["/old.html", "ends in a file name"],
    ["/sitemap.xml", "ends in a file name"],
    ["/a/../b", "cannot be part of an address"],
    ["/a//b", "has an empty segment"],
    ["/with space", "cannot be part of an address"],
    ["/%E0%A4%A", "malformed percent-encoding"],
    ["/a%2Fb", "cannot be part of an address"], // an encoded slash never splits a segment
    [`/${"a/".repeat(8)}b`, "has more than 8 segments"],
    [`/${"a".repeat(600)}`, "is longer than 512 characters"],
  ])("%j is refused: %s", (typed, why) => {
    const result = fromPathOf(typed, SITE);
    expect("problem" in result && result.problem).toContain(why);
  });

  it("a site URL with a base path counts only below it", () => {
    expect(ownPath("https://www.example.com/site/old", "https://www.example.com/site")).toBe("/old");
    expect(ownPath("https://www.example.com/other", "https://www.example.com/site")).toBeUndefined();
    expect(ownPath("https://user@www.example.com/old", SITE)).toBeUndefined();
  });

  it("canonical spellings of the site's own routes keep theirs", () => {
    expect(canonicalPath("/price-list")).toEqual({ path: "/price-list/" });
    expect(canonicalPath("/")).toEqual({ path: "/" });
  });
});

describe("the key of a redirect object", () => {
  it.each([
    ["/faq", "faq/index.html"],
    ["/price-list/websites", "price-list/websites/index.html"],
    ["/blog/2019/our-move", "blog/2019/our-move/index.html"],
    ["/%C3%BCber-uns/team", "über-uns/team/index.html"],
  ])("%s is stored at %s", (path, key) => {
    expect(redirectKey(path)).toBe(key);
  });

  it.each(["/a/../../etc", "/a%2Fb/c", "relative", "/A/b", "/x/y.html"])("%j is never a key", (path) => {
    expect(() => redirectKey(path)).toThrow(/not a path of the site/);
  });
});

/** A redirect document as the Document API sends it (Prismic's link shapes: https://prismic.io/docs/fields/link). */
function redirectDoc(data: Record<string, unknown>, extra: Partial<PrismicDocument> = {}): PrismicDocument {
  return {
    id: "RedirectDoc00001",
    uid: null,
    url: null,
    type: "redirect",
    href: "",
    tags: [],
    first_publication_date: "2026-03-02T09:14:00+0000",
    last_publication_date: "2026-03-02T09:14:00+0000",
    slugs: [],
    linked_documents: [],
    lang: "en-us",
    alternate_languages: [],
    data,
    ...extra,
  } as PrismicDocument;
}

describe("what a redirect document says", () => {
  it("reads a link to a document, a web link and a media file", () => {
    const toPage = redirectRuleOf(
      redirectDoc({
        from_path: " /spring-sale ",
        to: { link_type: "Document", id: "Z9nWvxEAACUAx1Ee", type: "page", uid: "pricing", url: "/pricing" },
        permanent: false,
      }),
    );
    expect(toPage).toEqual({
      id: "RedirectDoc00001",
      from: "/spring-sale",
      to: { kind: "document", id: "Z9nWvxEAACUAx1Ee" },
      permanent: false,
      published: "2026-03-02T09:14:00+0000",
    });
    expect(
      redirectRuleOf(redirectDoc({ to: { link_type: "Web", url: "https://shop.example.com" } })).to,
    ).toEqual({
      kind: "url",
      url: "https://shop.example.com",
    });
    expect(
      redirectRuleOf(redirectDoc({ to: { link_type: "Media", url: "https://images.example/brochure.pdf" } }))
        .to,
    ).toEqual({ kind: "url", url: "https://images.example/brochure.pdf" });
  });

  it("keeps the id of a broken link: the redirect waits for its document", () => {
    const rule = redirectRuleOf(
      redirectDoc({
        to: { link_type: "Document", id: "GoneDoc000000001", type: "broken_type", isBroken: true },
      }),
    );
    expect(rule.to).toEqual({ kind: "document", id: "GoneDoc000000001" });
  });

  it.each([
    ["data {}", {}],
    ["every field null", { from_path: null, to: null, permanent: null }],
    ["empty values", { from_path: "", to: { link_type: "Any" }, permanent: false }],
    ["values of other kinds", { from_path: 12, to: "https://x.example", permanent: "no" }],
  ])("%s: no throw, nothing to serve, permanent unless it says false", (_name, data) => {
    const rule = redirectRuleOf(redirectDoc(data));
    expect(rule.from).toBe("");
    expect(rule.to).toEqual({ kind: "none" });
    expect(rule.permanent).toBe((data as { permanent?: unknown }).permanent !== false);
  });
});

describe("where a redirect's target sends visitors", () => {
  const rule = (to: RedirectRule["to"]): RedirectRule => ({
    id: "R",
    from: "/x",
    to,
    permanent: true,
    published: null,
  });
  const routes = new Map([["Page", "/pricing"]]);
  const target = (to: RedirectRule["to"]) => targetOf(rule(to), SITE, (id) => routes.get(id));

  it("a document: its route now, or nothing while it is not published", () => {
    expect(target({ kind: "document", id: "Page" })).toEqual({
      kind: "site",
      path: "/pricing",
      suffix: "",
      followable: false,
    });
    expect(target({ kind: "document", id: "Gone" })).toMatchObject({
      kind: "problem",
      notice: "target-gone",
    });
  });

  it("a path or URL of this site: its canonical spelling, what follows it kept", () => {
    expect(target({ kind: "url", url: "/Pricing/#plans" })).toEqual({
      kind: "site",
      path: "/pricing",
      suffix: "#plans",
      followable: true,
    });
    expect(target({ kind: "url", url: "https://www.example.com/faq?src=old" })).toEqual({
      kind: "site",
      path: "/faq",
      suffix: "?src=old",
      followable: true,
    });
    expect(target({ kind: "url", url: "/home" })).toMatchObject({ path: "/" });
    expect(target({ kind: "url", url: "/files/brochure.pdf" })).toEqual({
      kind: "site",
      path: "/files/brochure.pdf",
      suffix: "",
      followable: false,
    });
  });

  it("another site: the URL as the parser spells it (ASCII for a Location header)", () => {
    expect(target({ kind: "url", url: "https://Shop.Example.com/Sale ü?x=1" })).toMatchObject({
      kind: "problem",
    });
    expect(target({ kind: "url", url: "https://Shop.Example.com/Sälе?x=1" })).toEqual({
      kind: "external",
      location: "https://shop.example.com/S%C3%A4l%D0%B5?x=1",
    });
  });

  it.each([
    "javascript:alert(document.cookie)",
    "JavaScript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "mailto:sales@example.com",
    "tel:+14155550123",
    "//evil.example/phish",
    "/\\evil.example",
    "ftp://files.example.com/x",
    "#top",
    "https://evil.example/\u0000x",
  ])("%j is refused: only http(s) and paths of this site", (url) => {
    expect(target({ kind: "url", url })).toMatchObject({ kind: "problem", notice: "target-invalid" });
  });

  it("nothing linked", () => {
    expect(target({ kind: "none" })).toMatchObject({ kind: "problem", notice: "no-target" });
  });

  it("a hop's query string and fragment, added as a browser following both would end up", () => {
    expect(withSuffix("/pricing", "?src=old")).toBe("/pricing?src=old");
    expect(withSuffix("/pricing?a=1#plans", "?src=old#top")).toBe("/pricing?a=1&src=old#plans");
    expect(withSuffix("https://shop.example.com/", "#top")).toBe("https://shop.example.com/#top");
  });
});
