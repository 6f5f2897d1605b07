import { describe, expect, it } from "vitest";
import {
  parseRedirectHistory,
  type RedirectHistory,
  redirectPage,
  serializeRedirectHistory,
} from "#manifest/redirects.ts";
import { type DocumentMove, planRedirects } from "#worker/publish/redirects.ts";

const entry = (documentId: string, location: string) => ({ documentId, location });

interface Case {
  name: string;
  history: RedirectHistory;
  documents: DocumentMove[];
  complete?: boolean;
  pages?: string[];
  history_after: RedirectHistory;
  write: [string, string][];
  drop: string[];
}

const CASES: Case[] = [
  {
    name: "a rename leaves a redirect at the old route",
    history: {},
    documents: [{ id: "A", from: "/old", to: "/new" }],
    pages: ["/new"],
    history_after: { "/old": entry("A", "/new") },
    write: [["/old", "/new"]],
    drop: [],
  },
  {
    name: "a second rename collapses the chain: A→B→C is stored as A→C and B→C",
    history: { "/a": entry("D", "/b") },
    documents: [{ id: "D", from: "/b", to: "/c" }],
    pages: ["/c"],
    history_after: { "/a": entry("D", "/c"), "/b": entry("D", "/c") },
    write: [
      ["/a", "/c"],
      ["/b", "/c"],
    ],
    drop: [],
  },
  {
    name: "a new document taking the old route replaces the redirect (the page was written there)",
    history: { "/old": entry("A", "/new") },
    documents: [{ id: "B", from: null, to: "/old" }],
    pages: ["/new", "/old"],
    history_after: {},
    write: [],
    drop: [],
  },
  {
    name: "moving back to the old route turns its redirect into the page, and redirects the other way",
    history: { "/old": entry("A", "/new") },
    documents: [{ id: "A", from: "/new", to: "/old" }],
    pages: ["/old"],
    history_after: { "/new": entry("A", "/old") },
    write: [["/new", "/old"]],
    drop: [],
  },
  {
    name: "an unpublished document's redirects go away (deleted: no page took them)",
    history: { "/a": entry("D", "/c"), "/b": entry("D", "/c"), "/x": entry("E", "/y") },
    documents: [{ id: "D", from: "/c", to: null }],
    pages: ["/y"],
    history_after: { "/x": entry("E", "/y") },
    write: [],
    drop: ["/a", "/b"],
  },
  {
    name: "an edit that does not move a document changes nothing",
    history: { "/old": entry("A", "/new") },
    documents: [{ id: "A", from: "/new", to: "/new" }],
    pages: ["/new"],
    history_after: { "/old": entry("A", "/new") },
    write: [],
    drop: [],
  },
  {
    name: "a new document has no old route: no redirect",
    history: {},
    documents: [{ id: "A", from: null, to: "/new" }],
    pages: ["/new"],
    history_after: {},
    write: [],
    drop: [],
  },
  {
    name: "two documents swapping uids leave no redirect: both routes are pages",
    history: {},
    documents: [
      { id: "A", from: "/x", to: "/y" },
      { id: "B", from: "/y", to: "/x" },
    ],
    pages: ["/x", "/y"],
    history_after: {},
    write: [],
    drop: [],
  },
  {
    name: "a full build keeps the redirects of documents that still exist, pointing at their route now",
    history: { "/a": entry("D", "/b"), "/gone": entry("G", "/g") },
    documents: [
      { id: "D", to: "/c" },
      { id: "H", to: "/h" },
    ],
    complete: true,
    pages: ["/c", "/h"],
    history_after: { "/a": entry("D", "/c") },
    write: [["/a", "/c"]],
    drop: ["/gone"],
  },
  {
    name: "a publish leaves the redirects of documents it did not touch alone",
    history: { "/gone": entry("G", "/g") },
    documents: [{ id: "H", from: "/h", to: "/h" }],
    pages: ["/g", "/h"],
    history_after: { "/gone": entry("G", "/g") },
    write: [],
    drop: [],
  },
];

describe("planRedirects", () => {
  it.each(CASES)("$name", (c) => {
    const pages = new Set(c.pages ?? []);
    const plan = planRedirects({
      history: c.history,
      documents: c.documents,
      complete: c.complete ?? false,
      isPage: (route) => pages.has(route),
    });
    expect(plan.history).toEqual(c.history_after);
    expect([...plan.write]).toEqual(c.write);
    expect(plan.drop).toEqual(c.drop);
  });

  it("gives the same history whether built step by step or in one full build", () => {
    const pages =
      (...routes: string[]) =>
      (route: string) =>
        routes.includes(route);
    let history: RedirectHistory = {};
    history = planRedirects({
      history,
      documents: [{ id: "D", from: "/a", to: "/b" }],
      complete: false,
      isPage: pages("/b"),
    }).history;
    history = planRedirects({
      history,
      documents: [{ id: "D", from: "/b", to: "/c" }],
      complete: false,
      isPage: pages("/c"),
    }).history;
    const full = planRedirects({
      history,
      documents: [{ id: "D", to: "/c" }],
      complete: true,
      isPage: pages("/c"),
    });
    expect(full.history).toEqual(history);
    expect(full.write.size).toBe(0);
    expect(full.drop).toEqual([]);
  });
});

describe("the stored history", () => {
  it("round-trips, keys sorted, and nothing stored is an empty history", () => {
    const history = { "/b": entry("D", "/c"), "/a": entry("D", "/c") };
    const body = serializeRedirectHistory(history);
    expect(Object.keys(JSON.parse(body).redirects)).toEqual(["/a", "/b"]);
    expect(parseRedirectHistory(body)).toEqual(history);
    expect(parseRedirectHistory(undefined)).toEqual({});
  });

  it.each([
    ["not JSON", "{"],
    ["another version", '{"version":2,"redirects":{}}'],
    ["no redirects", '{"version":1}'],
    ["a bad entry", '{"version":1,"redirects":{"/a":{"documentId":1}}}'],
  ])("refuses a history with %s, saying how to start over", (_why, body) => {
    expect(() => parseRedirectHistory(body)).toThrow(/\.pressroom\/redirects\.json.*delete it/);
  });

  it("makes a redirect page that takes a plain web server's visitor on, escaped", () => {
    const page = redirectPage('/new"><script>');
    expect(page).toContain('http-equiv="refresh" content="0; url=/new&#34;&#62;&#60;script&#62;"');
    expect(page).not.toContain("<script>");
  });
});
