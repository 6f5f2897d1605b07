import type { PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { parseRoutes, resolveUrl } from "#local-prismic/query/routes.ts";
import { website as demo } from "#web/website.ts";
import type { Website } from "#website/contract.ts";
import { website as secondSite } from "../support/second-site/website.ts";

/**
 * A website has one URL table: the route resolver it sends Prismic (which fills `url` on documents
 * and on links to them) and its own `routes.ofDocument` (where the engine stores the page) must give
 * the same path for every document that has one, or links would point where no page is. Resolved
 * here as the local content service resolves (Prismic's rules: first matching route wins). The
 * resolver writes a uid's letters as they are (`/über-uns`), the site its canonical spelling
 * (`/%C3%BCber-uns`): a browser asks for both the same way, so they are compared decoded.
 */
const doc = (type: string, uid: string | null): PrismicDocument =>
  ({ id: `${type}-${uid}`, type, uid, lang: "en-us", data: {} }) as unknown as PrismicDocument;

function agreement(site: Website, documents: PrismicDocument[]) {
  const routes = parseRoutes(JSON.stringify(site.routes.resolver));
  return documents.map((d) => ({
    document: `${d.type}:${d.uid}`,
    resolver: resolveUrl(routes, { type: d.type, uid: d.uid ?? null, lang: "en-us" }, "en-us"),
    site: site.routes.ofDocument(d),
  }));
}

function decoded(path: string | null): string | null {
  return path === null ? null : decodeURI(path);
}

describe("the route resolver and the route table agree", () => {
  it.each([
    [
      "the demo",
      demo,
      [
        doc("page", "home"),
        doc("page", "about"),
        doc("page", "über-uns"),
        doc("price_list", "basic"),
        doc("settings", null),
      ],
    ],
    [
      "the second site",
      secondSite,
      [doc("post", "hello"), doc("post", "a-longer-title"), doc("site_config", null)],
    ],
  ] as const)("%s", (_name, site, documents) => {
    for (const row of agreement(site, [...documents]))
      expect(decoded(row.resolver), row.document).toBe(decoded(row.site));
  });
});
