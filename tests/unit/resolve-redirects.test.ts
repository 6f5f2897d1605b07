/**
 * Which redirects the site serves: editors' redirects beside renames', a page
 * winning, duplicates, chains collapsed, loops refused. One table; each case states the rules, the
 * pages and the renames, and what is served and said.
 */
import { describe, expect, it } from "vitest";
import {
  describeRedirectNotice,
  type RedirectNoticeKind,
  redirectPaths,
  resolveRedirects,
} from "#redirects/resolve-redirects.ts";
import type { RedirectRule } from "#web/redirects/redirect-rules.ts";

const SITE = "https://www.example.com";
const ROUTES: Record<string, string> = { Pricing: "/pricing", About: "/about", Faq: "/faq-v2" };

const rule = (
  id: string,
  from: string,
  to: string | null,
  options: { permanent?: boolean; published?: string } = {},
): RedirectRule => ({
  id,
  from,
  to:
    to === null
      ? { kind: "none" }
      : /^[A-Z]/.test(to)
        ? { kind: "document", id: to }
        : { kind: "url", url: to },
  permanent: options.permanent ?? true,
  published: options.published ?? "2026-03-02T09:14:00+0000",
});

interface Case {
  name: string;
  rules: RedirectRule[];
  pages?: string[];
  renames?: Record<string, string>;
  /** path → location, `302 ` before it for a temporary one. */
  served: Record<string, string>;
  notices?: [string, RedirectNoticeKind][];
}

const PAGES = ["/", "/pricing", "/about", "/faq-v2", "/price-list/"];

const CASES: Case[] = [
  {
    name: "a redirect to a document goes to its route now",
    rules: [rule("R1", "/spring-sale", "Pricing")],
    served: { "/spring-sale": "/pricing" },
  },
  {
    name: "temporary: 302",
    rules: [rule("R1", "/spring-sale", "Pricing", { permanent: false })],
    served: { "/spring-sale": "302 /pricing" },
  },
  {
    name: "to another site, its URL as the parser spells it",
    rules: [rule("R1", "/shop", "https://Shop.example.com/sale?x=1")],
    served: { "/shop": "https://shop.example.com/sale?x=1" },
  },
  {
    name: "a page published at the From path wins; the redirect is said not served",
    rules: [rule("R1", "/About/", "Pricing")],
    served: {},
    notices: [["R1", "page-wins"]],
  },
  {
    name: "its target unpublished: nothing served, and said",
    rules: [rule("R1", "/old", "Gone")],
    served: {},
    notices: [["R1", "target-gone"]],
  },
  {
    name: "two redirects from one path: the first published is served",
    rules: [
      rule("R2", "/promo", "Pricing", { published: "2026-03-01T00:00:00+0000" }),
      rule("R1", "/promo/", "About", { published: "2026-03-05T00:00:00+0000" }),
    ],
    served: { "/promo": "/pricing" },
    notices: [["R1", "duplicate"]],
  },
  {
    name: "a chain is collapsed to where visitors end up, queries merged",
    rules: [rule("R1", "/a", "/b?from=a"), rule("R2", "/b", "/c"), rule("R3", "/c", "Pricing")],
    served: { "/a": "/pricing?from=a", "/b": "/pricing", "/c": "/pricing" },
    notices: [
      ["R1", "chain"],
      ["R2", "chain"],
    ],
  },
  {
    name: "a permanent redirect through a temporary hop is temporary",
    rules: [rule("R1", "/a", "/b"), rule("R2", "/b", "Pricing", { permanent: false })],
    served: { "/a": "302 /pricing", "/b": "302 /pricing" },
    notices: [["R1", "chain"]],
  },
  {
    name: "a loop is refused, and so is a redirect leading into it",
    rules: [rule("R1", "/a", "/b"), rule("R2", "/b", "https://www.example.com/a"), rule("R3", "/x", "/a")],
    served: {},
    notices: [
      ["R1", "loop"],
      ["R2", "loop"],
      ["R3", "loop"],
    ],
  },
  {
    name: "a redirect to itself is a loop",
    rules: [rule("R1", "/a", "/A/")],
    served: {},
    notices: [["R1", "loop"]],
  },
  {
    name: "a redirect to a renamed page's old address goes straight to the page",
    rules: [rule("R1", "/help", "/faq")],
    renames: { "/faq": "/faq-v2" },
    served: { "/faq": "/faq-v2", "/help": "/faq-v2" },
    notices: [["R1", "chain"]],
  },
  {
    name: "an editor's redirect wins over a rename's at the same path; refused, the rename's stays",
    rules: [rule("R1", "/faq", "Pricing"), rule("R2", "/old", "/old")],
    renames: { "/faq": "/faq-v2", "/old": "/about" },
    served: { "/faq": "/pricing", "/old": "/about" },
    notices: [["R2", "loop"]],
  },
  {
    name: "to a path with no page: served, and said",
    rules: [rule("R1", "/a", "/nowhere")],
    served: { "/a": "/nowhere" },
    notices: [["R1", "target-no-page"]],
  },
  {
    name: "unusable From paths and targets are said, never served",
    rules: [
      rule("R1", "", "Pricing"),
      rule("R2", "/_pressroom/metrics", "Pricing"),
      rule("R3", "/x", "javascript:alert(1)"),
      rule("R4", "/y", null),
      rule("R5", "/assets/site.css", "Pricing"),
    ],
    served: {},
    notices: [
      ["R1", "from-invalid"],
      ["R2", "from-invalid"],
      ["R3", "target-invalid"],
      ["R4", "no-target"],
      ["R5", "from-invalid"],
    ],
  },
];

describe("resolveRedirects", () => {
  it.each(CASES)("$name", (c) => {
    const pages = new Set(c.pages ?? PAGES);
    const result = resolveRedirects({
      siteUrl: SITE,
      rules: c.rules,
      renames: c.renames ?? {},
      routeOf: (id) => ROUTES[id],
      isPage: (path) => pages.has(path),
    });
    const served = Object.fromEntries(
      [...result.served].map(([path, r]) => [path, `${r.permanent ? "" : "302 "}${r.location}`]),
    );
    expect(served).toEqual(c.served);
    expect(result.notices.map((n) => [n.documentId, n.kind])).toEqual(c.notices ?? []);
    // Every notice reads as a sentence an editor can act on, naming the document.
    for (const notice of result.notices) {
      expect(describeRedirectNotice(notice)).toMatch(new RegExp(`^redirect ${notice.documentId}`));
      expect(notice.message).not.toMatch(/undefined|null|\[object/);
    }
  });

  it("says which paths' page-ness it needs: From paths and site targets", () => {
    expect(
      redirectPaths(
        [rule("R1", "/Spring/", "/pricing#plans"), rule("R2", "/x", "Pricing"), rule("R3", "", "/y")],
        SITE,
      ),
    ).toEqual(["/pricing", "/spring", "/x", "/y"]);
  });

  it("a rename's redirect at a path a page took is not served", () => {
    const result = resolveRedirects({
      siteUrl: SITE,
      rules: [],
      renames: { "/about": "/about-us" },
      routeOf: () => undefined,
      isPage: (path) => path === "/about",
    });
    expect(result.served.size).toBe(0);
  });
});
