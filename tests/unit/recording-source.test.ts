import type { PrismicDocument } from "@prismicio/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemorySource as engineMemorySource } from "#content/source.ts";
import { recordingSource, typedSource } from "#web/content/index.ts";

/** The engine's memory source, as the site's render reads it (website.render wraps it so). */
const createMemorySource = (documents: readonly PrismicDocument[]) =>
  typedSource(engineMemorySource(documents));

/** A link field to a document, as the API returns it (with `data` when fields were fetched along). */
const link = (id: string, extra: Record<string, unknown> = {}) => ({
  link_type: "Document",
  id,
  type: "page",
  uid: id,
  url: `/${id}`,
  ...extra,
});
const doc = (id: string, type: string, uid: string | null, data: Record<string, unknown>) =>
  ({ id, type, uid, url: null, lang: "en-us", data }) as unknown as PrismicDocument;
const hyperlink = (id: string) => [
  { type: "paragraph", text: "see", spans: [{ type: "hyperlink", start: 0, end: 3, data: link(id) }] },
];

const SOURCE = createMemorySource([
  // The navigation links to about and pricing; the footer links to privacy.
  doc("settings", "settings", null, {
    header_navigation: [{ link: link("about") }, { link: link("pricing") }],
    cookie_policy_link: link("privacy"),
  }),
  // The home page links to contact in rich text, shows the team page's fetched title next to a
  // link to it, embeds the websites price list and links to about (also in the navigation).
  doc("home", "page", "home", {
    body: hyperlink("contact"),
    team: link("team", { data: { title: "Our team" } }),
    cta: link("about"),
    slices: [{ slice_type: "price_list_table", primary: { price_list: link("websites") } }],
  }),
  // The price list links to faq in its description.
  doc("websites", "price_list", "websites", { description: hyperlink("faq") }),
]);

afterEach(() => {
  vi.useRealTimers();
});

describe("recordingSource: what a render depends on, at the grain of what it shows", () => {
  it("documents read are shown (doc:), documents only linked to are urls (url:), fetched fields are shown", async () => {
    const recorder = recordingSource(SOURCE);
    await recorder.source.getSettings();
    await recorder.source.getPageByUID("home");
    await recorder.source.getByID("websites"); // the embedded price list, read by id
    expect(recorder.dependencies()).toEqual([
      "doc:home",
      "doc:settings",
      "doc:team", // the link carries the target's data
      "doc:websites", // linked from the slice AND read: shown wins
      // Where each link pointed when rendered: the planner compares it with the target's route now.
      "sees:about:/about",
      "sees:contact:/contact",
      "sees:faq:/faq",
      "sees:pricing:/pricing",
      "sees:privacy:/privacy",
      "url:about", // navigation and a link field, once
      "url:contact", // a rich-text hyperlink
      "url:faq", // a link inside the embedded price list
      "url:pricing",
      "url:privacy", // a link in settings
      `year:${new Date().getUTCFullYear()}`, // the footer's copyright year
    ]);
  });

  it("a listing records its type and its members' links, not each member", async () => {
    const recorder = recordingSource(SOURCE);
    await recorder.source.getAllByType("price_list");
    expect(recorder.dependencies()).toEqual(["sees:faq:/faq", "type:price_list", "url:faq"]);
  });

  it("a broken link is recorded as pointing nowhere, so its target's return re-renders the page", async () => {
    const broken = { link_type: "Document", id: "gone", type: "broken_type", isBroken: true, url: null };
    const recorder = recordingSource(createMemorySource([doc("p", "page", "p", { cta: broken })]));
    await recorder.source.getPageByUID("p");
    expect(recorder.dependencies()).toEqual(["doc:p", "sees:gone:", "url:gone"]);
  });

  it("a listing of routes and dates (the sitemap) records routes:<type> and no links", async () => {
    const recorder = recordingSource(SOURCE, { routesOnly: true });
    await recorder.source.getAllByType("page");
    await recorder.source.getAllByType("price_list");
    expect(recorder.dependencies()).toEqual(["routes:page", "routes:price_list"]);
  });
});

describe("recordingSource: the copyright year", () => {
  it("a render reading settings records the year it renders in (UTC), so it is re-rendered when the year turns", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-12-31T23:59:59Z"));
    const before = recordingSource(SOURCE);
    await before.source.getSettings();
    expect(before.dependencies()).toContain("year:2026");
    vi.setSystemTime(new Date("2027-01-01T00:00:00Z"));
    const after = recordingSource(SOURCE);
    await after.source.getSettings();
    expect(after.dependencies()).toContain("year:2027");
    expect(after.dependencies()).not.toContain("year:2026");
  });

  it("a listing that does not read settings (the sitemap) records no year", async () => {
    const recorder = recordingSource(SOURCE, { routesOnly: true });
    await recorder.source.getAllByType("page");
    expect(recorder.dependencies().some((d) => d.startsWith("year:"))).toBe(false);
  });
});
