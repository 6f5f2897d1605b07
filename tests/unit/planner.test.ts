import { describe, expect, it } from "vitest";
import {
  type FetchedDocument,
  idsToFetch,
  type KnownDocument,
  planPublish,
} from "../../worker/src/publish/planner.ts";

const SETTINGS = "settings0000001";
/** The index before the publish: who depends on what (as renders recorded it). */
const DEPENDENTS: Record<string, string[]> = {
  [`doc:${SETTINGS}`]: ["/", "/about", "/pricing", "/price-list/", "/price-list/websites", "404"],
  "doc:about": ["/about", "/", "/sitemap.xml"],
  "doc:pricing": ["/pricing", "/sitemap.xml"],
  "doc:websites": ["/price-list/websites", "/pricing", "/price-list/", "/sitemap.xml"],
  "type:page": ["/sitemap.xml"],
  "type:price_list": ["/price-list/", "/sitemap.xml"],
};
const KNOWN: Record<string, KnownDocument> = {
  [SETTINGS]: { route: null, type: "settings" },
  about: { route: "/about", type: "page" },
  pricing: { route: "/pricing", type: "page" },
  websites: { route: "/price-list/websites", type: "price_list" },
};

function plan(changed: string[], now: Record<string, FetchedDocument | undefined>) {
  const fetched = new Map(
    Object.entries(now).filter((e): e is [string, FetchedDocument] => e[1] !== undefined),
  );
  const result = planPublish({
    changedIds: changed,
    fetched,
    known: new Map(Object.entries(KNOWN)),
    dependents: (dep) => DEPENDENTS[dep] ?? [],
  });
  return {
    render: [...result.render.keys()].sort(),
    delete: [...result.delete.keys()].sort(),
    why: result.render,
  };
}
const page = (id: string, route: string | null): FetchedDocument => ({ id, type: "page", route });

describe("planner", () => {
  it("edited page: its route and every route that depends on it", () => {
    expect(plan(["about"], { about: page("about", "/about") })).toMatchObject({
      render: ["/", "/about", "/sitemap.xml"],
      delete: [],
    });
  });

  it("new page: its route, and the listings of its type", () => {
    expect(plan(["careers"], { careers: page("careers", "/careers") })).toMatchObject({
      render: ["/careers", "/sitemap.xml"],
      delete: [],
    });
  });

  it("uid renamed: old route deleted, new written, linking pages and listings re-rendered", () => {
    const result = plan(["about"], { about: page("about", "/about-us") });
    expect(result).toMatchObject({ render: ["/", "/about-us", "/sitemap.xml"], delete: ["/about"] });
    expect(result.why.get("/about-us")).toBe("document about changed");
  });

  it("unpublished page: route deleted, linking pages and the sitemap re-rendered", () => {
    expect(plan(["about"], { about: undefined })).toMatchObject({
      render: ["/", "/sitemap.xml"],
      delete: ["/about"],
    });
  });

  it("settings changed: every route", () => {
    expect(plan([SETTINGS], { [SETTINGS]: { id: SETTINGS, type: "settings", route: null } }).render).toEqual(
      ["/", "/about", "/pricing", "/price-list/", "/price-list/websites", "404"].sort(),
    );
  });

  it("price list changed: its route, the index, and every page embedding it", () => {
    expect(
      plan(["websites"], { websites: { id: "websites", type: "price_list", route: "/price-list/websites" } })
        .render,
    ).toEqual(["/price-list/", "/price-list/websites", "/pricing", "/sitemap.xml"]);
  });

  it("a new price list changes the price-list membership: index and sitemap", () => {
    expect(
      plan(["workshops"], {
        workshops: { id: "workshops", type: "price_list", route: "/price-list/workshops" },
      }).render,
    ).toEqual(["/price-list/", "/price-list/workshops", "/sitemap.xml"]);
  });

  it("two pages swapping uids: both routes rendered, none deleted", () => {
    const result = plan(["about", "pricing"], {
      about: page("about", "/pricing"),
      pricing: page("pricing", "/about"),
    });
    expect(result.delete).toEqual([]);
    expect(result.render).toEqual(expect.arrayContaining(["/about", "/pricing"]));
  });

  it("a page renamed onto a freed uid in the same publish: the route is rendered, not deleted", () => {
    const result = plan(["about", "careers"], { about: undefined, careers: page("careers", "/about") });
    expect(result.delete).toEqual([]);
    expect(result.render).toContain("/about");
  });

  it("an id announced twice is planned once; an unknown id that is not returned changes nothing", () => {
    expect(plan(["about", "about"], { about: page("about", "/about") }).render).toEqual([
      "/",
      "/about",
      "/sitemap.xml",
    ]);
    expect(plan(["never-existed"], {})).toMatchObject({ render: [], delete: [] });
  });

  it("a document whose uid became unsafe loses its route", () => {
    expect(plan(["about"], { about: page("about", null) })).toMatchObject({ delete: ["/about"] });
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
    expect(idsToFetch(["pricing"], SETTINGS, routes)).toEqual([
      "pricing",
      SETTINGS,
      "about",
      "websites",
      "home",
    ]);
  });

  it("listing dependencies (type:…) are not documents; without an index entry only the ids and settings", () => {
    expect(idsToFetch(["about"], SETTINGS, [{ dependencies: ["type:page", "doc:about"] }])).toEqual([
      "about",
      SETTINGS,
    ]);
    expect(idsToFetch(["new-page", "other"], undefined, [])).toEqual(["new-page", "other"]);
  });
});
