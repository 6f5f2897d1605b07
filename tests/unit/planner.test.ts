import { describe, expect, it } from "vitest";
import { listingSlotOf } from "#content/dependencies.ts";
import {
  type FetchedDocument,
  idsToFetch,
  type KnownDocument,
  planPublish,
} from "#worker/publish/planner.ts";

const SETTINGS = "settings0000001";
/** Every route with the site's layout: each shows settings and links to what its navigation and footer link to. */
const LAYOUT = ["/", "/about", "/pricing", "/contact", "/price-list/", "/price-list/websites", "404"];
/**
 * The index before the publish: who depends on what, as renders recorded it. The navigation (in
 * settings) links to /about and /pricing; the price list `websites`, embedded in / and /pricing and
 * shown as a card on the price-list index, links to /contact in its description; the sitemap lists
 * both types by route and date.
 */
const DEPENDENTS: Record<string, string[]> = {
  [`doc:${SETTINGS}`]: LAYOUT,
  "url:about": LAYOUT,
  "url:pricing": LAYOUT,
  "doc:home": ["/"],
  "doc:about": ["/about"],
  "doc:pricing": ["/pricing"],
  "doc:contact": ["/contact"],
  "url:contact": ["/", "/pricing", "/price-list/", "/price-list/websites"],
  "doc:websites": ["/", "/pricing", "/price-list/websites"],
  "url:websites": ["/price-list/"],
  "type:price_list": ["/price-list/"],
  "routes:page": ["/sitemap.xml"],
  "routes:price_list": ["/sitemap.xml"],
};
const MONDAY = "2026-03-02T09:00:00+0000";
const MONDAY_LATER = "2026-03-02T17:30:00+0000";
const TUESDAY = "2026-03-03T08:00:00+0000";
const known = (route: string | null, type = "page"): KnownDocument => ({
  route,
  type,
  last_publication_date: MONDAY,
  hash: `hash-of-${route}`,
});
const KNOWN: Record<string, KnownDocument> = {
  [SETTINGS]: known(null, "settings"),
  home: known("/"),
  about: known("/about"),
  pricing: known("/pricing"),
  contact: known("/contact"),
  websites: known("/price-list/websites", "price_list"),
};

function plan(
  changed: string[],
  now: Record<string, FetchedDocument | undefined>,
  linkedElsewhere?: (id: string, route: string | null) => readonly string[],
) {
  const fetched = new Map(
    Object.entries(now).filter((e): e is [string, FetchedDocument] => e[1] !== undefined),
  );
  const result = planPublish({
    changedIds: changed,
    fetched,
    known: new Map(Object.entries(KNOWN)),
    dependents: (dep) => DEPENDENTS[dep] ?? [],
    ...(linkedElsewhere ? { linkedElsewhere } : {}),
  });
  return {
    render: [...result.render.keys()].sort(),
    delete: [...result.delete.keys()].sort(),
    why: result.render,
  };
}
/** A document as the content API returns it now: `edit` says what changed since the index saw it. */
function fetched(
  id: string,
  route: string | null,
  edit: { type?: string; date?: string; content?: boolean } = {},
): FetchedDocument {
  const before = KNOWN[id];
  return {
    id,
    type: edit.type ?? before?.type ?? "page",
    route,
    last_publication_date: edit.date ?? MONDAY_LATER,
    hash: edit.content === false && before?.hash ? before.hash : `new-hash-of-${id}`,
  };
}
const sorted = (routes: string[]) => [...routes].sort();

describe("planner: a page the navigation links to (url: dependents)", () => {
  it("content-only edit, same day: its own route only, not the 7 routes whose navigation links to it", () => {
    const result = plan(["about"], { about: fetched("about", "/about") });
    expect(result).toMatchObject({ render: ["/about"], delete: [] });
    expect(result.why.get("/about")).toBe("document about changed");
  });

  it("content-only edit after routes were rendered with it gone (its unpublication's webhook had not arrived): those routes too", () => {
    // The index still knows /about, so nothing moved; but two routes were rendered at a ref where
    // about was unpublished, and show a broken link: they saw it elsewhere than /about.
    const asked: [string, string | null][] = [];
    const result = plan(["about"], { about: fetched("about", "/about") }, (id, route) => {
      asked.push([id, route]);
      return id === "about" ? ["/contact", "/"] : [];
    });
    expect(asked).toEqual([["about", "/about"]]);
    expect(result.render).toEqual(["/", "/about", "/contact"]);
    expect(result.why.get("/contact")).toBe("links to about, shown elsewhere than /about when rendered");
  });

  it("content edit on a new day: its route and the sitemap (its lastmod day moved)", () => {
    const result = plan(["about"], { about: fetched("about", "/about", { date: TUESDAY }) });
    expect(result.render).toEqual(["/about", "/sitemap.xml"]);
    expect(result.why.get("/sitemap.xml")).toBe(
      "lists page: about changed its date (2026-03-02 → 2026-03-03)",
    );
  });

  it("hidden from search engines (noindex) the same day: its route and the sitemap, which leaves it out", () => {
    const result = plan(["about"], { about: { ...fetched("about", "/about"), noindex: true } });
    expect(result.render).toEqual(["/about", "/sitemap.xml"]);
    expect(result.why.get("/sitemap.xml")).toBe("lists page: about was hidden from search engines (noindex)");
  });

  it("a canonical override set, pointed elsewhere or removed the same day: the sitemap, which lists only pages canonical to themselves", () => {
    const toFaq = { document: "faq" };
    const set = plan(["about"], { about: { ...fetched("about", "/about"), canonical: toFaq } });
    expect(set.render).toEqual(["/about", "/sitemap.xml"]);
    expect(set.why.get("/sitemap.xml")).toBe("lists page: about changed its canonical URL");
    const withCanonical = (canonical: KnownDocument["canonical"]) =>
      new Map(Object.entries({ ...KNOWN, about: { ...(KNOWN.about as KnownDocument), canonical } }));
    const planFrom = (before: KnownDocument["canonical"], now: FetchedDocument["canonical"]) =>
      [
        ...planPublish({
          changedIds: ["about"],
          fetched: new Map([
            ["about", { ...fetched("about", "/about"), ...(now ? { canonical: now } : {}) }],
          ]),
          known: withCanonical(before),
          dependents: (dep) => DEPENDENTS[dep] ?? [],
        }).render.keys(),
      ].sort();
    expect(planFrom(toFaq, undefined)).toEqual(["/about", "/sitemap.xml"]);
    expect(planFrom(toFaq, { web: "https://partner.example/" })).toEqual(["/about", "/sitemap.xml"]);
    expect(planFrom(toFaq, { document: "home" })).toEqual(["/about", "/sitemap.xml"]);
    // Unchanged: the page alone.
    expect(planFrom(toFaq, { document: "faq" })).toEqual(["/about"]);
    expect(planFrom(undefined, undefined)).toEqual(["/about"]);
  });

  it("noindex removed the same day: the sitemap lists it again; unchanged noindex: not the sitemap", () => {
    const hidden = { ...KNOWN, about: { ...(KNOWN.about as KnownDocument), noindex: true } };
    const listed = planPublish({
      changedIds: ["about"],
      fetched: new Map([["about", fetched("about", "/about")]]),
      known: new Map(Object.entries(hidden)),
      dependents: (dep) => DEPENDENTS[dep] ?? [],
    });
    expect([...listed.render.keys()].sort()).toEqual(["/about", "/sitemap.xml"]);
    expect(listed.render.get("/sitemap.xml")).toBe("lists page: about was listed again (noindex removed)");
    const still = planPublish({
      changedIds: ["about"],
      fetched: new Map([["about", { ...fetched("about", "/about"), noindex: true }]]),
      known: new Map(Object.entries(hidden)),
      dependents: (dep) => DEPENDENTS[dep] ?? [],
    });
    expect([...still.render.keys()]).toEqual(["/about"]);
  });

  it("uid renamed: the new route, every route linking to it, the sitemap; the old route deleted", () => {
    const result = plan(["about"], { about: fetched("about", "/about-us") });
    expect(result.render).toEqual(
      sorted(["/about-us", ...LAYOUT.filter((r) => r !== "/about"), "/sitemap.xml"]),
    );
    expect(result.delete).toEqual(["/about"]);
    expect(result.why.get("/pricing")).toBe("links to about, which moved (/about → /about-us)");
    expect(result.why.get("/sitemap.xml")).toBe("lists page: about moved (/about → /about-us)");
  });

  it("unpublished: every route linking to it (the link breaks) and the sitemap; its route deleted", () => {
    const result = plan(["about"], { about: undefined });
    expect(result.render).toEqual(sorted([...LAYOUT.filter((r) => r !== "/about"), "/sitemap.xml"]));
    expect(result.delete).toEqual(["/about"]);
    expect(result.why.get("/")).toBe("links to about, which was unpublished");
  });

  it("published for the first time (links to it were broken): its route, every route linking to it, the sitemap", () => {
    // The index recorded `url:careers` for routes whose links to it were broken.
    DEPENDENTS["url:careers"] = ["/", "/contact"];
    try {
      const result = plan(["careers"], { careers: fetched("careers", "/careers") });
      expect(result.render).toEqual(["/", "/careers", "/contact", "/sitemap.xml"]);
      expect(result.why.get("/careers")).toBe("document careers is new");
      expect(result.why.get("/")).toBe("links to careers, which was published");
    } finally {
      delete DEPENDENTS["url:careers"];
    }
  });

  it("type changed: every route linking to it, and the listings of both types", () => {
    const result = plan(["about"], {
      about: fetched("about", "/price-list/about", { type: "price_list" }),
    });
    expect(result.render).toEqual(
      sorted(["/price-list/about", ...LAYOUT.filter((r) => r !== "/about"), "/sitemap.xml"]),
    );
    expect(result.why.get("/price-list/")).toBe("links to about, which changed type (page → price_list)");
    expect(result.delete).toEqual(["/about"]);
  });

  it("a uid that became unsafe: the route goes, and every link to it is re-rendered", () => {
    const result = plan(["about"], { about: fetched("about", null) });
    expect(result.delete).toEqual(["/about"]);
    expect(result.render).toEqual(sorted([...LAYOUT.filter((r) => r !== "/about"), "/sitemap.xml"]));
  });
});

describe("planner: a divided sitemap (parts by listing slot, the index by count)", () => {
  /** The sitemap divided into two parts: each lists its slots' pages; the index counts pages. */
  const partOf = (id: string) => (listingSlotOf(id) < 128 ? "/sitemap-1-of-2.xml" : "/sitemap-2-of-2.xml");
  const divided = (changed: string[], now: Record<string, FetchedDocument | undefined>) => {
    const dependents: Record<string, string[]> = { "count:page": ["/sitemap.xml"] };
    for (let slot = 0; slot < 256; slot++)
      dependents[`routes:page@${slot}`] = [slot < 128 ? "/sitemap-1-of-2.xml" : "/sitemap-2-of-2.xml"];
    const fetchedNow = new Map(
      Object.entries(now).filter((e): e is [string, FetchedDocument] => e[1] !== undefined),
    );
    const result = planPublish({
      changedIds: changed,
      fetched: fetchedNow,
      known: new Map(Object.entries(KNOWN)),
      dependents: (dep) => dependents[dep] ?? [],
    });
    return { render: [...result.render.keys()].sort(), why: result.render };
  };

  it("content edit on a new day: its route and the one part holding it, not the index", () => {
    const result = divided(["about"], { about: fetched("about", "/about", { date: TUESDAY }) });
    expect(result.render).toEqual(["/about", partOf("about")]);
    expect(result.why.get(partOf("about"))).toBe(
      `lists page in slot ${listingSlotOf("about")}: about changed its date (2026-03-02 → 2026-03-03)`,
    );
  });

  it("content edit the same day: no part", () => {
    expect(divided(["about"], { about: fetched("about", "/about") }).render).toEqual(["/about"]);
  });

  it("a new page: its part and the index, which counts it; unpublished: the same", () => {
    const careers = divided(["careers"], { careers: fetched("careers", "/careers") });
    expect(careers.render).toEqual(["/careers", partOf("careers"), "/sitemap.xml"].sort());
    expect(careers.why.get("/sitemap.xml")).toBe("counts page: careers joined");
    expect(divided(["contact"], { contact: undefined }).render).toEqual(
      [partOf("contact"), "/sitemap.xml"].sort(),
    );
  });

  it("renamed: its part (the same slot: a document keeps its part), not the index", () => {
    const result = divided(["about"], { about: fetched("about", "/about-us") });
    expect(result.render).toEqual(["/about-us", partOf("about")].sort());
  });
});

describe("planner: a link inside a price list embedded in pages", () => {
  it("content-only edit of the linked page: its own route only", () => {
    expect(plan(["contact"], { contact: fetched("contact", "/contact") })).toMatchObject({
      render: ["/contact"],
      delete: [],
    });
  });

  it("renamed: the pages embedding the list, the list's route and the index showing its card", () => {
    const result = plan(["contact"], { contact: fetched("contact", "/contact-us") });
    expect(result.render).toEqual(
      sorted(["/", "/contact-us", "/pricing", "/price-list/", "/price-list/websites", "/sitemap.xml"]),
    );
    expect(result.why.get("/price-list/websites")).toBe(
      "links to contact, which moved (/contact → /contact-us)",
    );
  });

  it("the price list edited: its route, the pages showing it, and the index (its card may have changed)", () => {
    const result = plan(["websites"], { websites: fetched("websites", "/price-list/websites") });
    expect(result.render).toEqual(["/", "/price-list/", "/price-list/websites", "/pricing"]);
    expect(result.why.get("/pricing")).toBe("shows websites");
    expect(result.why.get("/price-list/")).toBe("lists price_list: websites changed");
  });

  it("the price list republished unchanged (same content, same day): its own route, the pages showing it", () => {
    const result = plan(["websites"], {
      websites: fetched("websites", "/price-list/websites", { content: false }),
    });
    expect(result.render).toEqual(["/", "/price-list/websites", "/pricing"]);
  });

  it("a new price list: its route, the index and the sitemap", () => {
    expect(
      plan(["workshops"], {
        workshops: fetched("workshops", "/price-list/workshops", { type: "price_list" }),
      }).render,
    ).toEqual(["/price-list/", "/price-list/workshops", "/sitemap.xml"]);
  });
});

describe("planner: settings and other cases", () => {
  it("settings changed (navigation, footer links): every route showing it", () => {
    const result = plan([SETTINGS], { [SETTINGS]: fetched(SETTINGS, null) });
    expect(result.render).toEqual(sorted(LAYOUT));
    expect(result.why.get("/about")).toBe(`shows ${SETTINGS}`);
  });

  it("a page only the navigation links to, edited with settings in one publish: every route, once", () => {
    const result = plan([SETTINGS, "about"], {
      [SETTINGS]: fetched(SETTINGS, null),
      about: fetched("about", "/about"),
    });
    expect(result.render).toEqual(sorted(LAYOUT));
  });

  it("new page nobody links to yet: its route and the sitemap", () => {
    expect(plan(["careers"], { careers: fetched("careers", "/careers") })).toMatchObject({
      render: ["/careers", "/sitemap.xml"],
      delete: [],
    });
  });

  it("documents the index knows nothing of what listings show (an older index): listings re-rendered", () => {
    const result = planPublish({
      changedIds: ["about"],
      fetched: new Map([["about", { id: "about", type: "page", route: "/about" }]]),
      known: new Map([["about", { route: "/about", type: "page" }]]),
      dependents: (dep) => DEPENDENTS[dep] ?? [],
    });
    expect([...result.render.keys()].sort()).toEqual(["/about", "/sitemap.xml"]);
  });

  it("two pages swapping uids: both routes rendered, none deleted", () => {
    const result = plan(["about", "pricing"], {
      about: fetched("about", "/pricing"),
      pricing: fetched("pricing", "/about"),
    });
    expect(result.delete).toEqual([]);
    expect(result.render).toEqual(expect.arrayContaining(["/about", "/pricing"]));
  });

  it("a page renamed onto a freed uid in the same publish: the route is rendered, not deleted", () => {
    const result = plan(["about", "careers"], { about: undefined, careers: fetched("careers", "/about") });
    expect(result.delete).toEqual([]);
    expect(result.render).toContain("/about");
  });

  it("an id announced twice is planned once; an unknown id that is not returned changes nothing", () => {
    expect(plan(["about", "about"], { about: fetched("about", "/about") }).render).toEqual(["/about"]);
    expect(plan(["never-existed"], {})).toMatchObject({ render: [], delete: [] });
  });
});

describe("what a publish fetches along with the changed ids", () => {
  it("settings, the routes' documents and what they read last time, changed ids first, each once", () => {
    const routes = [
      // /pricing: its page, settings, the price list it embeds, a page it links to.
      {
        documentId: "pricing",
        dependencies: [`doc:${SETTINGS}`, "doc:about", "doc:pricing", "doc:websites"],
      },
      // / links to /pricing (why it is re-rendered when pricing changes).
      { documentId: "home", dependencies: [`doc:${SETTINGS}`, "doc:home", "doc:pricing"] },
    ];
    expect(idsToFetch(["pricing"], [SETTINGS], routes)).toEqual([
      "pricing",
      SETTINGS,
      "about",
      "websites",
      "home",
    ]);
  });

  it("listing dependencies (type:…) are not documents; without an index entry only the ids and settings", () => {
    expect(idsToFetch(["about"], [SETTINGS], [{ dependencies: ["type:page", "doc:about"] }])).toEqual([
      "about",
      SETTINGS,
    ]);
    expect(idsToFetch(["new-page", "other"], [], [])).toEqual(["new-page", "other"]);
  });
});

describe("planner: editors' redirects", () => {
  const toPricing = {
    id: "promo",
    from: "/spring-sale",
    to: { kind: "document" as const, id: "pricing" },
    permanent: true,
    published: MONDAY,
  };
  const redirectPlan = (
    changed: string[],
    now: Record<string, FetchedDocument | undefined>,
    before: Record<string, KnownDocument> = {},
  ) =>
    planPublish({
      changedIds: changed,
      fetched: new Map(Object.entries(now).filter((e): e is [string, FetchedDocument] => e[1] !== undefined)),
      known: new Map(Object.entries({ ...KNOWN, ...before })),
      dependents: (dep) => DEPENDENTS[dep] ?? [],
      // The index's rules: the redirect `promo` links to the pricing page.
      redirectsTo: (id) => (id === "pricing" ? ["/spring-sale"] : []),
    });
  const redirectDoc = (rule: typeof toPricing): FetchedDocument => ({
    id: rule.id,
    type: "redirect",
    route: null,
    last_publication_date: MONDAY_LATER,
    hash: "h",
    redirect: rule,
  });

  it("a redirect document published renders nothing, and names its From path", () => {
    const result = redirectPlan(["promo"], { promo: redirectDoc(toPricing) });
    expect(result.render.size).toBe(0);
    expect(result.delete.size).toBe(0);
    expect([...result.redirects]).toEqual([["/spring-sale", "redirect promo is new"]]);
  });

  it("its From path changed: both paths", () => {
    const known: KnownDocument = { route: null, type: "redirect", hash: "h0", redirect: toPricing };
    const result = redirectPlan(
      ["promo"],
      { promo: redirectDoc({ ...toPricing, from: "/summer-sale" }) },
      { promo: known },
    );
    expect([...result.redirects.keys()]).toEqual(["/spring-sale", "/summer-sale"]);
    expect(result.redirects.get("/summer-sale")).toBe("redirect promo changed");
  });

  it("unpublished", () => {
    const known: KnownDocument = { route: null, type: "redirect", hash: "h0", redirect: toPricing };
    const result = redirectPlan(["promo"], {}, { promo: known });
    expect([...result.redirects]).toEqual([["/spring-sale", "redirect promo was unpublished"]]);
  });

  it("the document it links to is renamed: the redirect follows it (a dependency the planner knows)", () => {
    const result = redirectPlan(["pricing"], { pricing: fetched("pricing", "/prices") });
    expect([...result.redirects]).toEqual([
      ["/spring-sale", "redirects to pricing, which moved (/pricing → /prices)"],
    ]);
  });

  it("… edited in place: the redirect stays as it is", () => {
    const result = redirectPlan(["pricing"], { pricing: fetched("pricing", "/pricing") });
    expect(result.redirects.size).toBe(0);
  });

  it("… unpublished: the redirect goes with it", () => {
    const result = redirectPlan(["pricing"], {});
    expect(result.redirects.get("/spring-sale")).toBe("redirects to pricing, which was unpublished");
  });
});
